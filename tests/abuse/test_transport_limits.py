"""What one anonymous client may hold. Raw sockets against a real server.

Slow or half-sent HTTP requests and WebSocket handshakes are closed after a deadline; bodies
are capped; a WebSocket watching no match is closed after a documented time (4410); a client
cut for not reading stops being read at once; a frame over 1 MiB closes with 1009 however it
is sent. The server runs with the timeouts shortened through their environment overrides."""

from __future__ import annotations

import asyncio
import socket
import time

import httpx
import msgpack
import pytest
import websockets
from teahouse_client import TeahouseClient

from tests.e2e.helpers import close_all, seat_players
from tests.support.server import ServerProcess

HEADER_S, REQUEST_S, IDLE_S = 2, 4, 2


@pytest.fixture(scope="module")
def strict_server(tmp_path_factory):
    work = tmp_path_factory.mktemp("limits")
    proc = ServerProcess(f"sqlite:{work / 'data'}", work / "server.log")
    proc.env = {"TEAHOUSE_HEADER_TIMEOUT_S": str(HEADER_S), "TEAHOUSE_REQUEST_TIMEOUT_S": str(REQUEST_S),
                "TEAHOUSE_IDLE_SOCKET_S": str(IDLE_S),
                # the slow-consumer test floods requests to fill an outbox; the request rate and
                # byte budget that slow such a flood are tested in test_request_limits.py
                "TEAHOUSE_REQUESTS_PER_SECOND": "0", "TEAHOUSE_OUTBOUND_BYTES_PER_SECOND": "0"}
    proc.start()
    yield proc
    proc.stop()


async def _held(port: int, payload: bytes) -> asyncio.StreamReader:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(payload)
    await writer.drain()
    reader._teahouse_writer = writer  # type: ignore[attr-defined]
    return reader


async def _closed_within(reader: asyncio.StreamReader, seconds: float) -> bool:
    """True if the server closed the connection (EOF or reset) within `seconds`."""
    try:
        data = await asyncio.wait_for(reader.read(), seconds)
    except (ConnectionError, OSError):
        return True
    except TimeoutError:
        return False
    finally:
        reader._teahouse_writer.close()  # type: ignore[attr-defined]
    return data == b"" or b"HTTP/1.1" in data


async def test_slow_and_half_sent_requests_are_closed(strict_server):
    port = strict_server.port
    cases = {
        "nothing sent": b"",
        "half the headers": b"GET /health HTTP/1.1\r\nHost: x\r\n",
        "half a WebSocket handshake": (b"GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
                                       b"Connection: Upgrade\r\n"),
        "a body that never ends": (b"POST /api/matches HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                                   b"Content-Length: 100000\r\n\r\n{\"game\""),
        "an unread body that never ends": b"GET /health HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\nab",
    }
    t0 = time.monotonic()
    held = {name: await _held(port, data) for name, data in cases.items()}
    results = await asyncio.gather(*(_closed_within(r, REQUEST_S + 8) for r in held.values()))
    assert dict(zip(held, results, strict=True)) == {name: True for name in cases}
    assert time.monotonic() - t0 < REQUEST_S + 8
    # and the server still answers
    assert httpx.get(strict_server.url + "/health").status_code == 200


def test_request_bodies_are_capped(strict_server):
    big = b'{"game": "pixies", "players": 2, "pad": "' + b"x" * (2 << 20) + b'"}'
    r = httpx.post(strict_server.url + "/api/matches", content=big, headers={"Content-Type": "application/json"})
    assert r.status_code == 413 and r.json()["error"]["code"] == "body_too_large"

    def chunks():  # no Content-Length: the cap holds while reading
        for _ in range(40):
            yield b"x" * 65536

    r = httpx.post(strict_server.url + "/api/matches", content=chunks(), headers={"Content-Type": "application/json"})
    assert r.status_code == 413 and r.json()["error"]["code"] == "body_too_large"


def test_a_declared_body_that_does_not_come_is_answered_408(strict_server):
    with socket.create_connection(("127.0.0.1", strict_server.port)) as s:
        s.sendall(b"POST /api/matches HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                  b"Content-Length: 50\r\n\r\n{\"game\"")
        s.settimeout(REQUEST_S + 15)
        data = s.recv(65536)
    # the route's own 10 s deadline answers 408, unless the transport's deadline closed first
    assert data == b"" or b"408" in data.split(b"\r\n", 1)[0]


async def _ws(server):
    return await websockets.connect(server.url.replace("http", "ws") + "/ws", subprotocols=["teahouse.v1.msgpack"],
                                    max_size=2**24, ping_interval=None)


async def _close_code(ws, timeout: float) -> int | None:
    try:
        while True:
            await asyncio.wait_for(ws.recv(), timeout)
    except websockets.ConnectionClosed as exc:
        return exc.rcvd.code if exc.rcvd else None


async def test_a_socket_that_watches_nothing_is_closed_4410(strict_server):
    client = TeahouseClient(strict_server.url)
    mid = (await client.create_match("pixies", 2))["match"]
    idle = await _ws(strict_server)
    await idle.send(msgpack.packb({"type": "hello"}))
    watching = await _ws(strict_server)
    await watching.send(msgpack.packb({"type": "hello"}))
    await watching.send(msgpack.packb({"type": "spectate", "match": mid}))
    t0 = time.monotonic()
    assert await _close_code(idle, IDLE_S + 5) == 4410
    assert IDLE_S - 0.5 <= time.monotonic() - t0 <= IDLE_S + 5
    # the one watching a match stays; once it leaves, its clock starts
    await watching.send(msgpack.packb({"type": "ping", "nonce": 1}))
    await asyncio.sleep(0.2)
    assert watching.close_code is None
    await watching.send(msgpack.packb({"type": "leave", "match": mid}))
    assert await _close_code(watching, IDLE_S + 5) == 4410
    await client.aclose()


@pytest.mark.parametrize("how", ["binary", "text", "fragmented", "before hello"])
async def test_every_frame_over_1_mib_closes_1009(strict_server, how):
    ws = await _ws(strict_server)
    if how != "before hello":
        await ws.send(msgpack.packb({"type": "hello"}))
    big = (1 << 20) + 1
    if how == "text":
        await ws.send("x" * big)
    elif how == "fragmented":  # no single frame is over the limit; the message is
        await ws.send([b"\x00" * (big // 3 + 1)] * 3)
    else:
        await ws.send(b"\x00" * big)
    assert await _close_code(ws, 10) == 1009


async def test_a_client_cut_for_not_reading_is_not_read_any_more(strict_server):
    client = TeahouseClient(strict_server.url)
    mid = (await client.create_match("pixies", 2))["match"]
    seats, conns, views = await seat_players(client, mid, 2, record=False)
    observer = await client.connect().open()
    watched = await observer.spectate(mid)
    slow = await _ws(strict_server)
    await slow.send(msgpack.packb({"type": "hello"}))
    await slow.send(msgpack.packb({"type": "spectate", "match": mid}))
    await watched.wait_for(lambda g: (g.presence or {}).get("spectators") == 2, timeout=10)
    # flood full-view requests without reading until the server cuts it (presence drops)
    try:
        for _ in range(40):
            for _ in range(2000):
                await slow.send(msgpack.packb({"type": "resync", "match": mid, "since": 10_000}))
            try:
                await watched.wait_for(lambda g: g.presence["spectators"] == 1, timeout=1)
                break
            except TimeoutError:
                continue
    except websockets.ConnectionClosed:
        pass  # closed under the flood: cut
    await watched.wait_for(lambda g: g.presence["spectators"] == 1, timeout=10)
    # whatever the cut client sends now is not acted on: it does not come back as a spectator
    try:
        for _ in range(20):
            await slow.send(msgpack.packb({"type": "spectate", "match": mid}))
    except websockets.ConnectionClosed:
        pass  # the server has already closed it: nothing it sends is read
    await asyncio.sleep(1.5)
    assert watched.presence["spectators"] == 1
    await slow.close()
    await close_all(observer, *conns)
    await client.aclose()
