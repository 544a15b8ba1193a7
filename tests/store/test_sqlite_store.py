from __future__ import annotations

import pytest

from service.store import open_store
from service.store.sqlite import SqliteStore
from tests.store.contract import StoreContract, commit


class TestSqliteStore(StoreContract):
    @pytest.fixture
    async def store(self, tmp_path):
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
