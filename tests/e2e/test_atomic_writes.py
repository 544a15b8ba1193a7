"""Writes that must happen together, with a real server on a real SQLite file whose
writes are made to fail by a trigger, as a full disk or an I/O error would.

- Taking the last seat starts the match; if the start cannot be written, the claim is undone:
  the seat is free again, and taking it once the store recovers starts the match.
- A fork is written in one transaction: when the copy fails, no half-copied match exists.
"""

from __future__ import annotations

import asyncio
import random
import sqlite3

import httpx
import pytest
from teahouse_client import TeahouseClient
from teahouse_client.bot import play_seat

from tests.support.server import ServerProcess


@pytest.fixture
def sqlite_node(tmp_path):
    proc = ServerProcess(f"sqlite:{tmp_path / 'data'}", tmp_path / "server.log").start()
    yield proc, tmp_path / "data" / "teahouse.sqlite3"
    proc.stop()


def failing_writes(db_path, when: str) -> sqlite3.Connection:
    db = sqlite3.connect(db_path)
    db.execute(f"CREATE TRIGGER disk_full BEFORE INSERT ON log WHEN {when} "
               "BEGIN SELECT RAISE(ABORT, 'disk I/O error'); END")
    db.commit()
    return db


def recovered(db: sqlite3.Connection) -> None:
    db.execute("DROP TRIGGER disk_full")
    db.commit()
    db.close()


async def test_a_seat_whose_start_fails_is_given_back(sqlite_node):
    node, db_path = sqlite_node
    async with httpx.AsyncClient(base_url=node.url, timeout=30) as http:
        mid = (await http.post("/api/matches", json={"game": "khan", "players": 2})).json()["match"]
        assert (await http.post(f"/api/matches/{mid}/seats", json={"seat": 0})).status_code == 201
        db = failing_writes(db_path, f"NEW.match = '{mid}'")
        r = await http.post(f"/api/matches/{mid}/seats", json={"seat": 1, "name": "late"})
        assert r.status_code == 500 and r.json()["error"]["code"] == "internal"
        summary = (await http.get(f"/api/matches/{mid}")).json()
        assert summary["seats"][1] == {"seat": 1, "taken": False, "name": None}, "the claim is undone"
        assert summary["seq"] == 0 and summary["state"] == "open"
        recovered(db)
        r = await http.post(f"/api/matches/{mid}/seats", json={"seat": 1})
        assert r.status_code == 201 and r.json()["token"]
        summary = (await http.get(f"/api/matches/{mid}")).json()
        assert summary["state"] == "live" and summary["seq"] == 1


async def test_a_fork_is_written_whole_or_not_at_all(sqlite_node):
    node, db_path = sqlite_node
    client = TeahouseClient(node.url)
    conns = []
    try:
        mid = (await client.create_match("pixies", 2))["match"]
        seats = [await client.take_seat(mid) for _ in range(2)]
        for s in seats:
            conns.append(await client.connect().open())
            await conns[-1].join(mid, s["token"])
        await asyncio.gather(*(play_seat(c, c.matches[mid], random.Random(i)) for i, c in enumerate(conns)))
        before = {m["match"] for m in await client.matches()}
        db = failing_writes(db_path, f"NEW.match != '{mid}' AND NEW.seq = 5")
        async with httpx.AsyncClient(base_url=node.url, timeout=30) as http:
            r = await http.post(f"/api/matches/{mid}/fork", json={"seq": 8})
            assert r.status_code == 500
            assert {m["match"] for m in await client.matches()} == before, "no half-copied fork is listed"
            check = sqlite3.connect(db_path)
            orphans = check.execute("SELECT COUNT(*) FROM log WHERE match != ?", (mid,)).fetchone()[0]
            ids = check.execute("SELECT COUNT(*) FROM matches WHERE id != ?", (mid,)).fetchone()[0]
            check.close()
            assert (orphans, ids) == (0, 0)
            recovered(db)
            r = await http.post(f"/api/matches/{mid}/fork", json={"seq": 8})
            # the 8 copies and the fork's redeal (SPEC 11), written together
            assert r.status_code == 201 and r.json()["seq"] == 9
    finally:
        for c in conns:
            await c.close()
        await client.aclose()
