"""What a commit implies for webhooks (SPEC 2.19), on statuses and records made here: `your_turn`
when a seat becomes one to act, `finished` once, `clock_low` at a tenth of the allowance, the
delivery id's recipe, and nothing for what happened before a hook existed."""

from __future__ import annotations

import hashlib

from service.match import notices
from service.store import Commit, HookRecord, MatchRecord, SeatRecord


def _record(players: list[str | None], **extra) -> MatchRecord:
    return MatchRecord(id="M1", game="pixies", players=len(players), options={}, listed=True, seed="s",
                       seed_sha256="h", created=0,
                       seats=[SeatRecord(seat=i, taken=True, player=p) for i, p in enumerate(players)], **extra)


def _hook(owner: str, events: list[str], created: int = 0, hid: str = "wh_1") -> HookRecord:
    return HookRecord(id=hid, owner=owner, url="https://x.example/h", events=events, secret="whsec_x",
                      created=created, site="https://play.example")


def _status(to_act: list[int], finished: bool = False, result: dict | None = None) -> dict:
    return {"phase": "play", "to_act": to_act, "finished": finished, "result": result}


def _commit(seq: int, ts: int = 1000, seat: int | None = 0) -> Commit:
    return Commit(seq=seq, seat=seat, command={"type": "x"}, events=[], ts=ts)


def test_your_turn_when_a_seat_becomes_one_to_act_and_not_while_it_stays():
    rec = _record(["alice", "bob"])
    hooks = {"alice": [_hook("alice", ["your_turn"])]}
    start = notices.implied(rec, hooks, None, _commit(1, seat=None), _status([0]), None)
    assert [(d.event, d.owner, d.seq, d.payload["seat"]) for d in start] == [("your_turn", "alice", 1, 0)]
    assert notices.implied(rec, hooks, _status([0]), _commit(2), _status([0]), None) == []
    assert notices.implied(rec, hooks, _status([0]), _commit(3), _status([1]), None) == []  # bob has no hook
    back = notices.implied(rec, hooks, _status([1]), _commit(4, seat=1), _status([0, 1]), None)
    assert [d.seq for d in back] == [4]


def test_finished_once_with_the_result_and_the_players_rating():
    rec = _record(["alice", None])
    hooks = {"alice": [_hook("alice", ["your_turn", "finished"])]}
    result = {"scores": [3, 1], "ranking": [0, 1], "winners": [0]}
    ratings = [{"player": "alice", "before": 1500, "after": 1662.3}, {"player": "bot:strength-0"}]
    done = notices.implied(rec, hooks, _status([0]), _commit(9), _status([], True, result), ratings)
    assert [d.event for d in done] == ["finished"]
    assert done[0].payload["result"] == result and done[0].payload["rating"] == ratings[0]
    assert notices.implied(rec, hooks, _status([], True, result), _commit(10), _status([], True, result), None) == []


def test_the_payload_and_the_delivery_id_follow_the_spec():
    rec = _record(["alice", "bob"])
    hooks = {"alice": [_hook("alice", ["your_turn"], hid="wh_A"), _hook("alice", ["your_turn"], hid="wh_B")]}
    two = notices.implied(rec, hooks, None, _commit(1, ts=4242), _status([0]), None)
    assert len(two) == 2 and two[0].id != two[1].id
    want = "dlv_" + hashlib.sha256(b"M1\n1\nalice\nyour_turn\nwh_A").hexdigest()[:32]
    assert two[0].id == want
    assert two[0].payload == {"id": want, "event": "your_turn", "match": "M1", "game": "pixies", "seat": 0, "seq": 1,
                              "player": "alice", "ts": 4242, "url": "https://play.example/web/#/match/M1"}


def test_a_hook_hears_nothing_from_before_it_was_registered():
    rec = _record(["alice", "bob"])
    hooks = {"alice": [_hook("alice", ["your_turn"], created=5000)]}
    assert notices.implied(rec, hooks, None, _commit(1, ts=4999), _status([0]), None) == []
    assert len(notices.implied(rec, hooks, None, _commit(1, ts=5000), _status([0]), None)) == 1


def test_clock_low_at_a_tenth_of_the_allowance():
    per_move = _record(["alice", "bob"], turn_seconds=30, time_control={"type": "per_move", "seconds": 30})
    assert notices.low_times(per_move, _status([1]), 100_000, None) == {1: 100_000 + 27_000}
    fischer = _record(["alice", "bob"], time_control={"type": "fischer", "bank_seconds": 60, "increment_seconds": 5})
    # a tenth of the starting bank (6 s) before the seat's own bank runs out
    assert notices.low_times(fischer, _status([0]), 1_000, [20_000, 60_000]) == {0: 1_000 + 20_000 - 6_000}
    assert notices.low_times(fischer, _status([0]), 1_000, [3_000, 60_000]) == {0: 1_000 - 3_000}  # low already
    assert notices.low_times(_record(["a", "b"]), _status([0]), 1_000, None) == {}
    assert notices.low_times(per_move, _status([], True), 1_000, None) == {}


def test_an_apps_own_hook_hears_of_its_users_and_not_of_others():
    rec = _record(["club:u-1", "alice", "bot:strength-2"])
    hooks = {"club:*": [_hook("club:*", ["your_turn"], hid="wh_app")]}
    got = notices.implied(rec, hooks, None, _commit(1), _status([0, 1, 2]), None)
    assert [(d.owner, d.payload["player"], d.payload["seat"]) for d in got] == [("club:*", "club:u-1", 0)]
    assert notices.owners_of(["club:u-1", "alice", "bot:strength-2", None]) == {"club:u-1", "club:*", "alice",
                                                                                "bot:strength-2"}
