"""Redis goes away mid-play and comes back on the same port and data directory.

Two real nodes share one real redis-server (appendonly, fsync always); every match has seat 0
on node A and seat 1 on node B, so a commit on one node reaches the other only through that
node's tail of the stream. While Redis is down, a move and a create are answered with the
retryable `store_unavailable` (never `internal`), /health/ready says 503 and /health/live 200.
After Redis is back, with no node restarted and no client reconnecting, the same move (same
id) is committed once, the other node's player sees it, a server bot moves again on its own,
and every acknowledged move is in the log.
"""

from __future__ import annotations

import asyncio
import json
import time

import httpx
import pytest
from teahouse_client import TeahouseClient
from teahouse_client.client import Connection, MatchView, ServerError

from service.store.redis import RedisStore
from tests.support.redis_server import RedisServer
from tests.support.server import ServerProcess

MATCHES = 3
ROUNDS = 4
OUTAGE_S = 3.0


@pytest.fixture
def redis(tmp_path):
    (tmp_path / "redis").mkdir()
    server = RedisServer(tmp_path / "redis")
    server.start()
    yield server
    server.stop()


@pytest.fixture
def nodes(redis, tmp_path):
    started = [ServerProcess(redis.url, tmp_path / f"node{i}.log").start() for i in range(2)]
    yield started
    for node in started:
        node.stop()


class Table:
    """One match: seat 0 plays on node A, seat 1 on node B (or a server bot)."""

    def __init__(self, match: str, views: list[MatchView], conns: list[Connection]) -> None:
        self.match, self.views, self.conns = match, views, conns
        self.acked: list[tuple[int, str]] = []  # (seq, move id) the server acknowledged

    def actor(self) -> int:
        for i, v in enumerate(self.views):
            if v.my_turn:
                return i
        raise AssertionError(f"{self.match}: no watched seat to act ({self.views[0].status})")

    async def move(self, move_id: str) -> int:
        i = self.actor()
        commands = await self.conns[i].legal_moves(self.match)
        seq = await self.conns[i].move(self.match, commands[0], move_id)
        self.acked.append((seq, move_id))
        return seq

    async def seen_everywhere(self, seq: int, timeout: float = 30) -> None:
        for v in self.views:
            await v.wait_for(lambda mv: mv.seq >= seq, timeout=timeout)


async def _seat(a: TeahouseClient, b: TeahouseClient, bot: bool) -> Table:
    created = await a.create_match("pixies", 2, {"first_player": 0}, bots={1: 0} if bot else None)
    mid = created["match"]
    conns, views = [], []
    for seat, client in ((0, a), (1, b))[: 1 if bot else 2]:
        token = (await client.take_seat(mid, seat=seat))["token"]
        conn = await client.connect().open()
        conns.append(conn)
        views.append(await conn.join(mid, token))
    await views[0].wait_for(lambda mv: mv.seq >= 1)
    return Table(mid, views, conns)


async def _until_acked(table: Table, move_id: str, timeout: float = 30) -> tuple[int, list[str]]:
    """Send the same move until it is acknowledged; return its seq and the codes refused with."""
    codes: list[str] = []
    end = time.monotonic() + timeout
    while True:
        try:
            return await table.move(move_id), codes
        except ServerError as exc:
            codes.append(exc.code)
            if not exc.retryable or time.monotonic() > end:
                raise
            await asyncio.sleep(0.05)


async def test_matches_recover_by_themselves_after_a_redis_restart(redis, nodes):
    a, b = TeahouseClient(nodes[0].url), TeahouseClient(nodes[1].url)
    tables: list[Table] = []
    bot_table: Table | None = None
    try:
        tables = [await _seat(a, b, bot=False) for _ in range(MATCHES)]
        bot_table = await _seat(a, b, bot=True)
        for r in range(ROUNDS):
            for t in tables:
                await t.seen_everywhere(await t.move(f"r{r}"))
        await bot_table.move("before")

        redis.kill()
        down_at = time.monotonic()
        # While Redis is down: the retryable code, never `internal`, for moves and for HTTP.
        for t in tables:
            with pytest.raises(ServerError) as refused:
                await t.move("during")
            assert refused.value.code == "store_unavailable" and refused.value.retryable, refused.value
        async with httpx.AsyncClient(base_url=nodes[0].url) as http:
            r = await http.post("/api/matches", json={"game": "pixies", "players": 2})
            assert r.status_code == 503 and r.json()["error"]["code"] == "store_unavailable", r.text
            assert r.headers["Retry-After"] == "1"
            assert (await http.get("/health/ready")).status_code == 503
            assert (await http.get("/health")).status_code == 503
            assert (await http.get("/health/live")).status_code == 200
        await asyncio.sleep(max(0.0, OUTAGE_S - (time.monotonic() - down_at)))

        redis.start()  # same port, same directory: its append-only file brings the log back
        back_at = time.monotonic()

        async def recover(t: Table) -> float:
            seq, codes = await _until_acked(t, "during")
            assert set(codes) <= {"store_unavailable"}, codes
            await t.seen_everywhere(seq)  # the other node's tail caught up by itself
            return time.monotonic() - back_at

        took = await asyncio.gather(*(recover(t) for t in tables))
        # The server bot answers seat 0's last move on its own (its commit kept being retried
        # while Redis was away), and again after the next one.
        await bot_table.views[0].wait_for(lambda mv: mv.my_turn, timeout=30)
        took.append(time.monotonic() - back_at)
        seq, _ = await _until_acked(bot_table, "after")
        await bot_table.views[0].wait_for(lambda mv: mv.seq > seq and mv.my_turn, timeout=30)
        async with httpx.AsyncClient() as http:
            for node in nodes:
                assert (await http.get(node.url + "/health/ready")).status_code == 200

        # Every acknowledged move is in the log, once, at the seq it was acknowledged with.
        store = RedisStore(redis.url)
        try:
            lost = 0
            for t in [*tables, bot_table]:
                log = await store.read(t.match)
                by_seq = {c.seq: c.move_id for c in log}
                ids = [c.move_id for c in log if c.move_id is not None]
                assert len(ids) == len(set(ids)), f"{t.match}: a move id committed twice"
                lost += sum(by_seq.get(seq) != mid for seq, mid in t.acked)
        finally:
            await store.close()
        acked = sum(len(t.acked) for t in [*tables, bot_table])
        print(f"\nredis restart: every match moved again {max(took):.2f} s after Redis was back; "
              f"acknowledged moves lost: {lost} of {acked}")
        assert lost == 0
        assert max(took) < 10, took
        _one_line_per_state_change(nodes)
    finally:
        for t in [*tables, *([bot_table] if bot_table else [])]:
            for c in t.conns:
                await c.close()
        await a.aclose()
        await b.aclose()


def _one_line_per_state_change(nodes: list[ServerProcess]) -> None:
    """The outage wrote, on each node, one line when Redis went away and one when it
    came back, and nothing else above info: no traceback per request, per match or per retry."""
    for node in nodes:
        records = [json.loads(line) for line in node.log_text().splitlines() if line.startswith("{")]
        loud = [r for r in records if r["level"] not in ("debug", "info")]
        assert [r.get("event") for r in loud] == ["store_down", "store_up"], loud
        assert all(r.get("node") for r in loud)
        assert not [r for r in records if "exc" in r]


async def test_ready_answers_503_within_its_deadline_when_redis_hangs(redis, tmp_path):
    """A Redis that accepts connections but answers nothing (SIGSTOP): /health/ready must not
    hang with it; it answers 503 once `ready_deadline_s` has passed, and 200 when Redis answers."""
    import signal

    node = ServerProcess(redis.url, tmp_path / "node.log")
    node.env = {"TEAHOUSE_READY_DEADLINE_S": "0.3"}
    node.start()
    assert redis.proc is not None
    try:
        async with httpx.AsyncClient(base_url=node.url, timeout=10) as http:
            assert (await http.get("/health/ready")).status_code == 200
            redis.proc.send_signal(signal.SIGSTOP)
            try:
                t0 = time.monotonic()
                r = await http.get("/health/ready")
                took = time.monotonic() - t0
                assert r.status_code == 503 and r.json()["error"]["code"] == "store_unavailable", r.text
                assert 0.3 <= took < 1.5, took
                assert (await http.get("/health/live")).status_code == 200
            finally:
                redis.proc.send_signal(signal.SIGCONT)
            assert (await http.get("/health/ready")).status_code == 200
    finally:
        node.stop()


async def test_a_locked_sqlite_file_answers_store_unavailable_then_recovers(tmp_path):
    """SQLite: another process holds the write lock (an operator's sqlite3 shell in a
    transaction). A move waits the store's busy timeout, then is answered with the retryable
    `store_unavailable`, not `internal`; once the lock is gone the same move id commits once."""
    import sqlite3

    node = ServerProcess(f"sqlite:{tmp_path / 'data'}", tmp_path / "node.log").start()
    client = TeahouseClient(node.url)
    try:
        table = await _seat(client, client, bot=False)
        await table.seen_everywhere(await table.move("first"))
        holder = sqlite3.connect(tmp_path / "data" / "teahouse.sqlite3", isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")  # the write lock, held
        try:
            with pytest.raises(ServerError) as refused:
                await table.move("locked")
            assert refused.value.code == "store_unavailable", refused.value
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        seq, _ = await _until_acked(table, "locked")
        await table.seen_everywhere(seq)
        assert [mid for s, mid in table.acked] == ["first", "locked"]
        async with httpx.AsyncClient(base_url=node.url) as http:
            assert (await http.get("/health/ready")).status_code == 200
    finally:
        for c in table.conns if "table" in locals() else []:
            await c.close()
        await client.aclose()
        node.stop()
