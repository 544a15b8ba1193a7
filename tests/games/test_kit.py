"""The kit the games' rules are written with: copy-on-write edits never reach the state they
came from, the evolver table applies each event to a copy, a Turn sees each event's effect at
once, and two modules cannot both claim one event."""

from __future__ import annotations

import random

import pytest

from service.games.kit import Turn, evolving, joined, own, own_item, without
from service.games.shapes import Event, State


def _on_counted(s: State, e: Event) -> None:
    own(s, "counts")[e["seat"]] += e["by"]


def _on_named(s: State, e: Event) -> None:
    own_item(s, "names", e["seat"])["name"] = e["name"]


APPLY = {"counted": _on_counted, "named": _on_named}
evolve = evolving(APPLY)


def state() -> State:
    return {"counts": [0, 0], "names": [{"name": "a"}, {"name": "b"}], "log": ["kept"]}


def test_own_edits_a_copy_put_in_place_of_the_original():
    before = state()
    s = dict(before)
    own(s, "counts")[1] = 5
    assert s["counts"] == [0, 5] and before["counts"] == [0, 0]
    assert s["log"] is before["log"]


def test_own_item_copies_the_part_and_the_entry_and_nothing_else():
    before = state()
    s = dict(before)
    own_item(s, "names", 0)["name"] = "z"
    assert s["names"] == [{"name": "z"}, {"name": "b"}]
    assert before["names"] == [{"name": "a"}, {"name": "b"}]
    assert s["names"][1] is before["names"][1]


def test_without_drops_the_first_occurrence_only_and_leaves_the_list_alone():
    hand = ["x", "y", "x"]
    assert without(hand, "x") == ["y", "x"]
    assert hand == ["x", "y", "x"]
    with pytest.raises(ValueError):
        without(hand, "q")


def test_evolving_applies_one_event_to_a_copy_and_shares_the_rest():
    before = state()
    after = evolve(before, {"type": "counted", "seat": 0, "by": 2})
    assert after["counts"] == [2, 0] and before == state()
    assert after["names"] is before["names"] and after["log"] is before["log"]
    with pytest.raises(KeyError):
        evolve(before, {"type": "unheard_of"})


def test_a_turn_applies_each_event_as_it_is_emitted_and_keeps_their_order():
    start = state()
    t = Turn(start, random.Random(1), evolve)
    t.emit({"type": "counted", "seat": 1, "by": 3})
    assert t.state["counts"] == [0, 3]
    t.emit({"type": "named", "seat": 1, "name": "c"})
    assert [e["type"] for e in t.events] == ["counted", "named"]
    assert t.state == {"counts": [0, 3], "names": [{"name": "a"}, {"name": "c"}], "log": ["kept"]}
    assert start == state()


def test_joined_tables_refuse_an_event_named_twice():
    assert joined({"counted": _on_counted}, {"named": _on_named}) == APPLY
    with pytest.raises(ValueError, match="counted"):
        joined(APPLY, {"counted": _on_counted})
