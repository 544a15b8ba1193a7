"""Time controls as data (SPEC 2.4, 3.10): the three kinds, their bounds, the compatible
`turn_seconds`, and the Fischer banks folded from a log's (seat, time) pairs, checked against
banks worked out by hand."""

from __future__ import annotations

import pytest

from service.match import time_control as tc

FISCHER = {"type": "fischer", "bank_seconds": 60, "increment_seconds": 5}


def test_turn_seconds_alone_is_a_per_move_control_and_both_must_agree():
    assert tc.parse(None, None) is None
    assert tc.parse(None, 30) == {"type": "per_move", "seconds": 30}
    assert tc.parse({"type": "per_move", "seconds": 30}, 30) == {"type": "per_move", "seconds": 30}
    with pytest.raises(tc.TimeControlError, match="different"):
        tc.parse({"type": "per_move", "seconds": 30}, 31)
    with pytest.raises(tc.TimeControlError, match="different"):
        tc.parse(FISCHER, 60)


@pytest.mark.parametrize("raw", [
    "fischer", {"type": "blitz"}, {"type": "per_move"}, {"type": "per_move", "seconds": 0},
    {"type": "per_move", "seconds": True}, {"type": "correspondence", "days": 15},
    {"type": "correspondence", "days": 3, "seconds": 4},
    {"type": "fischer", "bank_seconds": 60}, {"type": "fischer", "bank_seconds": 0, "increment_seconds": 0},
    {"type": "fischer", "bank_seconds": 60, "increment_seconds": -1},
])
def test_malformed_controls_are_refused_with_a_sentence(raw):
    with pytest.raises(tc.TimeControlError) as err:
        tc.parse(raw, None)
    assert str(err.value).startswith(("time_control", "a "))


def test_seconds_per_move_of_each_kind():
    assert tc.per_move_seconds(tc.parse({"type": "correspondence", "days": 3}, None)) == 3 * 86400
    assert tc.per_move_seconds(tc.parse({"type": "per_move", "seconds": 45}, None)) == 45
    assert tc.per_move_seconds(tc.parse(FISCHER, None)) is None and tc.per_move_seconds(None) is None


def test_fischer_banks_by_hand():
    # start at t=1 s (the system's: nobody's time); seat 0 moves after 10 s: 60 - 10 + 5 = 55;
    # seat 1 after 60 s: 60 - 60 + 5 = 5; seat 0 after 70 s, more than its 55: 0 + 5 = 5;
    # seat 1 after 2 s: 5 - 2 + 5 = 8
    log = [(None, 1_000), (0, 11_000), (1, 71_000), (0, 141_000), (1, 143_000)]
    banks, last = tc.fold(FISCHER, 2, log)
    assert banks == [5_000, 8_000] and last == 143_000
    # one step at a time gives the same
    step, since = tc.initial_banks(FISCHER, 2), 1_000
    for seat, ts in log[1:]:
        step, since = tc.charge(FISCHER, step, since, seat, ts), ts
    assert step == banks
    assert tc.charge(FISCHER, banks, 143_000, None, 150_000) == banks, "a system commit is nobody's time"


def test_a_forks_copied_commits_charge_nobody():
    from service.store import Commit

    def commit(seq: int, seat: int | None, ts: int) -> Commit:
        return Commit(seq=seq, seat=seat, command={"type": "x"}, events=[], ts=ts)

    # the origin's seats took 50 s and 40 s, a day ago; the fork (from seq 3) starts with its
    # redeal, and seat 1 then moves after 4 s: 60 - 4 + 5
    log = [commit(1, None, 1_000), commit(2, 0, 51_000), commit(3, 1, 91_000),
           commit(4, None, 86_400_000), commit(5, 1, 86_404_000)]
    assert tc.fold(FISCHER, 2, tc.played_here({"match": "m", "seq": 3}, log)) == ([60_000, 61_000], 86_404_000)
    # the origin itself charges all of it: 60 - 50 + 5 and 60 - 40 + 5
    assert tc.fold(FISCHER, 2, tc.played_here(None, log[:3]))[0] == [15_000, 25_000]
