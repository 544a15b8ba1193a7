"""The turn clock: a seat that does not move in time has a move played for it, once (its first
legal move with `absent: first`; a bot's by default); the deadline is announced to everyone
and stops when the match ends."""

from __future__ import annotations

import asyncio
import random
import time

import httpx
from teahouse_client import TeahouseClient

from service.games import get_game
from tests.e2e.helpers import close_all, play_resilient, seat_players, states_by_seq


async def test_the_clock_plays_for_seats_that_wait(sqlite_server):
    client = TeahouseClient(sqlite_server.url)
    match = await client.create_match("pixies", 2, turn_seconds=1, absent="first")
    assert match["turn_seconds"] == 1 and match["absent"] == "first"
    mid = match["match"]
    spec = await client.connect().open()
    view = await spec.spectate(mid)
    seats = [await client.take_seat(mid) for _ in range(2)]
    await view.wait_for(lambda g: g.seq >= 1 and g.deadline is not None, timeout=10)
    assert 0 < view.deadline - time.time() * 1000 <= 1100
    # nobody is connected to play: the clock moves for them, one seq at a time
    await view.wait_for(lambda g: g.seq >= 3, timeout=15)

    conns = [await client.connect().open() for _ in range(2)]
    for c, s in zip(conns, seats, strict=True):
        await c.join(mid, s["token"])
    await asyncio.gather(*[play_resilient(c, mid, random.Random(i)) for i, c in enumerate(conns)])
    await view.wait_for(lambda g: g.over and g.deadline is None, timeout=10)

    log = await client.log(mid)
    clocked = [c for c in log["commits"] if (c["move_id"] or "").startswith("sys:clock:")]
    assert len(clocked) >= 2
    states = states_by_seq("pixies", 2, {}, log["commits"])
    g = get_game("pixies")
    for c in clocked:
        _, _, seq, seat = c["move_id"].split(":")
        assert c["seq"] == int(seq) + 1 and c["seat"] == int(seat)
        assert c["command"] == g.legal_moves(states[int(seq)], int(seat))[0]
        # SPEC 3.10/3.14: everyone reads whose time ran out and what was played for them.
        assert c["said"][0].startswith(f"Time ran out for Seat {seat}; played for them: Seat {seat} takes "), c["said"]
    assert len({c["seq"] for c in clocked}) == len(clocked), "each timeout commits once"
    await close_all(spec, *conns)
    await client.aclose()


async def test_no_clock_unless_asked(sqlite_server):
    client = TeahouseClient(sqlite_server.url)
    mid = (await client.create_match("pixies", 2))["match"]
    seats, conns, views = await seat_players(client, mid, 2, record=False)
    await asyncio.sleep(1.5)
    assert views[0].deadline is None and (await client.match(mid))["seq"] == 1
    await close_all(*conns)
    await client.aclose()


def test_turn_seconds_is_validated(sqlite_server):
    for bad in (0, -5, "10", True, 10**9):
        r = httpx.post(sqlite_server.url + "/api/matches", json={"game": "pixies", "players": 2, "turn_seconds": bad})
        assert r.status_code == 400 and r.json()["error"]["code"] == "bad_field"
