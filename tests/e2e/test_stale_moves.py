"""Stale-move protection (SPEC 3.5, 4.5, 7.1) over a real server, on both stores: a move whose
`at` is not the match's seq is refused with `stale` and the match's seq, and nothing is
committed; a move id already committed answers its ack whatever its `at` says."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import orjson
import websockets

from protocol.patch import apply
from tests.support.server import ServerProcess


class Seat:
    """A v1 JSON connection playing one seat, holding its document and seq."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.doc: dict[str, Any] = {}
        self.seq = -1

    async def send(self, msg: dict[str, Any]) -> None:
        await self.ws.send(orjson.dumps(msg).decode())

    async def recv(self) -> dict[str, Any]:
        msg = orjson.loads(await asyncio.wait_for(self.ws.recv(), 10))
        if msg["type"] == "view":
            self.doc, self.seq = msg["doc"], msg["seq"]
        elif msg["type"] == "patch" and msg["seq"] == self.seq + 1:
            self.doc, self.seq = apply(self.doc, msg["ops"]), msg["seq"]
        return msg

    async def until(self, kind: str) -> list[dict[str, Any]]:
        """Every message up to and including the first of `kind`."""
        got = [await self.recv()]
        while got[-1]["type"] != kind:
            got.append(await self.recv())
        return got

    async def first_legal(self, match: str) -> dict[str, Any]:
        await self.send({"type": "legal", "match": match})
        (moves,) = [m for m in await self.until("legal_moves") if m["type"] == "legal_moves"]
        return moves["moves"][0]


async def seated(server: Any) -> tuple[str, httpx.AsyncClient, list[str]]:
    http = httpx.AsyncClient(base_url=server.url, timeout=10)
    created = (await http.post("/api/matches", json={"game": "pixies", "players": 2,
                                                     "options": {"first_player": 0}})).json()
    tokens = [(await http.post(f"/api/matches/{created['match']}/seats", json={})).json()["token"] for _ in range(2)]
    return created["match"], http, tokens


async def test_a_move_behind_the_match_is_stale_and_a_committed_id_keeps_its_ack(server):
    match, http, tokens = await seated(server)
    url = server.url.replace("http", "ws") + "/ws"
    try:
        async with websockets.connect(url, subprotocols=["teahouse.v1.json"]) as wa, \
                websockets.connect(url, subprotocols=["teahouse.v1.json"]) as wb:
            seats = [Seat(wa), Seat(wb)]
            for seat, token in zip(seats, tokens, strict=True):
                await seat.send({"type": "hello"})
                await seat.until("welcome")
                await seat.send({"type": "join", "match": match, "token": token})
                await seat.until("presence")
            a, b = seats
            assert a.seq == b.seq == 1 and a.doc["status"]["to_act"] == [0]

            first = await a.first_legal(match)
            for at in ("1", True, -1, 1.5):  # `at` is a seq: an integer >= 0 (4.5)
                await a.send({"type": "move", "match": match, "id": "a-1", "at": at, "command": first})
                err = (await a.until("error"))[-1]
                assert (err["code"], err["ref"]) == ("bad_field", "a-1"), at

            # seat 0 moves, saying the seq it decided on: committed as seq 2

            await a.send({"type": "move", "match": match, "id": "a-1", "at": 1, "command": first})
            ack = (await a.until("ack"))[-1]
            assert ack["seq"] == 2
            await b.until("patch")
            assert (await http.get(f"/api/matches/{match}")).json()["seq"] == 2

            # seat 1 decides at seq 2 but says seq 1 (it acted on an old position): refused
            second = await b.first_legal(match)
            for at in (1, 0, 99):
                await b.send({"type": "move", "match": match, "id": f"b-{at}", "at": at, "command": second})
                await b.send({"type": "ping", "nonce": at})
                got = await b.until("pong")
                assert [m["type"] for m in got] == ["error", "pong"], "no patch: nothing was committed"
                err = got[0]
                assert (err["code"], err["ref"], err["seq"], err["match"]) == ("stale", f"b-{at}", 2, match)
                assert (await http.get(f"/api/matches/{match}")).json()["seq"] == 2, "the log is unchanged"

            # seat 0 resends its committed move with an old (or no longer true) at: the same ack
            for at in (0, 1, 5):
                await a.send({"type": "move", "match": match, "id": "a-1", "at": at, "command": first})
                assert (await a.until("ack"))[-1] == ack

            # the same command decided at the match's seq goes through; so does one without at
            await b.send({"type": "move", "match": match, "id": "b-ok", "at": 2, "command": second})
            assert (await b.until("ack"))[-1]["seq"] == 3
            await a.until("patch")
            third = await a.first_legal(match)
            await a.send({"type": "move", "match": match, "id": "a-2", "command": third})
            assert (await a.until("ack"))[-1]["seq"] == 4
            assert (await http.get(f"/api/matches/{match}")).json()["seq"] == 4
    finally:
        await http.aclose()



async def test_at_across_two_nodes_on_one_redis(redis_url, tmp_path):
    """A node that has not yet read the latest commit from the stream catches up before it
    judges `at`: a move decided at the match's seq is committed, one behind it is stale,
    whichever node it reaches."""
    nodes = [ServerProcess(redis_url, tmp_path / f"{name}.log").start() for name in "ab"]
    http = httpx.AsyncClient(base_url=nodes[0].url, timeout=10)
    try:
        created = (await http.post("/api/matches", json={"game": "pixies", "players": 2,
                                                         "options": {"first_player": 0}})).json()
        match = created["match"]
        tokens = [(await http.post(f"/api/matches/{match}/seats", json={})).json()["token"] for _ in range(2)]
        urls = [n.url.replace("http", "ws") + "/ws" for n in nodes]
        # seat s plays on node s; a second connection of each seat watches from the other node
        async with websockets.connect(urls[0], subprotocols=["teahouse.v1.json"]) as w0, \
                websockets.connect(urls[1], subprotocols=["teahouse.v1.json"]) as w1, \
                websockets.connect(urls[1], subprotocols=["teahouse.v1.json"]) as w0_on_b, \
                websockets.connect(urls[0], subprotocols=["teahouse.v1.json"]) as w1_on_a:
            a0, b1, b0, a1 = Seat(w0), Seat(w1), Seat(w0_on_b), Seat(w1_on_a)
            for seat, token in ((a0, tokens[0]), (b1, tokens[1]), (b0, tokens[0]), (a1, tokens[1])):
                await seat.send({"type": "hello"})
                await seat.until("welcome")
                await seat.send({"type": "join", "match": match, "token": token})
                await seat.until("presence")
            assert a0.seq == b1.seq == 1

            # seat 0 commits 2 on node a
            await a0.send({"type": "move", "match": match, "id": "a-1", "at": 1,
                           "command": await a0.first_legal(match)})
            assert (await a0.until("ack"))[-1]["seq"] == 2
            # at once, seat 1 sends on node b a move decided at seq 1, whether or not node b has
            # read commit 2 yet (at seq 1 it is not seat 1's turn: the rules would refuse it
            # there): the answer is stale, with the match's seq
            await b1.send({"type": "move", "match": match, "id": "b-old", "at": 1,
                           "command": {"type": "take_card", "card": "B07"}})
            err = (await b1.until("error"))[-1]
            assert (err["code"], err["seq"]) == ("stale", 2), err

            # seat 1 commits 3 on node b; at once, seat 0 moves on node a saying seq 3, which
            # node a may not have read yet: it catches up, then commits the move as 4
            await a1.until("patch")
            second = await a1.first_legal(match)
            await b1.send({"type": "move", "match": match, "id": "b-1", "at": 2, "command": second})
            assert (await b1.until("ack"))[-1]["seq"] == 3
            await b0.until("patch")
            third = await b0.first_legal(match)  # seat 0's legal moves at seq 3, from node b
            await a0.send({"type": "move", "match": match, "id": "a-2", "at": 3, "command": third})
            assert (await a0.until("ack"))[-1]["seq"] == 4
            assert (await http.get(f"/api/matches/{match}")).json()["seq"] == 4
    finally:
        await http.aclose()
        for node in nodes:
            node.stop()
