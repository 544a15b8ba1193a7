"""service/match/retention.py against docs/operators.md (Retention): finished matches whose last
commit is more than N days old are archived (unlisted, still readable by id with their log) or
deleted (record, seats, log and snapshot); a match still being played is never touched; 0 days
keeps everything; doing it twice is harmless. The module's docstring adds: the age of a match
without commits is counted from its creation, and a sweep that fails is tried again next round.

Everything runs on a real SQLite store in a temporary directory, with times written into the
records and commits as a node running for days would have them."""

from __future__ import annotations

import asyncio
import logging

import pytest

from service.match import retention
from service.store import Commit, MatchRecord, SeatRecord, open_store
from service.store.sqlite import SqliteStore
from tests.support.redis_server import free_port

DAY_MS = 86_400_000
NOW = 1_780_000_000_000  # the sweep's "now", in ms since the epoch
HOUR_MS = 3_600_000


@pytest.fixture
async def store(tmp_path):
    s = SqliteStore(tmp_path / "data")
    yield s
    await s.close()


async def add(store: SqliteStore, match_id: str, created: int, commit_times: tuple[int, ...] = (),
              finished: bool = True, listed: bool = True) -> None:
    rec = MatchRecord(id=match_id, game="pixies", players=2, options={}, listed=listed, seed="s" * 64,
                      seed_sha256="h" * 64, created=created, seats=[SeatRecord(seat=i) for i in range(2)])
    commits = [Commit(seq=i + 1, seat=None if i == 0 else i % 2, command={"type": "start" if i == 0 else "x"},
                      events=[], ts=ts) for i, ts in enumerate(commit_times)]
    await store.create_match(rec, commits)
    if finished:
        await store.mark_finished(match_id, {"winners": [0]})


def days_ago(days: float) -> int:
    return int(NOW - days * DAY_MS)


async def ids_listed(store: SqliteStore) -> set[str]:
    return {r.id for r in await store.list_matches()}


async def test_archive_unlists_old_finished_matches_and_keeps_them_readable(store):
    await add(store, "old", days_ago(40), (days_ago(40), days_ago(31)))
    await add(store, "recent", days_ago(40), (days_ago(40), days_ago(29)))
    done = await retention.sweep(store, 30, "archive", now_ms=NOW)
    assert done == ["old"]
    assert await ids_listed(store) == {"recent"}
    rec = await store.get_match("old")
    assert rec is not None and rec.finished and not rec.listed
    assert [c.seq for c in await store.read("old")] == [1, 2], "its log is kept"


async def test_delete_removes_everything_the_match_kept_and_tells_the_node(store):
    await add(store, "old", days_ago(10), (days_ago(10), days_ago(9)))
    await store.save_snapshot("old", 2, {"phase": "over"})
    await add(store, "recent", days_ago(10), (days_ago(10), days_ago(1)))
    forgotten: list[str] = []

    async def forget(match_id: str) -> None:
        forgotten.append(match_id)

    assert await retention.sweep(store, 7, "delete", now_ms=NOW, forget=forget) == ["old"]
    assert forgotten == ["old"]
    assert await store.get_match("old") is None
    assert await store.read("old") == [] and await store.last_seq("old") == 0
    assert await store.load_snapshot("old") is None
    assert await store.get_match("recent") is not None


@pytest.mark.parametrize("action", ["archive", "delete"])
async def test_a_match_still_being_played_is_never_touched(store, action):
    await add(store, "live", days_ago(400), (days_ago(400), days_ago(399)), finished=False)
    await add(store, "open", days_ago(400), finished=False)
    assert await retention.sweep(store, 1, action, now_ms=NOW) == []
    assert await ids_listed(store) == {"live", "open"}


async def test_the_age_is_counted_from_the_last_commit_not_the_creation(store):
    # Created long ago, finished an hour ago: a long match is not old.
    await add(store, "long", days_ago(100), (days_ago(100), days_ago(50), NOW - HOUR_MS))
    assert await retention.sweep(store, 30, "archive", now_ms=NOW) == []
    assert await ids_listed(store) == {"long"}


async def test_a_finished_match_without_commits_is_as_old_as_its_creation(store):
    await add(store, "empty-old", days_ago(5))
    await add(store, "empty-new", days_ago(1))
    assert await retention.sweep(store, 3, "delete", now_ms=NOW) == ["empty-old"]
    assert await store.get_match("empty-new") is not None


@pytest.mark.parametrize("action", ["archive", "delete"])
async def test_zero_days_keeps_everything(store, action):
    await add(store, "ancient", days_ago(10_000), (days_ago(10_000),))
    assert await retention.sweep(store, 0, action, now_ms=NOW) == []
    assert await ids_listed(store) == {"ancient"}


@pytest.mark.parametrize("action", ["archive", "delete"])
async def test_sweeping_twice_is_harmless(store, action):
    await add(store, "old", days_ago(3), (days_ago(3),))
    await add(store, "kept", days_ago(3), (NOW,))
    assert await retention.sweep(store, 1, action, now_ms=NOW) == ["old"]
    assert await retention.sweep(store, 1, action, now_ms=NOW) == []
    assert await ids_listed(store) == {"kept"}


async def test_an_unlisted_match_is_deleted_too(store):
    await add(store, "private", days_ago(3), (days_ago(3),), listed=False)
    assert await retention.sweep(store, 1, "delete", now_ms=NOW) == ["private"]
    assert await store.get_match("private") is None


@pytest.mark.parametrize("action", ["archive", "delete"])
async def test_every_page_of_matches_is_swept(store, action, monkeypatch):
    # More matches than one page of the store's list (a small page, so the test is quick), old
    # and recent interleaved, so that a deletion shifting the pages under the sweep would skip some.
    monkeypatch.setattr(retention, "PAGE", 4)
    n = 5 * retention.PAGE + 3
    old = {f"m{i:04d}" for i in range(n) if i % 2}
    for i in range(n):
        ts = days_ago(9) if f"m{i:04d}" in old else NOW
        await add(store, f"m{i:04d}", days_ago(9) + i, (ts,))
    done = await retention.sweep(store, 2, action, now_ms=NOW)
    assert sorted(done) == sorted(old)
    remaining = {r.id for r in await store.all_matches(0, 10 * n)}
    if action == "delete":
        assert remaining == {f"m{i:04d}" for i in range(n)} - old
    else:
        assert {r.id for r in await store.all_matches(0, 10 * n) if r.listed} == remaining - old


async def test_the_task_sweeps_every_round(store):
    await add(store, "old", 0, (1,))  # finished in 1970
    task = asyncio.create_task(retention.run_forever(store, 1, "archive", every_s=0.02))
    try:
        for _ in range(1000):
            await asyncio.sleep(0.01)
            if not await ids_listed(store):
                break
        assert await ids_listed(store) == set()
        await add(store, "later", 0, (1,))  # found by a later round
        for _ in range(1000):
            await asyncio.sleep(0.01)
            if not await ids_listed(store):
                break
        assert await ids_listed(store) == set()
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)


async def test_a_failing_round_is_tried_again(caplog):
    caplog.set_level(logging.WARNING, logger="teahouse.retention")
    down = open_store(f"redis://127.0.0.1:{free_port()}/0")  # nothing listens there
    task = asyncio.create_task(retention.run_forever(down, 1, "archive", every_s=0.02))
    try:
        for _ in range(1000):  # a busy machine may take seconds to refuse a connection twice
            await asyncio.sleep(0.01)
            if len([r for r in caplog.records if r.name == "teahouse.retention"]) >= 2:
                break
        assert not task.done(), "the task goes on"
        assert len([r for r in caplog.records if r.name == "teahouse.retention"]) >= 2
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        await down.close()


# -- forks nobody joined ----------------------------------------------------------------------------

async def add_fork(store: SqliteStore, match_id: str, created: int, bots: list[int | None] | None = None,
                   joined: tuple[int, ...] = ()) -> None:
    rec = MatchRecord(id=match_id, game="pixies", players=2, options={}, listed=False, seed="s" * 64,
                      seed_sha256="h" * 64, created=created, bots=bots,
                      forked_from={"match": "origin", "seq": 3, "seed": "o" * 64, "exact": False},
                      seats=[SeatRecord(seat=i) for i in range(2)])
    await store.create_match(rec)
    for seat in range(2):
        if seat in joined or (bots and bots[seat] is not None):
            await store.claim_seat(match_id, seat, f"{seat}" * 64, None)
        if seat in joined:
            await store.mark_joined(match_id, seat, f"{seat}" * 64)


@pytest.mark.parametrize("action", ["archive", "delete"])
async def test_an_open_fork_nobody_joined_expires_with_the_retention_days(store, action):
    await add_fork(store, "forkOld", days_ago(31))
    await add_fork(store, "forkNew", days_ago(29))
    await add_fork(store, "forkBotOnly", days_ago(31), bots=[None, 3])  # a bot is nobody
    await add_fork(store, "forkPlayed", days_ago(31), joined=(0,))
    done = await retention.sweep(store, 30, action, now_ms=NOW)
    assert sorted(done) == ["forkBotOnly", "forkOld"]
    # expired under either action: the fork held only a copy of its origin's history
    assert await store.get_match("forkOld") is None and await store.get_match("forkBotOnly") is None
    assert await store.get_match("forkNew") is not None
    played = await store.get_match("forkPlayed")
    assert played is not None and not played.finished, "a fork someone joined is a match being played"
