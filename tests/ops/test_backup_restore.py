"""Backup and restore (docs/operators.md, Backup and restore): a live SQLite store copied with
`teahouse backup` (SQLite's online backup) while a match is being played, and a Redis store
exported match by match with the admin API, are each written by `teahouse restore` into an
empty store; every match read back from it holds the same commits, folds to the same states
(the state hash of every seq, SPEC 2.13) and gives the same game record.

Real server processes, a real redis-server, the CLI as an operator runs it."""

from __future__ import annotations

import subprocess
import sys
import time

import httpx
from teahouse_client import TeahouseClient

from service.match import record
from service.store import EventStore, open_store
from tests.e2e.helpers import close_all, seat_players
from tests.support.server import ROOT, ServerProcess

ADMIN = "backup-test-admin-token"
BOTS = [{"seat": 0, "strength": 0}, {"seat": 1, "strength": 0}]


def teahouse(*args: str) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-m", "service.cli", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done


def bot_match(url: str) -> str:
    r = httpx.post(url + "/api/matches", json={"game": "pixies", "players": 2, "bots": BOTS})
    assert r.status_code == 201, r.text
    return r.json()["match"]


def wait_finished(url: str, mid: str) -> None:
    deadline = time.monotonic() + 120
    while httpx.get(f"{url}/api/matches/{mid}").json()["state"] != "finished":
        assert time.monotonic() < deadline, "the bots did not finish"
        time.sleep(0.2)


async def matches_of_every_kind(url: str) -> dict[str, str]:
    """Finished, live (seats held by tokens, a few moves), open (one seat taken), private and
    unlisted: what a store holds. Returns the kind of each match id."""
    kinds = {}
    for _ in range(2):
        mid = bot_match(url)
        wait_finished(url, mid)
        kinds[mid] = "finished"
    client = TeahouseClient(url)
    mid = (await client.create_match("pixies", 2))["match"]
    seats, conns, views = await seat_players(client, mid, 2, record=False)
    for _ in range(3):
        seat = views[0].status["to_act"][0]
        seq = await conns[seat].move(mid, (await conns[seat].legal_moves(mid))[0])
        await views[0].wait_for(lambda g, s=seq: g.seq >= s, timeout=10)
    kinds[mid] = "live"
    await close_all(*conns)
    mid = (await client.create_match("gugong", 3, listed=False))["match"]
    await client.take_seat(mid, name="only one")
    kinds[mid] = "open"
    await client.aclose()
    return kinds


async def same_matches(original: EventStore, restored: EventStore, kinds: dict[str, str],
                       exported: bool) -> None:
    """Every match of `kinds` is in `restored` as in `original`: record, seats, marks, commits, and
    the state hash of every seq; a match still played after the backup, up to the backup's seq."""
    restored_ids = {r.id for r in await restored.all_matches(0, 500)}
    assert restored_ids == set(kinds)
    for mid, kind in kinds.items():
        a, b = await original.get_match(mid), await restored.get_match(mid)
        assert b is not None
        for name in ("game", "players", "options", "listed", "seed", "seed_sha256", "created", "rules_version",
                     "turn_seconds", "spectators", "bots", "bot_seed"):
            assert getattr(b, name) == getattr(a, name), (mid, name)
        assert [(s.taken, s.name) for s in b.seats] == [(s.taken, s.name) for s in a.seats], mid
        if not exported:  # the SQLite file keeps the token hashes; an export leaves them out
            assert [s.token_hash for s in b.seats] == [s.token_hash for s in a.seats]
        commits_a, commits_b = await original.read(mid), await restored.read(mid)
        assert commits_b == commits_a[:len(commits_b)], mid
        if kind != "played during the backup":
            assert len(commits_b) == len(commits_a) and (b.finished, b.result) == (a.finished, a.result), mid
        lines_a = list(record.lines(a, commits_a[:len(commits_b)]))
        lines_b = list(record.lines(b, commits_b))
        assert [x.get("state_sha256") for x in lines_b] == [x.get("state_sha256") for x in lines_a], mid
        if b.finished:
            assert record.encode(b, commits_b) == record.encode(a, commits_a), mid


async def test_a_live_sqlite_store_backed_up_online_restores_into_an_empty_store(tmp_path):
    data = tmp_path / "data"
    server = ServerProcess(f"sqlite:{data}", tmp_path / "server.log").start()
    try:
        kinds = await matches_of_every_kind(server.url)
        playing = bot_match(server.url)  # the bots play it while the backup is taken
        kinds[playing] = "played during the backup"
        time.sleep(0.3)
        backup = tmp_path / "teahouse-backup.sqlite3"
        out = teahouse("backup", "--store", f"sqlite:{data}", str(backup)).stdout
        assert "pages" in out
        wait_finished(server.url, playing)
        finished = next(m for m, k in kinds.items() if k == "finished")
        record_before = httpx.get(f"{server.url}/api/matches/{finished}/record").content
    finally:
        server.stop()

    # a backup is never written over
    again = subprocess.run([sys.executable, "-m", "service.cli", "backup", "--store", f"sqlite:{data}", str(backup)],
                           cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert again.returncode == 1 and "exists" in again.stderr

    target = tmp_path / "restored"
    out = teahouse("restore", "--store", f"sqlite:{target}", str(backup)).stdout
    assert f"{len(kinds)} matches" in out
    original, restored = open_store(f"sqlite:{data}"), open_store(f"sqlite:{target}")
    try:
        await same_matches(original, restored, kinds, exported=False)
    finally:
        await original.close()
        await restored.close()
    # a server on the restored store serves the same record
    server = ServerProcess(f"sqlite:{target}", tmp_path / "restored.log").start()
    try:
        assert httpx.get(f"{server.url}/api/matches/{finished}/record").content == record_before
    finally:
        server.stop()


async def test_a_redis_store_exported_with_the_admin_api_restores_into_an_empty_store(tmp_path, redis_url):
    server = ServerProcess(redis_url, tmp_path / "server.log")
    server.env = {"TEAHOUSE_ADMIN_TOKEN": ADMIN}
    server.start()
    auth = {"Authorization": f"Bearer {ADMIN}"}
    exports = []
    try:
        kinds = await matches_of_every_kind(server.url)
        listed = httpx.get(server.url + "/admin/matches", params={"limit": 500}, headers=auth).json()["matches"]
        assert {m["match"] for m in listed} == set(kinds)
        for n, m in enumerate(listed):
            fmt = "msgpack" if n % 2 else "jsonl"  # both formats the admin API writes
            r = httpx.get(f"{server.url}/admin/matches/{m['match']}/log", params={"format": fmt}, headers=auth)
            assert r.status_code == 200
            path = tmp_path / f"{m['match']}.{fmt}"
            path.write_bytes(r.content)
            exports.append(str(path))
        finished = next(m for m, k in kinds.items() if k == "finished")
        record_before = httpx.get(f"{server.url}/api/matches/{finished}/record").content
    finally:
        server.stop()

    empty = redis_url.rsplit("/", 1)[0] + "/1"
    out = teahouse("restore", "--store", empty, *exports).stdout
    assert f"{len(kinds)} matches" in out
    # a second restore into the same (now full) store is refused
    refused = subprocess.run([sys.executable, "-m", "service.cli", "restore", "--store", empty, *exports],
                             cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert refused.returncode == 1 and "empty store" in refused.stderr

    original, restored = open_store(redis_url), open_store(empty)
    try:
        await same_matches(original, restored, kinds, exported=True)
    finally:
        await original.close()
        await restored.close()
    server = ServerProcess(empty, tmp_path / "restored.log").start()
    try:
        assert httpx.get(f"{server.url}/api/matches/{finished}/record").content == record_before
    finally:
        server.stop()
        await _flush(empty)


async def _flush(url: str) -> None:
    import redis.asyncio as aioredis

    r = aioredis.from_url(url)
    await r.flushdb()
    await r.aclose()


def test_restore_reads_what_it_writes(tmp_path):
    """The export reader takes several matches in one file (files concatenated)."""
    from service.store.backup import read_export

    lines = (b'{"record": {"id": "a", "game": "pixies", "players": 2, "options": {}, "listed": true, "seed": "s", '
             b'"seed_sha256": "h", "created": 1, "seats": [{"seat": 0, "taken": true, "name": "x"}, '
             b'{"seat": 1, "taken": false, "name": null}]}}\n'
             b'{"commit": {"seq": 1, "seat": null, "command": {"type": "start"}, "events": [], "move_id": "sys:start"}}\n')
    path = tmp_path / "two.jsonl"
    path.write_bytes(lines + lines.replace(b'"id": "a"', b'"id": "b"'))
    got = list(read_export(path))
    assert [(r.id, len(c)) for r, c in got] == [("a", 1), ("b", 1)]
    assert [s.taken for s in got[0][0].seats] == [True, False]
