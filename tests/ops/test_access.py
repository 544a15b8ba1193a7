"""service/ops/access.py against its docstring and docs/operators.md (Logs): one line per HTTP
request and per WebSocket session when it ends, logger `teahouse.access`, with `method` (`WS`
for a WebSocket), `path` (any `token=` blanked), `status` (101 for an accepted WebSocket), `ms`
and `client`; seat tokens never appear in a log line; `--no-access-log` turns it off.

The middleware wraps a small inline Starlette app: over httpx's ASGI transport for HTTP, and
under a real uvicorn on a real socket for WebSockets (the handshake is uvicorn's)."""

from __future__ import annotations

import asyncio
import logging

import httpx
import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from service.ops.access import AccessLog
from tests.support.redis_server import free_port

SECRET = "q6Jm1Yc3T0kVbZr8sWl2nE4uXo9aHd5gRf7iPe0yKtA"  # a seat token's shape (SPEC 2.7)


async def hello(request):
    return PlainTextResponse("hi")


async def fails(request):
    raise RuntimeError("a handler bug")


async def echo(ws: WebSocket) -> None:
    await ws.accept()
    async for text in ws.iter_text():  # until the client closes
        await ws.send_text(text)


async def refuse(ws: WebSocket) -> None:
    await ws.close(code=4403)  # before accepting: the handshake is refused


APP = AccessLog(Starlette(routes=[
    Route("/hello", hello, methods=["GET", "POST"]),
    Route("/fails", fails),
    WebSocketRoute("/ws", echo),
    WebSocketRoute("/refused", refuse),
]))


@pytest.fixture
def access(caplog):
    caplog.set_level(logging.INFO, logger="teahouse.access")

    def lines() -> list[logging.LogRecord]:
        return [r for r in caplog.records if r.name == "teahouse.access"]

    return lines


def http() -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=APP, raise_app_exceptions=False,
                                                           client=("192.0.2.9", 40000)),
                             base_url="http://teahouse.test")


async def test_one_line_per_request_with_its_fields(access):
    async with http() as client:
        await client.get("/hello")
        await client.post("/hello", json={})
        await client.get("/nowhere")
    got = access()
    assert [(r.method, r.path, r.status) for r in got] == [("GET", "/hello", 200), ("POST", "/hello", 200),
                                                           ("GET", "/nowhere", 404)]
    for r in got:
        assert r.client == "192.0.2.9"
        assert isinstance(r.ms, float) and r.ms >= 0
        assert r.getMessage() == f"{r.method} {r.path} {r.status} {r.ms:.1f} ms"


async def test_a_request_whose_handler_fails_is_logged_too(access):
    async with http() as client:
        assert (await client.get("/fails")).status_code == 500
    (line,) = access()
    assert (line.path, line.status) == ("/fails", 500)


async def test_the_query_string_is_logged_with_a_token_blanked(access):
    async with http() as client:
        await client.get(f"/hello?seat=1&token={SECRET}&seq=4")
        await client.get(f"/hello?TOKEN={SECRET}")
    first, second = access()
    assert first.path.startswith("/hello?seat=1&token=") and first.path.endswith("&seq=4")
    for r in (first, second):
        assert SECRET not in r.path and SECRET not in r.getMessage()


async def test_a_token_parameter_spelled_with_percent_escapes_is_blanked(access):
    async with http() as client:
        await client.get(f"/hello?tok%65n={SECRET}")
    (line,) = access()
    assert SECRET not in line.path


async def test_a_bearer_header_is_not_logged(access):
    async with http() as client:
        await client.get("/hello", headers={"Authorization": f"Bearer {SECRET}"})
    (line,) = access()
    assert SECRET not in line.getMessage() and all(SECRET not in str(v) for v in vars(line).values())


async def test_no_line_when_the_access_log_is_off(caplog):
    caplog.set_level(logging.WARNING, logger="teahouse.access")
    async with http() as client:
        assert (await client.get("/hello")).text == "hi"
    assert not [r for r in caplog.records if r.name == "teahouse.access"]


# -- WebSocket sessions, through a real uvicorn ----------------------------------------------------

@pytest.fixture
async def served():
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(APP, host="127.0.0.1", port=port, ws="websockets-sansio",
                                           lifespan="off", log_config=None, access_log=False))
    task = asyncio.create_task(server.serve())
    while not server.started:
        await asyncio.sleep(0.01)
    yield f"ws://127.0.0.1:{port}"
    server.should_exit = True
    await task


async def wait_for_lines(access, n: int) -> list[logging.LogRecord]:
    for _ in range(1000):  # the line is written when the session ends on the server's side
        if len(access()) >= n:
            break
        await asyncio.sleep(0.01)
    return access()


async def test_a_websocket_session_is_one_line_when_it_ends(served, access):
    async with connect(f"{served}/ws?since=3&token={SECRET}") as ws:
        await ws.send("ping")
        assert await ws.recv() == "ping"
        assert access() == [], "no line while the session lasts"
    (line,) = await wait_for_lines(access, 1)
    assert (line.method, line.status, line.client) == ("WS", 101, "127.0.0.1")
    assert line.path.startswith("/ws?since=3&token=") and SECRET not in line.path


async def test_a_websocket_refused_before_it_is_accepted_is_logged_as_refused(served, access):
    with pytest.raises(InvalidStatus) as refused:
        async with connect(f"{served}/refused"):
            pass
    assert refused.value.response.status_code == 403
    (line,) = await wait_for_lines(access, 1)
    assert (line.method, line.path, line.status) == ("WS", "/refused", 403)
