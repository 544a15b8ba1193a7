"""service.match.clock against SPEC 3.10: the deadline after every commit, the last `clock` when
the match ends, and the move played for a seat whose time ran out."""

from __future__ import annotations

import asyncio

from service.games import fold, get_game
from service.match.lobby import Lobby
from tests.match.conftest import Inbox, started

PIXIES = get_game("pixies")


async def play_one(lobby: Lobby, mid: str, k: int) -> None:
    rt = await lobby.runtime(mid)
    seat = PIXIES.status(rt.state)["to_act"][0]
    await rt.submit(seat, PIXIES.legal_moves(rt.state, seat)[0], f"m{k}")


async def test_every_commit_sets_the_deadline_to_its_time_plus_turn_seconds(lobby, store):
    mid = await started(lobby, turn_seconds=600)
    rt = await lobby.runtime(mid)
    watcher = Inbox()
    rt.attach(watcher, None, None)
    for k in range(3):
        await play_one(lobby, mid, k)
    log = {c.seq: c for c in await store.read(mid)}
    clocks = watcher.of("clock")
    # the joining connection's current clock (3.3), then one after each commit's patch
    assert [c["seq"] for c in clocks] == [1, 2, 3, 4]
    assert all(c["deadline"] == log[c["seq"]].ts + 600_000 for c in clocks)
    # the answer is view, clock, then presence, which ends it (3.1, 3.3)
    assert watcher.types()[:3] == ["view", "clock", "presence"]
    assert watcher.types()[3:] == ["patch", "clock"] * 3


async def test_the_end_of_the_match_sends_a_last_clock_with_no_deadline(lobby, store):
    mid = await started(lobby, turn_seconds=600)
    rt = await lobby.runtime(mid)
    watcher = Inbox()
    rt.attach(watcher, 0, None)
    k = 0
    while not rt.record.finished:
        await play_one(lobby, mid, k)
        k += 1
    assert watcher.types()[-3:] == ["patch", "finished", "clock"]
    assert watcher.messages[-1]["deadline"] is None and watcher.messages[-1]["seq"] == rt.seq
    late = Inbox()
    rt.attach(late, None, None)
    assert "clock" not in late.types(), "no clock runs: a joining connection is told none"


async def test_a_match_without_a_clock_never_sends_one(lobby):
    mid = await started(lobby)
    rt = await lobby.runtime(mid)
    watcher = Inbox()
    rt.attach(watcher, 0, None)
    for k in range(3):
        await play_one(lobby, mid, k)
    assert "clock" not in watcher.types() and watcher.of("patch")


async def test_a_deadline_that_passes_plays_the_first_legal_move_for_the_seat(lobby, store):
    mid = await started(lobby, turn_seconds=1, absent="first")
    rt = await lobby.runtime(mid)
    watcher = Inbox()
    rt.attach(watcher, None, None)
    for _ in range(40):
        if rt.seq >= 2:
            break
        await asyncio.sleep(0.1)
    log = await store.read(mid)
    assert len(log) >= 2, "the clock played once its second was up"
    record = await store.get_match(mid)
    before = fold(PIXIES, [e for c in log[:1] for e in c.events], PIXIES.initial(record.options, 2))
    seat = PIXIES.status(before)["to_act"][0]
    timed_out = log[1]
    assert (timed_out.seat, timed_out.move_id) == (seat, f"sys:clock:1:{seat}")
    assert timed_out.command == PIXIES.legal_moves(before, seat)[0]
    assert timed_out.ts >= log[0].ts + 1000
    patch = next(m for m in watcher.of("patch") if m["seq"] == 2)
    assert patch["said"][0].startswith("Time ran out for ")
