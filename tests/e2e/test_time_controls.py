"""Time controls (SPEC 2.4, 3.10, 5.9): a Fischer clock plays for the seat whose bank runs out
and gives it its increment; its banks travel in `clock`, are the same after the server restarts
(a fold of the log's times, never stored apart) and on either store; days per move is a per-move
clock of that many days; `turn_seconds` alone keeps meaning what it meant."""

from __future__ import annotations

import time

import httpx
from teahouse_client import TeahouseClient

from tests.e2e.helpers import close_all
from tests.e2e.test_spectator_delay import problem

FISCHER = {"type": "fischer", "bank_seconds": 2, "increment_seconds": 1}


async def test_a_fischer_clock_plays_for_a_spent_bank_and_its_banks_survive_a_restart(server):
    client = TeahouseClient(server.url)
    made = await client.create_match("pixies", 2, options={"first_player": 0}, absent="first", time_control=FISCHER)
    assert made["time_control"] == FISCHER and made["turn_seconds"] is None
    mid = made["match"]
    seats = [await client.take_seat(mid, seat=s) for s in (0, 1)]
    spec = await client.connect().open()
    view = await spec.spectate(mid)
    await view.wait_for(lambda g: g.seq >= 1 and g.deadline is not None, timeout=10)
    assert view.banks == [2000, 2000]
    assert 0 < view.deadline - time.time() * 1000 <= 2100  # seat 0's whole bank
    # nobody moves: seat 0's bank runs out, the clock plays its first legal move, and it gets its
    # increment on a bank spent to zero
    await view.wait_for(lambda g: g.seq >= 2 and g.banks is not None and g.banks[0] != 2000, timeout=10)
    assert view.banks == [1000, 2000]
    seq = view.seq
    await close_all(spec)
    await client.aclose()

    server.stop()
    server.start()
    client = TeahouseClient(server.url)
    seat = await client.connect().open()
    again = await seat.join(mid, seats[1]["token"])
    await again.wait_for(lambda g: g.banks is not None, timeout=10)
    if again.seq == seq:
        assert again.banks == [1000, 2000], "the banks folded again from the log after the restart"
    else:
        assert again.banks[0] == 1000  # (seat 1's bank ran out meanwhile: charged and played)
    await close_all(seat)
    await client.aclose()


async def test_days_per_move_and_turn_seconds_alone(server):
    async with httpx.AsyncClient(base_url=server.url) as http:
        days = (await http.post("/api/matches", json={"game": "pixies", "players": 2,
                                                      "time_control": {"type": "correspondence", "days": 3}})).json()
        assert days["time_control"] == {"type": "correspondence", "days": 3} and days["turn_seconds"] == 3 * 86400
        old = (await http.post("/api/matches", json={"game": "pixies", "players": 2, "turn_seconds": 30})).json()
        assert old["turn_seconds"] == 30 and old["time_control"] == {"type": "per_move", "seconds": 30}
        none = (await http.post("/api/matches", json={"game": "pixies", "players": 2})).json()
        assert none["turn_seconds"] is None and none["time_control"] is None
        problem(await http.post("/api/matches", json={"game": "pixies", "players": 2, "turn_seconds": 30,
                                                      "time_control": FISCHER}), 400, "bad_field")
        problem(await http.post("/api/matches", json={"game": "pixies", "players": 2,
                                                      "time_control": {"type": "fischer", "bank_seconds": 0,
                                                                       "increment_seconds": 1}}), 400, "bad_field")
    client = TeahouseClient(server.url)
    mid = days["match"]
    for s in (0, 1):
        await client.take_seat(mid, seat=s)
    spec = await client.connect().open()
    view = await spec.spectate(mid)
    await view.wait_for(lambda g: g.deadline is not None, timeout=10)
    left = view.deadline - time.time() * 1000
    assert 3 * 86400_000 - 60_000 < left <= 3 * 86400_000 and view.banks is None
    await close_all(spec)
    await client.aclose()
