"""service/http/summary.py against protocol/SPEC.md 2.1, the match summary: its state, and what it
keeps back until the match is finished (the values of options that fix hidden chance, the seeds,
the result)."""

from __future__ import annotations

import pytest

from service.http.summary import MATCH_STATES, summary
from service.store import MatchRecord, SeatRecord

DECK = ["c1", "c2", "c3"]  # China's secret options: deck_order and reshuffle_order


def record(taken: int = 0, **kw) -> MatchRecord:
    rec = MatchRecord(id="abcdefghijkl", game="china", players=3, listed=True, seed="s" * 64, seed_sha256="h" * 64,
                      created=1_700_000_000_000, bot_seed="b" * 64, **kw)
    rec.seats = [SeatRecord(seat=i, taken=i < taken, name="ann" if i < taken else None) for i in range(3)]
    return rec


@pytest.mark.parametrize(("taken", "finished", "diverged", "state"), [
    (0, False, None, "open"), (2, False, None, "open"), (3, False, None, "live"), (3, True, None, "finished"),
    (3, False, {"seen": 9}, "diverged"), (3, True, {"seen": 9}, "diverged")])
def test_the_state(taken, finished, diverged, state):
    rec = record(taken, options={}, finished=finished, diverged=diverged)
    assert summary(rec)["state"] == state
    assert state in MATCH_STATES


def test_open_or_live_it_names_the_options_that_fix_chance_but_keeps_their_values_and_the_seeds():
    rec = record(3, options={"reshuffle_order": [2, 1], "deck_order": DECK})
    out = summary(rec, seq=4)
    assert out["options"] == {} and out["fixed_chance"] == ["deck_order", "reshuffle_order"]
    assert out["seed_sha256"] == "h" * 64 and out["seq"] == 4
    for hidden in ("seed", "bot_seed", "result"):
        assert hidden not in out
    assert "c2" not in repr(out) and "s" * 64 not in repr(out) and "b" * 64 not in repr(out)


def test_finished_it_shows_the_options_the_seeds_and_the_result():
    result = {"scores": [3, 1, 2], "ranking": [0, 2, 1], "winners": [0]}
    rec = record(3, options={"deck_order": DECK}, finished=True, result=result)
    out = summary(rec)
    assert out["options"] == {"deck_order": DECK} and out["fixed_chance"] == ["deck_order"]
    assert (out["seed"], out["bot_seed"], out["result"]) == ("s" * 64, "b" * 64, result)
    assert "seq" not in out  # the rows of GET /api/matches have none


def test_the_seats_and_the_bots():
    rec = record(1, options={}, bots=[None, 2, None])
    out = summary(rec)
    assert out["seats"] == [{"seat": 0, "taken": True, "name": "ann"}, {"seat": 1, "taken": False, "name": None},
                            {"seat": 2, "taken": False, "name": None}]
    assert out["bots"] == [{"seat": 1, "strength": 2}]
    assert summary(record(0, options={}))["bots"] == []


def test_a_fork_names_its_origin_and_whether_its_hands_are_open():
    origin = {"match": "parentmatch1", "seq": 0, "seed": "p" * 64, "exact": False}
    stacked = summary(record(options={"deck_order": DECK}, forked_from=origin))
    assert stacked["forked_from"] == origin and stacked["open_hand"] is True
    assert summary(record(options={}, forked_from=origin))["open_hand"] is False
    assert summary(record(options={}, forked_from={**origin, "seq": 5, "exact": True}))["open_hand"] is True
    assert summary(record(options={}))["forked_from"] is None and summary(record(options={}))["open_hand"] is False
