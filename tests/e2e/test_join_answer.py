"""The answer to join/spectate is ordered (SPEC 3.1, 3.3): the document, `finished` if over,
`clock` if running, then `presence` with `reply` (and the request's `ref`), which ends it, and
only then the reply to the next request."""

from __future__ import annotations

import asyncio

import msgpack
import orjson
import pytest
import websockets
from teahouse_client import TeahouseClient

from protocol.v2 import decode_frame


def decoded(data):
    """A frame as a value: a map, or a v2 compact frame's array (a msgpack stream, SPEC 12.1)."""
    return decode_frame(data, "v2.msgpack" if isinstance(data, bytes) else "v2.json")


async def messages_until_pong(ws, timeout: float = 10) -> list:
    got = []
    while True:
        msg = decoded(await asyncio.wait_for(ws.recv(), timeout))
        got.append(msg)
        if isinstance(msg, dict) and msg["type"] == "pong":
            return got


async def frames_until_pong(ws, timeout: float = 10) -> list[str]:
    return [m["type"] if isinstance(m, dict) else "compact" for m in await messages_until_pong(ws, timeout)]


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
            assert await frames_until_pong(ws) == ["view", *clock, "presence", "pong"]
            await ws.send(msgpack.packb({"type": "join", "match": mid, "token": tokens[0]}))
            await ws.send(msgpack.packb({"type": "ping", "nonce": 2}))
            # joining replaces the spectator: the seat's view, then the changed presence
            assert await frames_until_pong(ws) == ["view", *clock, "presence", "pong"]
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


@pytest.mark.parametrize("subprotocol", ["teahouse.v1.msgpack", "teahouse.v1.json", "teahouse.v2.msgpack",
                                         "teahouse.v2.json"])
async def test_each_answer_ends_with_a_presence_naming_its_request_and_ref(sqlite_server, subprotocol):
    """SPEC 3.1 and 5.7: the last frame of the answer to join, spectate and resync is a presence
    with `reply` = the request's type and the request's `ref`; in v2 too (as a map); a
    broadcast presence has no `reply`."""
    client = TeahouseClient(sqlite_server.url)
    try:
        mid = (await client.create_match("pixies", 2, turn_seconds=600))["match"]
        tokens = [(await client.take_seat(mid))["token"] for _ in range(2)]
        url = sqlite_server.url.replace("http", "ws") + "/ws"
        json_wire = subprotocol.endswith("json")

        def pack(msg):
            return orjson.dumps(msg).decode() if json_wire else msgpack.packb(msg)

        async with websockets.connect(url, subprotocols=[subprotocol]) as ws, \
                websockets.connect(url, subprotocols=["teahouse.v1.msgpack"]) as other:
            await ws.send(pack({"type": "hello"}))
            await ws.recv()
            for request in ({"type": "spectate", "match": mid, "ref": "s-1"},
                            {"type": "join", "match": mid, "token": tokens[0], "ref": "j-1"},
                            {"type": "resync", "match": mid, "since": 1, "ref": "r-1"},
                            {"type": "resync", "match": mid, "since": 0}):
                await ws.send(pack(request))
                await ws.send(pack({"type": "ping", "nonce": 1}))
                got = await messages_until_pong(ws)
                *answer, last, pong = got
                assert isinstance(last, dict) and last["type"] == "presence", got
                assert last["reply"] == request["type"]
                assert last.get("ref") == request.get("ref")
                assert last["match"] == mid
                assert not any(isinstance(m, dict) and m["type"] == "presence" for m in answer)
                assert [m["type"] for m in answer if isinstance(m, dict)][-1:] in (["clock"], ["view"], []), got
            # another connection's seat 1 arrives: this one is told by a broadcast presence
            await other.send(msgpack.packb({"type": "hello"}))
            await other.recv()
            await other.send(msgpack.packb({"type": "join", "match": mid, "token": tokens[1]}))
            while True:
                msg = decoded(await asyncio.wait_for(ws.recv(), 10))
                if isinstance(msg, list) or msg.get("type") == "presence":
                    break
            if subprotocol.startswith("teahouse.v2"):
                assert isinstance(msg, list) and msg[0] % 4 == 3, "a broadcast presence stays compact in v2"
            else:
                assert msg["seats"] == [True, True] and "reply" not in msg and "ref" not in msg
    finally:
        await client.aclose()
