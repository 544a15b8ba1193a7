"""service.match.seat_bots against SPEC 2.4 ("Bots at the table"): a bot seat to act gets its
move committed as that seat with a move id naming the seq it saw; a match of bots plays itself
to the end; a bot's move chosen for a position the match has left is not committed."""

from __future__ import annotations

import asyncio

from service.games import get_game
from service.match.lobby import Lobby
from tests.match.conftest import Inbox, started

PIXIES = get_game("pixies")


async def until(predicate, timeout: float = 30.0) -> None:
    for _ in range(int(timeout / 0.05)):
        if predicate():
            return
        await asyncio.sleep(0.05)
    raise AssertionError("not reached in time")


async def test_a_match_of_bots_plays_itself_to_the_end_each_move_marked_for_its_seat(lobby, store):
    mid = await started(lobby, players=2, bots=[{"seat": 0, "strength": 0}, {"seat": 1, "strength": 1}])
    rt = await lobby.runtime(mid)
    await until(lambda: rt.record.finished)
    log = await store.read(mid)
    assert log[0].move_id == "sys:start"
    for before, c in zip(log, log[1:], strict=False):
        assert c.move_id == f"sys:bot:{before.seq}:{c.seat}", c.move_id
    assert rt.bots.due() == [], "nothing is due once the match is over"
    await until(lambda: not rt.bots.tasks)
    assert rt.idle, "no bot to move and nobody watching: the node may drop the match"


async def test_only_the_bot_seats_are_due_and_a_human_seat_waits(lobby, store):
    mid = await started(lobby, players=2, bots=[{"seat": 1, "strength": 0}], options={"first_player": 0})
    rt = await lobby.runtime(mid)
    watcher = Inbox()
    rt.attach(watcher, 0, None)
    assert PIXIES.status(rt.state)["to_act"] == [0]
    assert rt.bots.due() == [] and rt.bots.tasks == []
    await rt.submit(0, PIXIES.legal_moves(rt.state, 0)[0], "human")
    await until(lambda: rt.seq >= 3)
    log = await store.read(mid)
    assert (log[2].seat, log[2].move_id) == (1, "sys:bot:2:1")
    assert [m["seq"] for m in watcher.of("patch")] == [2, 3], "the bot's move reached the watchers as a patch"


async def test_a_move_chosen_for_a_position_the_match_left_is_not_committed(lobby: Lobby, store):
    mid = await started(lobby, players=2, options={"first_player": 0})
    rt = await lobby.runtime(mid)
    stale = rt.bots._at
    assert stale is not None and stale.seq == 1
    await rt.submit(0, PIXIES.legal_moves(rt.state, 0)[0], "human")
    await rt.bots.play_for(stale, 0, 0, "bot")
    assert [c.move_id for c in await store.read(mid)] == ["sys:start", "human"]
