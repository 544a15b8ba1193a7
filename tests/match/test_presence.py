"""service.match.presence (one match's presence) against SPEC 3.8: which seats have a connection
and how many spectators, over every node; sent when it changes, never twice in a row the same,
a burst of changes coalesced; a joining connection always gets the current one."""

from __future__ import annotations

import asyncio

from service.games import get_game
from service.match.fanout import Fanout
from service.match.presence import PRESENCE_COALESCE_S, MatchPresence
from service.match.projection import Projection
from tests.match.conftest import Inbox


def presence(node: str = "here", players: int = 3) -> tuple[MatchPresence, Fanout]:
    fanout = Fanout()
    return MatchPresence("m1", node, players, fanout, Projection(get_game("pixies"), "m1")), fanout


async def coalesced() -> None:
    await asyncio.sleep(PRESENCE_COALESCE_S * 3)


async def test_a_connection_is_told_the_current_presence():
    p, fanout = presence()
    seat, spectator = Inbox(), Inbox()
    fanout.add(seat, 1)
    fanout.add(spectator, None)
    p.tell(seat, "join")
    assert seat.messages == [{"type": "presence", "match": "m1", "seats": [False, True, False], "spectators": 1,
                              "reply": "join"}]


async def test_the_answer_presence_names_its_request_and_ref_and_a_broadcast_names_none():
    # SPEC 3.1 and 5.7: the answer's presence carries `reply` (and the request's `ref`); a
    # broadcast one never carries `reply`.
    p, fanout = presence()
    seat, other = Inbox(), Inbox()
    fanout.add(seat, 0)
    p.tell(seat, "resync", "r-7")
    assert seat.messages[-1]["reply"] == "resync" and seat.messages[-1]["ref"] == "r-7"
    fanout.add(other, None)
    p.tell(other, "spectate")
    assert other.messages[-1]["reply"] == "spectate" and "ref" not in other.messages[-1]
    p.changed()
    await coalesced()
    broadcast = seat.messages[-1]
    assert broadcast["spectators"] == 1 and "reply" not in broadcast and "ref" not in broadcast


async def test_a_burst_of_changes_is_one_presence_and_the_same_one_is_not_sent_again():
    p, fanout = presence()
    first = Inbox()
    fanout.add(first, 0)
    p.tell(first, "join")
    for _ in range(5):  # five spectators come at once
        w = Inbox()
        fanout.add(w, None)
        p.tell(w, "join")
        p.changed()
    await coalesced()
    assert [m["spectators"] for m in first.of("presence")] == [0, 5]
    p.changed()  # nothing changed for anyone
    await coalesced()
    assert len(first.of("presence")) == 2


async def test_a_connection_that_left_is_told_nothing_and_the_others_see_it_go():
    p, fanout = presence()
    stays, goes = Inbox(), Inbox()
    for w, audience in ((stays, 0), (goes, 2)):
        fanout.add(w, audience)
        p.tell(w, "join")
    fanout.remove(goes)
    p.forget(goes)
    await coalesced()
    assert stays.of("presence")[-1]["seats"] == [True, False, False]
    assert goes.of("presence")[-1]["seats"] == [True, False, True], "told nothing after it left"


async def test_other_nodes_counts_are_merged_and_this_nodes_own_entry_is_not_counted_twice():
    p, fanout = presence()
    w = Inbox()
    fanout.add(w, None)
    p.tell(w, "join")
    p.remote({"here": ([0, 0, 0], 1), "elsewhere": ([1, 0, 0], 3)})
    assert w.messages[-1] == {"type": "presence", "match": "m1", "seats": [True, False, False], "spectators": 4}, \
        "a broadcast presence carries no reply"
    p.remote({"here": ([0, 0, 0], 1), "elsewhere": ([1, 0, 0], 3)})
    assert len(w.of("presence")) == 2, "the same presence is not sent twice in a row"
    p.closed = True
    p.remote({})
    assert len(w.of("presence")) == 2, "a closed match tells nobody"
