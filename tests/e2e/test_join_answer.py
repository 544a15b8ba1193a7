"""The answer to join/spectate is ordered (SPEC 3.1, 3.3): the document, `finished` if over,
`presence`, `clock` if running, and only then the reply to the next request."""

from __future__ import annotations

import asyncio

import msgpack
import pytest
import websockets
from teahouse_client import TeahouseClient


async def frames_until_pong(ws, timeout: float = 10) -> list[str]:
    types = []
    while True:
        msg = msgpack.unpackb(await asyncio.wait_for(ws.recv(), timeout), raw=False)
        types.append(msg["type"])
        if msg["type"] == "pong":
            return types


@pytest.mark.parametrize("turn_seconds", [None, 600])
async def test_presence_comes_in_the_answer_before_the_next_reply(sqlite_server, turn_seconds):
    client = TeahouseClient(sqlite_server.url)
    try:
        mid = (await client.create_match("pixies", 2, turn_seconds=turn_seconds))["match"]
        tokens = [(await client.take_seat(mid))["token"] for _ in range(2)]
        url = sqlite_server.url.replace("http", "ws") + "/ws"
        async with websockets.connect(url, subprotocols=["teahouse.v1.msgpack"]) as ws:
            await ws.send(msgpack.packb({"type": "hello"}))
            assert msgpack.unpackb(await ws.recv(), raw=False)["type"] == "welcome"
            clock = ["clock"] if turn_seconds else []
            # pipelined: the ping is sent before any answer to spectate is read
            await ws.send(msgpack.packb({"type": "spectate", "match": mid}))
            await ws.send(msgpack.packb({"type": "ping", "nonce": 1}))
            assert await frames_until_pong(ws) == ["view", "presence", *clock, "pong"]
            await ws.send(msgpack.packb({"type": "join", "match": mid, "token": tokens[0]}))
            await ws.send(msgpack.packb({"type": "ping", "nonce": 2}))
            # joining replaces the spectator: the seat's view, then the changed presence
            assert await frames_until_pong(ws) == ["view", "presence", *clock, "pong"]
    finally:
        await client.aclose()


async def test_a_resync_is_always_answered_even_when_nothing_was_missed(sqlite_server):
    """SPEC 3.7: the answer to resync ends with presence, so an empty one is acknowledged."""
    client = TeahouseClient(sqlite_server.url)
    try:
        mid = (await client.create_match("pixies", 2))["match"]
        for _ in range(2):
            await client.take_seat(mid)
        url = sqlite_server.url.replace("http", "ws") + "/ws"
        async with websockets.connect(url, subprotocols=["teahouse.v1.msgpack"]) as ws:
            await ws.send(msgpack.packb({"type": "hello"}))
            await ws.recv()
            await ws.send(msgpack.packb({"type": "spectate", "match": mid}))
            await ws.send(msgpack.packb({"type": "ping", "nonce": 1}))
            await frames_until_pong(ws)
            for since, answer in ((1, ["presence"]), (0, ["view", "presence"]), (7, ["view", "presence"])):
                await ws.send(msgpack.packb({"type": "resync", "match": mid, "since": since}))
                await ws.send(msgpack.packb({"type": "ping", "nonce": 2}))
                assert await frames_until_pong(ws) == [*answer, "pong"], since
    finally:
        await client.aclose()
