"""The limits an operator sets, each over a real server and real sockets.

Matches created per address per minute (429 rate_limited + Retry-After), the create-options
size (413 options_too_large), WebSocket connections per address (close 4429), live matches per
node (503 / error node_full) and spectators per match (error too_many_spectators)."""

from __future__ import annotations

import asyncio

import httpx
import msgpack
import pytest
import websockets

from tests.support.server import sqlite_server

CREATES, OPTIONS_BYTES, CONNECTIONS, LIVE, SPECTATORS = 3, 200, 4, 2, 2


@pytest.fixture(scope="module")
def address_server(tmp_path_factory):
    env = {"TEAHOUSE_MATCHES_PER_ADDRESS_PER_MINUTE": str(CREATES), "TEAHOUSE_OPTIONS_MAX_BYTES": str(OPTIONS_BYTES),
           "TEAHOUSE_CONNECTIONS_PER_ADDRESS": str(CONNECTIONS)}
    with sqlite_server(tmp_path_factory.mktemp("address"), env) as proc:
        yield proc


@pytest.fixture(scope="module")
def node_server(tmp_path_factory):
    env = {"TEAHOUSE_LIVE_MATCHES_PER_NODE": str(LIVE), "TEAHOUSE_SPECTATORS_PER_MATCH": str(SPECTATORS)}
    with sqlite_server(tmp_path_factory.mktemp("node"), env) as proc:
        yield proc


def _create(url: str, **body) -> httpx.Response:
    return httpx.post(url + "/api/matches", json={"game": "pixies", "players": 2, **body})


def test_matches_created_per_address_per_minute(address_server):
    url = address_server.url
    # options over the cap are refused before they count as a creation
    big = {"deck_order": ["x" * 40] * 10}
    r = _create(url, options=big)
    assert r.status_code == 413 and r.json()["error"]["code"] == "options_too_large"
    assert str(OPTIONS_BYTES) in r.json()["error"]["message"]
    for _ in range(CREATES):
        assert _create(url).status_code == 201
    r = _create(url)
    assert r.status_code == 429 and r.json()["error"]["code"] == "rate_limited"
    assert 0 < int(r.headers["Retry-After"]) <= 60
    assert len(httpx.get(url + "/api/matches").json()) == CREATES, "the refused create made no match"


async def _ws(server):
    return await websockets.connect(server.url.replace("http", "ws") + "/ws", subprotocols=["teahouse.v1.msgpack"],
                                    ping_interval=None)


async def _answer(ws, kinds: tuple[str, ...]) -> dict:
    while True:
        m = msgpack.unpackb(await asyncio.wait_for(ws.recv(), 10))
        if m["type"] in kinds:
            return m


async def test_connections_per_address(address_server):
    held = [await _ws(address_server) for _ in range(CONNECTIONS)]
    extra = await _ws(address_server)
    with pytest.raises(websockets.ConnectionClosed) as closed:
        await asyncio.wait_for(extra.recv(), 10)
    assert closed.value.rcvd.code == 4429 and str(CONNECTIONS) in closed.value.rcvd.reason
    # the held ones still work, and closing one makes room
    await held[0].send(msgpack.packb({"type": "hello"}))
    assert (await _answer(held[0], ("welcome",)))["type"] == "welcome"
    await held.pop().close()
    await asyncio.sleep(0.3)
    again = await _ws(address_server)
    await again.send(msgpack.packb({"type": "hello"}))
    assert (await _answer(again, ("welcome",)))["type"] == "welcome"
    for ws in [*held, again]:
        await ws.close()


async def test_live_matches_per_node_and_spectators_per_match(node_server):
    url = node_server.url
    ids = [_create(url).json()["match"] for _ in range(LIVE + 1)]
    for _ in range(2):  # the first match starts: a live runtime on the node
        assert httpx.post(f"{url}/api/matches/{ids[0]}/seats", json={}).status_code == 201
    spectators = []
    for _ in range(SPECTATORS):
        ws = await _ws(node_server)
        await ws.send(msgpack.packb({"type": "hello"}))
        await ws.send(msgpack.packb({"type": "spectate", "match": ids[0]}))
        assert (await _answer(ws, ("view", "error")))["type"] == "view"
        spectators.append(ws)
    one_more = await _ws(node_server)
    await one_more.send(msgpack.packb({"type": "hello"}))
    await one_more.send(msgpack.packb({"type": "spectate", "match": ids[0]}))
    refused = await _answer(one_more, ("view", "error"))
    assert refused["code"] == "too_many_spectators" and refused["match"] == ids[0]
    # a second match loaded by a spectator fills the node
    await one_more.send(msgpack.packb({"type": "spectate", "match": ids[1]}))
    assert (await _answer(one_more, ("view", "error")))["type"] == "view"
    await one_more.send(msgpack.packb({"type": "spectate", "match": ids[2]}))
    full = await _answer(one_more, ("view", "error"))
    assert full["code"] == "node_full" and full["ref"] == "spectate"
    # starting a third match needs a runtime: the last seat is refused and stays free
    assert httpx.post(f"{url}/api/matches/{ids[2]}/seats", json={}).status_code == 201
    r = httpx.post(f"{url}/api/matches/{ids[2]}/seats", json={})
    assert r.status_code == 503 and r.json()["error"]["code"] == "node_full"
    assert sum(s["taken"] for s in httpx.get(f"{url}/api/matches/{ids[2]}").json()["seats"]) == 1
    for ws in [*spectators, one_more]:
        await ws.close()
