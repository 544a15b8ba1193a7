"""The spectator options and the public seq (SPEC 2.4), as pure functions of a match's log."""

from __future__ import annotations

import pytest

from service.match.spectators import SpectatorOptionError, parse_delay, parse_mode, public_seq
from service.store import Commit, MatchRecord


def rec(delay, finished=False) -> MatchRecord:
    return MatchRecord(id="m", game="pixies", players=2, options={}, listed=True, seed="s", seed_sha256="h",
                       created=0, spectator_delay=delay, finished=finished)


def log(*ts: int) -> list[Commit]:
    return [Commit(seq=i, seat=None, command={"type": "x"}, events=[], ts=t) for i, t in enumerate(ts, start=1)]


def test_the_bounds_of_the_options():
    assert parse_delay(None) is None and parse_mode(None) == "public"
    assert parse_delay({"commits": 1}) == {"commits": 1} and parse_delay({"commits": 1000}) == {"commits": 1000}
    assert parse_delay({"seconds": 3600}) == {"seconds": 3600}
    for bad in ({"commits": 0}, {"commits": 1001}, {"seconds": 3601}, {"seconds": 1.5}, {"commits": True},
                {"commits": 1, "seconds": 1}, {}, {"turns": 2}, [1], "3"):
        with pytest.raises(SpectatorOptionError):
            parse_delay(bad)
    for mode in ("public", "link", "off"):
        assert parse_mode(mode) == mode
    with pytest.raises(SpectatorOptionError):
        parse_mode("friends")


def test_a_delay_in_commits_is_the_latest_seq_minus_n():
    assert public_seq(rec({"commits": 3}), [], 10) == 7
    assert public_seq(rec({"commits": 3}), [], 2) == 0
    assert public_seq(rec({"commits": 3}, finished=True), [], 10) == 10  # the delay ends with the match
    assert public_seq(rec(None), [], 10) == 10


def test_a_delay_in_seconds_stops_at_the_first_commit_too_young():
    # every commit from 1 to s is at least T old: a commit made early but after a young one waits
    commits = log(1000, 2000, 9000, 3000)
    assert public_seq(rec({"seconds": 5}), commits, 4, now=7000) == 2
    assert public_seq(rec({"seconds": 5}), commits, 4, now=14000) == 4
    assert public_seq(rec({"seconds": 5}), commits, 4, now=6000) == 1
    assert public_seq(rec({"seconds": 5}), commits, 4, now=5999) == 0
