"""The few names of uvicorn the edge relies on (service/ws/edge.py, service/http/deadlines.py,
service/ws/handshake.py), asserted against a real uvicorn server on a real socket: if a release
changes one of them, this fails and says which, instead of the edge breaking in production.

- `ws=`: after the HTTP upgrade uvicorn calls the class with the keyword arguments `config`,
  `server_state` and `app_state` (the lifespan state), then `connection_made(transport)` and
  `data_received(<the handshake request>)`, and makes it the transport's protocol;
- `server_state.connections` (a SIGTERM calls `shutdown()` on each and waits for them to leave),
  `server_state.tasks` (awaited by the drain), `server_state.default_headers` (byte pairs);
- `config.proxy_headers`, `config.forwarded_allow_ips`, and `ProxyHeadersMiddleware(app,
  trusted_hosts=...)`, which rewrites a websocket scope's `client` from X-Forwarded-For;
- `http=`: uvicorn calls the class with keyword arguments that its own HTTP protocols
  (`HttpToolsProtocol`, `H11Protocol`, what `--http httptools|h11` name) accept as they are.
"""

from __future__ import annotations

import asyncio
import functools
from typing import Any

import pytest
import uvicorn
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from websockets.datastructures import Headers

from service.http.deadlines import DeadlineProtocol
from service.ops.limits import Limits
from service.ws.handshake import ClientAddress

HANDSHAKE = (b"GET /ws?x=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
             b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")


class Handed(asyncio.Protocol):
    """A `ws=` class that records what uvicorn hands it."""

    instances: list[Handed] = []

    def __init__(self, **kwargs: Any) -> None:
        self.kwargs = kwargs
        self.calls: list[str] = []
        self.received = b""
        self.shut_down = asyncio.get_running_loop().create_future()
        self.transport: asyncio.Transport | None = None
        Handed.instances.append(self)

    def connection_made(self, transport: Any) -> None:
        self.calls.append("connection_made")
        self.transport = transport
        self.kwargs["server_state"].connections.add(self)

    def data_received(self, data: bytes) -> None:
        self.calls.append("data_received")
        self.received += data
        if self.received.endswith(b"ping"):
            assert self.transport is not None
            self.transport.write(b"pong")

    def shutdown(self) -> None:
        self.shut_down.set_result(True)
        assert self.transport is not None
        self.transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        self.kwargs["server_state"].connections.discard(self)


async def _app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                scope["state"]["marker"] = "lifespan state"
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return


async def _serving(**options: Any) -> tuple[uvicorn.Server, asyncio.Task[None], int]:
    config = uvicorn.Config(_app, host="127.0.0.1", port=0, lifespan="on", log_level="warning", **options)
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    while not server.started:
        await asyncio.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    return server, task, port


@pytest.mark.parametrize("http", ["h11", "httptools", "deadlines"])
async def test_the_ws_class_gets_the_upgraded_connection(http):
    Handed.instances.clear()
    protocol: Any = functools.partial(DeadlineProtocol, Limits()) if http == "deadlines" else http
    server, task, port = await _serving(http=protocol, ws=Handed)
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(HANDSHAKE)
        await writer.drain()
        while not Handed.instances or not Handed.instances[0].received.endswith(b"\r\n\r\n"):
            await asyncio.sleep(0.01)
        handed = Handed.instances[0]
        assert set(handed.kwargs) >= {"config", "server_state", "app_state"}
        assert handed.kwargs["config"] is server.config
        assert handed.kwargs["app_state"]["marker"] == "lifespan state"
        assert handed.calls[:2] == ["connection_made", "data_received"]
        request_line, _, rest = handed.received.partition(b"\r\n")
        assert request_line == b"GET /ws?x=1 HTTP/1.1"
        assert b"sec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\n" in rest  # names lowercased, values as sent
        # From here on the connection's bytes are the ws class's, both ways.
        writer.write(b"ping")
        assert await asyncio.wait_for(reader.readexactly(4), 5) == b"pong"

        state = handed.kwargs["server_state"]
        assert isinstance(state.connections, set) and handed in state.connections
        assert isinstance(state.tasks, set)
        assert state.default_headers and all(isinstance(n, bytes) and isinstance(v, bytes)
                                             for n, v in state.default_headers)
        assert {n.lower() for n, _ in state.default_headers} >= {b"date", b"server"}
        config = handed.kwargs["config"]
        assert config.proxy_headers is True
        assert config.forwarded_allow_ips is not None
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, 15)
        writer.close()
        await writer.wait_closed()
    # The drain: shutdown() on every connection still open.
    assert Handed.instances[0].shut_down.done()


async def test_the_drain_waits_for_server_state_tasks():
    Handed.instances.clear()
    server, task, port = await _serving(ws=Handed, timeout_graceful_shutdown=5)
    finished = asyncio.Event()

    async def in_flight() -> None:
        await asyncio.sleep(0.3)
        finished.set()

    job = asyncio.create_task(in_flight())
    server.server_state.tasks.add(job)
    job.add_done_callback(server.server_state.tasks.discard)
    server.should_exit = True
    await asyncio.wait_for(task, 15)
    assert finished.is_set()


def test_uvicorns_http_protocols_take_the_keyword_arguments_it_gives_http():
    import inspect

    for cls in (HttpToolsProtocol, H11Protocol):
        params = inspect.signature(cls.__init__).parameters
        assert {"config", "server_state", "app_state", "_loop"} <= set(params), cls


def test_x_forwarded_for_counts_from_the_hosts_uvicorn_trusts():
    headers = Headers([("X-Forwarded-For", "203.0.113.7, 10.0.0.2")])
    trusted = ClientAddress(True, "127.0.0.1,10.0.0.2")
    assert trusted.of(("127.0.0.1", 5000), headers) == "203.0.113.7"
    assert trusted.of(("198.51.100.1", 5000), headers) == "198.51.100.1"  # not a trusted proxy
    assert trusted.of(("127.0.0.1", 5000), Headers()) == "127.0.0.1"
    assert ClientAddress(False, "*").of(("127.0.0.1", 5000), headers) == "127.0.0.1"
    assert isinstance(ProxyHeadersMiddleware(_app, trusted_hosts="*"), ProxyHeadersMiddleware)
