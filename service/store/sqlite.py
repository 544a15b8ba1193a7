"""The embedded store: one SQLite file, the default on a single machine.

sqlite3 blocks, so every statement runs on one thread of its own (sqlite_thread.DbThread);
the event loop only awaits. Appends waiting together share one transaction and one fsync.
(match, seq) is the primary key of the log, so a second writer of the same seq fails on
the key; the append also checks the seq follows the last one, so the log has no gaps.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import AsyncGenerator, Sequence
from pathlib import Path
from typing import Any

import msgpack

from service.store.base import (
    REJECTION_TTL_MS,
    REMEMBERED_REJECTIONS,
    Claim,
    Commit,
    Conflict,
    DeliveryRecord,
    EventStore,
    HookRecord,
    LogRewound,
    MatchRecord,
    PlayerRecord,
    Rejected,
    SeatRecord,
    StoreUnavailable,
    pack_state,
    rejection_key,
    unpack_state,
)
from service.store.outage import guarded
from service.store.sqlite_thread import DbThread

_SCHEMA = """
CREATE TABLE IF NOT EXISTS matches (
    id TEXT PRIMARY KEY, record BLOB NOT NULL, created INTEGER NOT NULL,
    listed INTEGER NOT NULL, finished INTEGER NOT NULL DEFAULT 0, result BLOB
);
CREATE TABLE IF NOT EXISTS seats (
    match TEXT NOT NULL, seat INTEGER NOT NULL, token_hash TEXT, name TEXT,
    claimed_at INTEGER, joined INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (match, seat)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS log (
    match TEXT NOT NULL, seq INTEGER NOT NULL, commit_data BLOB NOT NULL,
    PRIMARY KEY (match, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS diverged (
    match TEXT PRIMARY KEY, info BLOB NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS links (
    match TEXT NOT NULL, name TEXT NOT NULL, value TEXT NOT NULL,
    PRIMARY KEY (match, name)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS rejections (
    match TEXT NOT NULL, id TEXT NOT NULL, n INTEGER NOT NULL, at INTEGER NOT NULL,
    code TEXT NOT NULL, message TEXT NOT NULL,
    PRIMARY KEY (match, id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS players (
    id TEXT PRIMARY KEY, name TEXT NOT NULL, created INTEGER NOT NULL, key_hash TEXT UNIQUE
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS player_matches (
    player TEXT NOT NULL, match TEXT NOT NULL, created INTEGER NOT NULL,
    PRIMARY KEY (player, match)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS finished (
    game TEXT NOT NULL, match TEXT NOT NULL, ts INTEGER NOT NULL,
    PRIMARY KEY (game, match)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS snapshots (
    match TEXT PRIMARY KEY, seq INTEGER NOT NULL, state BLOB NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS analyses (
    match TEXT PRIMARY KEY, analysis BLOB NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS hooks (
    owner TEXT NOT NULL, id TEXT NOT NULL, created INTEGER NOT NULL, data BLOB NOT NULL,
    PRIMARY KEY (owner, id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS deliveries (
    id TEXT PRIMARY KEY, owner TEXT NOT NULL, created INTEGER NOT NULL, status TEXT NOT NULL,
    next_at INTEGER NOT NULL, data BLOB NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS deliveries_due ON deliveries (status, next_at);
CREATE INDEX IF NOT EXISTS deliveries_owner ON deliveries (owner, created);
CREATE TABLE IF NOT EXISTS hook_cursors (
    match TEXT PRIMARY KEY, seq INTEGER NOT NULL
) WITHOUT ROWID;
"""

# SQLite's own codes for "the file cannot be used right now" (not "this statement is wrong").
_UNAVAILABLE = ("SQLITE_IOERR", "SQLITE_BUSY", "SQLITE_LOCKED", "SQLITE_FULL", "SQLITE_CANTOPEN",
                "SQLITE_READONLY", "SQLITE_PROTOCOL")


def unreachable(exc: BaseException) -> bool:
    """An I/O error, a full or locked file, a file gone: StoreUnavailable."""
    if isinstance(exc, sqlite3.OperationalError | sqlite3.DatabaseError) and not isinstance(exc, sqlite3.IntegrityError):
        return str(getattr(exc, "sqlite_errorname", "")).startswith(_UNAVAILABLE)
    return isinstance(exc, OSError)


# How often a tailing reader looks at the file for commits made by another process (appends
# made by this process wake it at once).
POLL_SECONDS = 5.0


DB_NAME = "teahouse.sqlite3"


def database_file(path: str | Path) -> Path:
    """The SQLite file of a store path: a directory (or a name without a suffix) holds DB_NAME."""
    p = Path(path)
    return p / DB_NAME if p.suffix == "" or p.is_dir() else p


class SqliteStore(EventStore):
    name = "sqlite"

    def __init__(self, path: str | Path) -> None:
        self.path = database_file(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._thread = DbThread("sqlite")
        self._closed = False
        self._db = self._thread.call_blocking(self._connect)
        # The tailing readers of each match in this process: an append hands them its commit
        # (no read back from the file); commits of other processes are found by polling.
        self._tails: dict[str, list[_Tail]] = {}

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=FULL")  # an ack promises the commit survives a crash
        db.execute("PRAGMA busy_timeout=5000")
        db.executescript(_SCHEMA)
        # A file made before seats recorded when they were taken and joined: add the columns.
        columns = {row[1] for row in db.execute("PRAGMA table_info(seats)")}
        for column, decl in (("claimed_at", "INTEGER"), ("joined", "INTEGER NOT NULL DEFAULT 0"), ("player", "TEXT")):
            if column not in columns:
                db.execute(f"ALTER TABLE seats ADD COLUMN {column} {decl}")
        return db

    @guarded(unreachable)
    async def _run(self, fn, *args):
        if self._closed:  # the thread is gone: a request would wait for ever
            raise StoreUnavailable("the SQLite store is closed")
        return await self._thread.run(fn, *args)

    async def ping(self) -> None:
        await self._run(lambda: self._db.execute("SELECT 1").fetchone())

    # -- matches ------------------------------------------------------------------------
    async def create_match(self, record: MatchRecord, commits: Sequence[Commit] = ()) -> None:
        def go() -> None:
            with _tx(self._db, immediate=bool(commits)):
                self._db.execute(
                    "INSERT INTO matches (id, record, created, listed) VALUES (?, ?, ?, ?)",
                    (record.id, record.pack(), record.created, int(record.listed)),
                )
                self._db.executemany(
                    "INSERT INTO seats (match, seat, token_hash, name, player) VALUES (?, ?, ?, ?, ?)",
                    [(record.id, s.seat, s.token_hash, s.name, s.player) for s in record.seats],
                )
                self._db.executemany(
                    "INSERT INTO log (match, seq, commit_data) VALUES (?, ?, ?)",
                    [(record.id, c.seq, c.pack()) for c in commits],
                )
        await self._run(go)

    def _load(self, match_id: str) -> MatchRecord | None:
        row = self._db.execute(
            "SELECT record, finished, result FROM matches WHERE id = ?", (match_id,)
        ).fetchone()
        if row is None:
            return None
        seats = [
            SeatRecord(seat=s, taken=t is not None, name=n, token_hash=t, claimed_at=at, joined=bool(j), player=p)
            for s, t, n, at, j, p in self._db.execute(
                "SELECT seat, token_hash, name, claimed_at, joined, player FROM seats WHERE match = ? ORDER BY seat",
                (match_id,)
            )
        ]
        rec = MatchRecord.unpack(row[0], seats)
        rec.finished = bool(row[1])
        rec.result = msgpack.unpackb(row[2], raw=False) if row[2] is not None else None
        div = self._db.execute("SELECT info FROM diverged WHERE match = ?", (match_id,)).fetchone()
        rec.diverged = msgpack.unpackb(div[0], raw=False) if div else None
        rec.links = dict(self._db.execute("SELECT name, value FROM links WHERE match = ?", (match_id,)).fetchall())
        return rec

    async def get_match(self, match_id: str) -> MatchRecord | None:
        return await self._run(self._load, match_id)

    async def list_matches(self, limit: int = 200) -> list[MatchRecord]:
        def go() -> list[MatchRecord]:
            ids = [r[0] for r in self._db.execute(
                "SELECT id FROM matches WHERE listed = 1 ORDER BY created DESC, id LIMIT ?", (limit,)
            )]
            return [rec for i in ids if (rec := self._load(i)) is not None]
        return await self._run(go)

    async def claim_seat(self, match_id: str, seat: int, token_hash: str, name: str | None,
                         start: Commit | None = None, player: str | None = None) -> Claim:
        # The claim and, when it fills the match, its start: one transaction (see the contract).
        def go() -> bool | Commit:
            db = self._db
            with _tx(db, immediate=True):
                row = db.execute("SELECT token_hash FROM seats WHERE match = ? AND seat = ?", (match_id, seat)).fetchone()
                if row is None or row[0] not in (None, token_hash):
                    return False
                if row[0] is None:
                    db.execute("UPDATE seats SET token_hash = ?, name = ?, claimed_at = ?, joined = 0, player = ? "
                               "WHERE match = ? AND seat = ?",
                               (token_hash, name, int(time.time() * 1000), player, match_id, seat))
                if start is None:
                    return True
                (free,) = db.execute("SELECT COUNT(*) FROM seats WHERE match = ? AND token_hash IS NULL",
                                     (match_id,)).fetchone()
                if free or db.execute("SELECT 1 FROM log WHERE match = ? LIMIT 1", (match_id,)).fetchone():
                    return True
                db.execute("INSERT INTO log (match, seq, commit_data) VALUES (?, 1, ?)", (match_id, start.pack()))
                return start
        out = await self._run(go)
        if isinstance(out, Commit):
            for t in self._tails.get(match_id, ()):
                t.push(out)
            return Claim.STARTED
        return Claim.HELD if out else Claim.REFUSED

    async def release_seat(self, match_id: str, seat: int, token_hash: str) -> None:
        await self._run(lambda: self._db.execute(
            "UPDATE seats SET token_hash = NULL, name = NULL, player = NULL WHERE match = ? AND seat = ? AND token_hash = ?",
            (match_id, seat, token_hash)))

    async def mark_joined(self, match_id: str, seat: int, token_hash: str) -> None:
        await self._run(lambda: self._db.execute(
            "UPDATE seats SET joined = 1 WHERE match = ? AND seat = ? AND token_hash = ?", (match_id, seat, token_hash)))

    async def all_matches(self, offset: int = 0, limit: int = 100) -> list[MatchRecord]:
        def go() -> list[MatchRecord]:
            ids = [r[0] for r in self._db.execute(
                "SELECT id FROM matches ORDER BY created DESC, id LIMIT ? OFFSET ?", (limit, offset))]
            return [rec for i in ids if (rec := self._load(i)) is not None]
        return await self._run(go)

    async def set_listed(self, match_id: str, listed: bool) -> None:
        def go() -> None:
            with _tx(self._db, immediate=True):
                row = self._db.execute("SELECT record FROM matches WHERE id = ?", (match_id,)).fetchone()
                if row is None:
                    return
                data = msgpack.unpackb(row[0], raw=False)
                data["listed"] = listed
                self._db.execute("UPDATE matches SET listed = ?, record = ? WHERE id = ?",
                                 (int(listed), msgpack.packb(data, use_bin_type=True), match_id))
        await self._run(go)

    async def delete_match(self, match_id: str) -> None:
        def go() -> None:
            with _tx(self._db, immediate=True):
                self._db.execute("DELETE FROM matches WHERE id = ?", (match_id,))
                for table in ("seats", "log", "diverged", "links", "snapshots", "rejections", "analyses",
                              "player_matches", "finished", "hook_cursors"):
                    self._db.execute(f"DELETE FROM {table} WHERE match = ?", (match_id,))
        await self._run(go)

    async def mark_finished(self, match_id: str, result: dict[str, Any] | None) -> None:
        blob = msgpack.packb(result, use_bin_type=True)
        await self._run(lambda: self._db.execute(
            "UPDATE matches SET finished = 1, result = ? WHERE id = ?", (blob, match_id)))

    async def mark_diverged(self, match_id: str, info: dict[str, Any] | None) -> None:
        if info is None:
            await self._run(lambda: self._db.execute("DELETE FROM diverged WHERE match = ?", (match_id,)))
            return
        blob = msgpack.packb(info, use_bin_type=True)
        await self._run(lambda: self._db.execute(
            "INSERT OR REPLACE INTO diverged (match, info) VALUES (?, ?)", (match_id, blob)))

    async def set_link(self, match_id: str, name: str, value: str) -> str:
        def go() -> str:
            with _tx(self._db, immediate=True):
                self._db.execute("INSERT OR IGNORE INTO links (match, name, value) VALUES (?, ?, ?)",
                                 (match_id, name, value))
                row = self._db.execute("SELECT value FROM links WHERE match = ? AND name = ?",
                                       (match_id, name)).fetchone()
                return str(row[0])
        return await self._run(go)

    async def count_diverged(self) -> int:
        return int(await self._run(lambda: self._db.execute("SELECT COUNT(*) FROM diverged").fetchone()[0]))

    # -- players -----------------------------------------------------------------------------
    async def put_player(self, player: PlayerRecord) -> bool:
        def go() -> bool:
            cur = self._db.execute("INSERT OR IGNORE INTO players (id, name, created, key_hash) VALUES (?, ?, ?, ?)",
                                   (player.id, player.name, player.created, player.key_hash))
            return cur.rowcount == 1
        return await self._run(go)

    def _player(self, where: str, value: str) -> PlayerRecord | None:
        row = self._db.execute(f"SELECT id, name, created, key_hash FROM players WHERE {where} = ?", (value,)).fetchone()
        return PlayerRecord(*row) if row else None

    async def get_player(self, player_id: str) -> PlayerRecord | None:
        return await self._run(self._player, "id", player_id)

    async def player_for_key(self, key_hash: str) -> PlayerRecord | None:
        return await self._run(self._player, "key_hash", key_hash)

    async def add_player_match(self, player_id: str, match_id: str, created: int) -> None:
        await self._run(lambda: self._db.execute(
            "INSERT OR IGNORE INTO player_matches (player, match, created) VALUES (?, ?, ?)",
            (player_id, match_id, created)))

    async def player_matches(self, player_id: str) -> list[str]:
        return await self._run(lambda: [r[0] for r in self._db.execute(
            "SELECT match FROM player_matches WHERE player = ? ORDER BY created DESC, match", (player_id,))])

    async def add_finished(self, game: str, match_id: str, ts: int) -> None:
        await self._run(lambda: self._db.execute(
            "INSERT OR IGNORE INTO finished (game, match, ts) VALUES (?, ?, ?)", (game, match_id, ts)))

    async def finished_matches(self, game: str) -> list[tuple[int, str]]:
        return await self._run(lambda: [(r[0], r[1]) for r in self._db.execute(
            "SELECT ts, match FROM finished WHERE game = ? ORDER BY ts, match", (game,))])

    # -- webhooks ----------------------------------------------------------------------------
    async def add_hook(self, hook: HookRecord, limit: int) -> bool:
        def go() -> bool:
            with _tx(self._db, immediate=True):
                held = self._db.execute("SELECT COUNT(*) FROM hooks WHERE owner = ?", (hook.owner,)).fetchone()[0]
                if held >= limit:
                    return False
                self._db.execute("INSERT INTO hooks (owner, id, created, data) VALUES (?, ?, ?, ?)",
                                 (hook.owner, hook.id, hook.created, hook.pack()))
                return True
        return await self._run(go)

    async def hooks(self, owner: str) -> list[HookRecord]:
        return await self._run(lambda: [HookRecord.unpack(r[0]) for r in self._db.execute(
            "SELECT data FROM hooks WHERE owner = ? ORDER BY created, id", (owner,))])

    async def remove_hook(self, owner: str, hook_id: str) -> bool:
        return await self._run(lambda: self._db.execute(
            "DELETE FROM hooks WHERE owner = ? AND id = ?", (owner, hook_id)).rowcount == 1)

    async def hook_owners(self) -> list[str]:
        return await self._run(lambda: [r[0] for r in self._db.execute("SELECT DISTINCT owner FROM hooks")])

    async def add_deliveries(self, deliveries: Sequence[DeliveryRecord]) -> int:
        def go() -> int:
            with _tx(self._db, immediate=True):
                return sum(self._db.execute(
                    "INSERT OR IGNORE INTO deliveries (id, owner, created, status, next_at, data) "
                    "VALUES (?, ?, ?, ?, ?, ?)", (d.id, d.owner, d.created, d.status, d.next_at, d.pack())).rowcount
                    for d in deliveries)
        return await self._run(go) if deliveries else 0

    async def due_deliveries(self, now: int, limit: int) -> list[str]:
        return await self._run(lambda: [r[0] for r in self._db.execute(
            "SELECT id FROM deliveries WHERE status = 'pending' AND next_at <= ? ORDER BY next_at, id LIMIT ?",
            (now, limit))])

    async def claim_delivery(self, delivery_id: str, now: int, until: int) -> DeliveryRecord | None:
        def go() -> DeliveryRecord | None:
            with _tx(self._db, immediate=True):
                taken = self._db.execute(
                    "UPDATE deliveries SET next_at = ? WHERE id = ? AND status = 'pending' AND next_at <= ?",
                    (until, delivery_id, now)).rowcount
                if not taken:
                    return None
                row = self._db.execute("SELECT data FROM deliveries WHERE id = ?", (delivery_id,)).fetchone()
            d = DeliveryRecord.unpack(row[0])
            d.next_at = until
            return d
        return await self._run(go)

    async def save_delivery(self, delivery: DeliveryRecord) -> None:
        d = delivery
        await self._run(lambda: self._db.execute(
            "UPDATE deliveries SET status = ?, next_at = ?, data = ? WHERE id = ?",
            (d.status, d.next_at, d.pack(), d.id)))

    async def deliveries(self, owner: str, offset: int, limit: int) -> tuple[int, list[DeliveryRecord]]:
        def go() -> tuple[int, list[DeliveryRecord]]:
            total = self._db.execute("SELECT COUNT(*) FROM deliveries WHERE owner = ?", (owner,)).fetchone()[0]
            rows = self._db.execute("SELECT data FROM deliveries WHERE owner = ? ORDER BY created DESC, id "
                                    "LIMIT ? OFFSET ?", (owner, limit, offset))
            return int(total), [DeliveryRecord.unpack(r[0]) for r in rows]
        return await self._run(go)

    async def hook_cursor(self, match_id: str) -> int:
        row = await self._run(lambda: self._db.execute(
            "SELECT seq FROM hook_cursors WHERE match = ?", (match_id,)).fetchone())
        return int(row[0]) if row else 0

    async def set_hook_cursor(self, match_id: str, seq: int) -> None:
        await self._run(lambda: self._db.execute(
            "INSERT INTO hook_cursors (match, seq) VALUES (?, ?) "
            "ON CONFLICT (match) DO UPDATE SET seq = MAX(seq, excluded.seq)", (match_id, seq)))

    # -- the log --------------------------------------------------------------------------
    async def append(self, match_id: str, commit: Commit, own: object = None) -> None:
        refusal = rejection_key(commit.seat, commit.move_id) if commit.move_id is not None else None
        await self._append(match_id, commit.seq, commit.pack(), refusal)
        for t in self._tails.get(match_id, ()):
            if own is not None and t.own is own and t.after == commit.seq - 1:
                t.after = commit.seq  # its reader appended it and applies it: no wake-up
            else:
                t.push(commit)

    @guarded(unreachable)
    async def _append(self, match_id: str, seq: int, data: bytes, refusal: str | None) -> None:
        if self._closed:
            raise StoreUnavailable("the SQLite store is closed")
        await self._thread.run_grouped(self._append_group, (match_id, seq, data, refusal))

    def _append_group(self, appends: list[tuple[str, int, bytes, str | None]]) -> list[Conflict | Rejected | None]:
        """The appends waiting together (on the store's thread): one transaction, one fsync
        (synchronous=FULL), each append in a savepoint of its own so that one that conflicts
        fails alone. Nobody is answered before the COMMIT."""
        db = self._db
        out: list[Conflict | Rejected | None] = []
        several = len(appends) > 1
        db.execute("BEGIN IMMEDIATE")
        try:
            for match_id, seq, data, refusal in appends:
                if several:
                    db.execute("SAVEPOINT one")
                try:
                    (last,) = db.execute(
                        "SELECT COALESCE(MAX(seq), 0) FROM log WHERE match = ?", (match_id,)
                    ).fetchone()
                    if seq != last + 1:
                        raise Conflict(f"{match_id}: seq {seq} after {last}")
                    refused = self._refused(match_id, refusal) if refusal is not None else None
                    if refused is not None:
                        raise Rejected(*refused)
                    db.execute("INSERT INTO log (match, seq, commit_data) VALUES (?, ?, ?)",
                               (match_id, seq, data))
                except (Conflict, Rejected, sqlite3.IntegrityError) as exc:
                    conflict = exc if isinstance(exc, Conflict | Rejected) else Conflict(f"{match_id}: seq {seq} taken")
                    if several:
                        db.execute("ROLLBACK TO one")
                        db.execute("RELEASE one")
                    else:
                        db.execute("ROLLBACK")
                        return [conflict]
                    out.append(conflict)
                    continue
                if several:
                    db.execute("RELEASE one")
                out.append(None)
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise
        return out

    def _refused(self, match_id: str, key: str) -> tuple[str, str] | None:
        """The refusal remembered for `key` of the match, if any (on the store's thread)."""
        row = self._db.execute("SELECT code, message FROM rejections WHERE match = ? AND id = ? AND at > ?",
                               (match_id, key, int(time.time() * 1000) - REJECTION_TTL_MS)).fetchone()
        return (row[0], row[1]) if row is not None else None

    async def remember_rejection(self, match_id: str, seat: int | None, move_id: str, code: str,
                                 message: str) -> tuple[str, str]:
        key = rejection_key(seat, move_id)

        def go() -> tuple[str, str]:
            db = self._db
            now = int(time.time() * 1000)
            with _tx(db, immediate=True):
                known = self._refused(match_id, key)
                if known is not None:
                    return known
                (n,) = db.execute("SELECT COALESCE(MAX(n), 0) + 1 FROM rejections WHERE match = ?", (match_id,)).fetchone()
                db.execute("INSERT OR REPLACE INTO rejections (match, id, n, at, code, message) VALUES (?, ?, ?, ?, ?, ?)",
                           (match_id, key, n, now, code, message))
                # the oldest beyond the bound, and those past their time, are forgotten
                db.execute("DELETE FROM rejections WHERE match = ? AND (n <= ? OR at <= ?)",
                           (match_id, n - REMEMBERED_REJECTIONS, now - REJECTION_TTL_MS))
                return code, message
        return await self._run(go)

    async def read(self, match_id: str, after: int = 0, until: int | None = None) -> list[Commit]:
        top = until if until is not None else 1 << 62

        def go() -> list[Commit]:
            return [Commit.unpack(r[0]) for r in self._db.execute(
                "SELECT commit_data FROM log WHERE match = ? AND seq > ? AND seq <= ? ORDER BY seq",
                (match_id, after, top),
            )]
        return await self._run(go)

    async def last_seq(self, match_id: str) -> int:
        def go() -> int:
            return self._db.execute(
                "SELECT COALESCE(MAX(seq), 0) FROM log WHERE match = ?", (match_id,)
            ).fetchone()[0]
        return await self._run(go)

    async def tail(self, match_id: str, after: int, own: object = None) -> AsyncGenerator[Commit, None]:
        """The log from `after` on, for ever. Commits appended through this store come from
        the append itself (those appended with `own` right after what the tail has only move
        it on); the file is read at the start, after a gap, and every POLL_SECONDS while
        quiet (another process's commits; a log gone backwards)."""
        me = _Tail(after, own)
        self._tails.setdefault(match_id, []).append(me)
        loop = asyncio.get_running_loop()
        try:
            commits = await self.read(match_id, me.after)
            while True:
                for c in commits:
                    if c.seq <= me.after:
                        continue  # read from the file and handed by its append too, or our own
                    if c.seq != me.after + 1:
                        break  # a gap (another process appended in between): read it
                    # Moved on before the yield: an own append made while the reader holds
                    # this commit follows it directly, and needs no wake-up.
                    me.after = c.seq
                    yield c
                else:
                    commits = []
                if commits:
                    commits = await self.read(match_id, me.after)
                    continue
                if not me.pending:
                    me.waiter = waiter = loop.create_future()
                    timer = loop.call_later(POLL_SECONDS, _expire, waiter)
                    try:
                        await waiter
                    finally:
                        timer.cancel()
                        me.waiter = None
                if me.pending:
                    commits, me.pending = me.pending, []
                    continue
                # Quiet for a while: commits of another process? Is the file still as long as
                # what we have (a restored older copy of the file is a log gone backwards)?
                commits = await self.read(match_id, me.after)
                if not commits:
                    last = await self.last_seq(match_id)
                    if last < me.after:
                        raise LogRewound(match_id, me.after, last) from None
        finally:
            tails = self._tails.get(match_id)
            if tails is not None:
                tails.remove(me)
                if not tails:
                    del self._tails[match_id]

    # -- analyses ---------------------------------------------------------------------------
    async def save_analysis(self, match_id: str, analysis: dict[str, Any]) -> None:
        blob = msgpack.packb(analysis, use_bin_type=True)
        await self._run(lambda: self._db.execute(
            "INSERT OR REPLACE INTO analyses (match, analysis) VALUES (?, ?)", (match_id, blob)))

    async def load_analysis(self, match_id: str) -> dict[str, Any] | None:
        row = await self._run(lambda: self._db.execute(
            "SELECT analysis FROM analyses WHERE match = ?", (match_id,)).fetchone())
        return msgpack.unpackb(row[0], raw=False) if row else None

    # -- snapshots --------------------------------------------------------------------------
    async def save_snapshot(self, match_id: str, seq: int, state: dict[str, Any]) -> None:
        blob = pack_state(seq, state)
        await self._run(lambda: self._db.execute(
            "INSERT INTO snapshots (match, seq, state) VALUES (?, ?, ?) "
            "ON CONFLICT(match) DO UPDATE SET seq = excluded.seq, state = excluded.state "
            "WHERE excluded.seq > snapshots.seq",
            (match_id, seq, blob),
        ))

    async def load_snapshot(self, match_id: str) -> tuple[int, dict[str, Any]] | None:
        row = await self._run(lambda: self._db.execute(
            "SELECT state FROM snapshots WHERE match = ?", (match_id,)).fetchone())
        return unpack_state(row[0]) if row else None

    async def close(self) -> None:
        if self._closed:
            return
        await self._run(self._db.close)
        self._closed = True
        self._thread.stop()


class _tx:
    """BEGIN/COMMIT around a block on an autocommit connection."""

    def __init__(self, db: sqlite3.Connection, immediate: bool = False) -> None:
        self.db, self.immediate = db, immediate

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE" if self.immediate else "BEGIN")

    def __exit__(self, exc_type, exc, tb) -> None:
        self.db.execute("COMMIT" if exc_type is None else "ROLLBACK")


class _Tail:
    """One tailing reader: the last seq it has yielded (or moved past: its reader's own), its
    reader's token, the commits appended in this process that it has not yielded yet, and the
    future it waits on while it has none."""

    __slots__ = ("after", "own", "pending", "waiter")

    def __init__(self, after: int, own: object) -> None:
        self.after, self.own = after, own
        self.pending: list[Commit] = []
        self.waiter: asyncio.Future[None] | None = None

    def push(self, commit: Commit) -> None:
        self.pending.append(commit)
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_result(None)


def _expire(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)
