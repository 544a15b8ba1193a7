"""The log outlives rule changes: a match records the rules version it was created
under, snapshots carry theirs and are ignored when it differs, a log written by an older rules
version still folds, and a load from a snapshot never needs the log before it."""

from __future__ import annotations

import dataclasses
import sqlite3

import msgpack
import pytest
import redis

from service.games import fold, get_game
from service.games.playout import playout
from service.match.lobby import Lobby
from service.match.runtime import SNAPSHOT_EVERY
from service.store import MatchRecord, open_store
from service.store.base import EVENT_SCHEMA
from tests.service.test_runtime import play, started


@pytest.fixture(params=["sqlite", "redis"])
async def store_and_url(request, tmp_path):
    url = f"sqlite:{tmp_path / 'db'}" if request.param == "sqlite" else request.getfixturevalue("redis_url")
    s = open_store(url)
    yield s, url
    await s.close()


def drop_log_prefix(store, url: str, mid: str, upto: int) -> None:
    """Remove commits 1..upto from the store itself, so that reading them is impossible."""
    if url.startswith("redis"):
        r = redis.Redis.from_url(url)
        key = next(k for k in r.scan_iter(f"*{mid}*") if r.type(k) == b"stream")
        assert r.xdel(key, *[f"{s}-0" for s in range(1, upto + 1)]) == upto
        r.close()
    else:
        db = sqlite3.connect(store.path)
        with db:
            assert db.execute("DELETE FROM log WHERE match = ? AND seq <= ?", (mid, upto)).rowcount == upto
        db.close()


async def test_the_record_keeps_its_rules_version(store_and_url):
    store, _ = store_and_url
    lobby = Lobby(store)
    rec = await lobby.create("khan", 2)
    assert (await store.get_match(rec.id)).rules_version == get_game("khan").rules_version
    assert rec.event_schema == EVENT_SCHEMA
    # a record written before the field existed reads as version 1
    old = {k: v for k, v in dataclasses.asdict(rec).items() if k not in ("seats", "rules_version", "event_schema")}
    assert MatchRecord.unpack(msgpack.packb(old), []).rules_version == 1
    await lobby.close()


async def test_a_load_from_a_snapshot_never_reads_the_log_before_it(store_and_url):
    store, url = store_and_url
    lobby = Lobby(store)
    mid = await started(lobby, 3)
    await play(lobby, mid, SNAPSHOT_EVERY + 5)
    live = await lobby.runtime(mid)
    before = await store.read(mid, 0, SNAPSHOT_EVERY)
    retry = before[-3]
    await lobby.close()
    drop_log_prefix(store, url, mid, SNAPSHOT_EVERY)
    other = Lobby(store)
    again = await other.runtime(mid)
    assert again.seq == live.seq and again.state == live.state
    # a move id from before the snapshot still gets its ack, not a second decision
    assert await again.submit(retry.seat, retry.command, retry.move_id) == retry.seq
    await other.close()


async def test_a_snapshot_made_under_other_rules_is_ignored(store_and_url):
    store, _ = store_and_url
    lobby = Lobby(store)
    mid = await started(lobby, 2)
    await play(lobby, mid, 6)
    live = await lobby.runtime(mid)
    await lobby.close()
    g = get_game("pixies")
    bogus = {**g.initial({}, 2), "totals": [999, 999]}
    for snap in ({"rules_version": g.rules_version + 1, "event_schema": EVENT_SCHEMA, "state": bogus, "moves": []},
                 bogus):  # the format before snapshots said which rules made them
        await store.save_snapshot(mid, 6, snap)
        other = Lobby(store)
        again = await other.runtime(mid)
        assert again.seq == live.seq and again.state == live.state, "the log is folded, not the snapshot"
        await other.close()


def test_a_log_written_by_an_older_rules_version_still_folds():
    """An engine whose version 2 renamed an event keeps folding version-1 logs via its upcaster."""
    v1 = get_game("pixies")
    steps = list(playout(v1, 2, "old-rules"))
    old_log = [e for s in steps for e in s.events]
    final_v1 = steps[-1].after

    def evolve_v2(state, event):
        if event["type"] == "game_started":
            raise AssertionError("version 2 no longer knows game_started")
        if event["type"] == "match_opened":
            event = {**event, "type": "game_started"}
        return v1.evolve(state, event)

    v2 = dataclasses.replace(v1, rules_version=2, evolve=evolve_v2, decide=v1.decide.__wrapped__,
                             upcasters={1: lambda e: [{**e, "type": "match_opened"}]
                                        if e["type"] == "game_started" else [e]})
    assert fold(v2, old_log, v2.initial({}, 2), written_under=1) == final_v1
    with pytest.raises(AssertionError):
        fold(v2, old_log, v2.initial({}, 2))  # read as if written under version 2
    without = dataclasses.replace(v2, upcasters={}, decide=v1.decide.__wrapped__)
    with pytest.raises(ValueError, match="no upcaster"):
        fold(without, old_log, v2.initial({}, 2), written_under=1)
