from __future__ import annotations

import asyncio

import pytest

from service.store import StoreUnavailable, open_store
from service.store import sqlite as sqlite_store
from service.store.sqlite import SqliteStore
from tests.store.contract import StoreContract, commit


class TestSqliteStore(StoreContract):
    @pytest.fixture
    async def store(self, tmp_path):
        s = open_store(f"sqlite:{tmp_path / 'db'}")
        yield s
        await s.close()

    @pytest.fixture
    async def twin(self, tmp_path, monkeypatch):
        # Another process on the file: its commits are found by the tail's poll, made quick here.
        monkeypatch.setattr(sqlite_store, "POLL_SECONDS", 0.1)
        s = open_store(f"sqlite:{tmp_path / 'db'}")
        yield s
        await s.close()


async def test_commits_survive_reopening_the_file(tmp_path):
    s = SqliteStore(tmp_path / "x.sqlite3")
    for seq in (1, 2, 3):
        await s.append("m", commit(seq))
    await s.close()
    again = SqliteStore(tmp_path / "x.sqlite3")
    assert [c.seq for c in await again.read("m")] == [1, 2, 3]
    await again.close()


async def test_two_stores_on_one_file_share_the_guard(tmp_path):
    a, b = SqliteStore(tmp_path / "y.sqlite3"), SqliteStore(tmp_path / "y.sqlite3")
    await a.append("m", commit(1))
    from service.store import Conflict
    with pytest.raises(Conflict):
        await b.append("m", commit(1))
    await b.append("m", commit(2))
    assert [c.seq for c in await a.read("m")] == [1, 2]
    await a.close()
    await b.close()


async def test_appends_sent_together_commit_together_and_a_conflict_fails_alone(tmp_path):
    """Appends of many matches waiting at once may share one transaction (group commit): each
    still answers for itself. The one whose seq is taken is refused with Conflict; every other
    is in the file once the appends have returned, and nothing else is."""
    import asyncio

    from service.store.base import Conflict

    s = SqliteStore(tmp_path / "g.sqlite3")
    for m in range(20):
        await s.append(f"m{m}", commit(1))
    outcomes = await asyncio.gather(
        *(s.append(f"m{m}", commit(2)) for m in range(20)),
        s.append("m7", commit(2)),  # m7's seq 2 is also appended just above: one of the two loses
        s.append("m3", commit(5)),  # a gap: refused
        return_exceptions=True)
    assert sum(isinstance(o, Conflict) for o in outcomes) == 2
    assert all(o is None or isinstance(o, Conflict) for o in outcomes)
    assert isinstance(outcomes[-1], Conflict)
    await s.close()
    again = SqliteStore(tmp_path / "g.sqlite3")
    for m in range(20):
        assert [c.seq for c in await again.read(f"m{m}")] == [1, 2]
    await again.close()


async def test_closing_twice_returns_and_a_request_after_close_is_store_unavailable(tmp_path):
    """A store closed by two owners (the app's lifespan and a test, a CLI shutdown path) must not
    hang the second one, and a late request must fail as retryable instead of waiting for ever."""
    store = SqliteStore(str(tmp_path / "db.sqlite"))
    await store.ping()
    await asyncio.wait_for(store.close(), 5)
    await asyncio.wait_for(store.close(), 5)
    with pytest.raises(StoreUnavailable):
        await asyncio.wait_for(store.ping(), 5)
