"""Backups and restores of a store (`teahouse backup`, `teahouse restore`; docs/operators.md,
Backup and restore).

- A live SQLite store is copied with SQLite's online backup API: one consistent snapshot of the
  file, taken while the server goes on writing (in WAL mode a reader does not block writers).
- A Redis store is exported match by match with the admin API (GET /admin/matches/ID/log): a
  record line, then one line per commit (JSON Lines or msgpack).

`restore` writes either kind into an empty store of any backend: each match's record, its seats,
its log as written, and its finished and diverged marks. Snapshots are not copied (a shortcut
only: the first load folds the log). An export leaves out the seat tokens' and the spectator
key's hashes, so a match restored from an export keeps its taken seats and their names but no
token can join them again, and a match watched by link can be read by its seats only.
"""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator, Iterable, Iterator
from pathlib import Path
from typing import Any

import msgpack
import orjson

from service.store.base import Commit, EventStore, MatchRecord, SeatRecord
from service.store.sqlite import SqliteStore, database_file

# Stands for a seat token's hash that the export left out: no token hashes to it (hashes are hex).
UNKNOWN_TOKEN = "restored: token not exported"


def sqlite_backup(store_path: str | Path, out: str | Path) -> int:
    """Copy the SQLite store at `store_path` (as `--store sqlite:PATH` names it) to the new file
    `out`, online; return the pages copied. Blocking: run it off any event loop."""
    source, target = database_file(store_path), Path(out)
    if not source.is_file():
        raise FileNotFoundError(f"no SQLite store at {source}")
    if target.exists():
        raise FileExistsError(f"{target} exists; a backup never overwrites a file")
    src = sqlite3.connect(source, timeout=30)
    dst = sqlite3.connect(target)
    try:
        src.backup(dst)  # all pages in one step: one consistent snapshot, writers go on meanwhile
        return int(dst.execute("PRAGMA page_count").fetchone()[0])
    finally:
        dst.close()
        src.close()


Match = tuple[MatchRecord, list[Commit]]


def read_export(path: str | Path) -> Iterator[Match]:
    """The matches of one admin export file (JSON Lines or msgpack; several files may be
    concatenated): a `record` item, then its `commit` items."""
    data = Path(path).read_bytes()
    items: Iterable[dict[str, Any]]
    if data[:1] == b"{":
        items = (orjson.loads(line) for line in data.splitlines() if line.strip())
    else:
        unpacker = msgpack.Unpacker(raw=False, strict_map_key=False)
        unpacker.feed(data)
        items = unpacker
    rec: MatchRecord | None = None
    commits: list[Commit] = []
    for item in items:
        if "record" in item:
            if rec is not None:
                yield rec, commits
            rec, commits = exported_record(item["record"]), []
        elif "commit" in item and rec is not None:
            commits.append(Commit(**item["commit"]))
        else:
            raise ValueError(f"{path}: a line is neither a record nor a commit of one")
    if rec is not None:
        yield rec, commits


def exported_record(data: dict[str, Any]) -> MatchRecord:
    seats = [SeatRecord(**{**s, "token_hash": UNKNOWN_TOKEN if s.get("taken") else None}) for s in data["seats"]]
    fields = {k: v for k, v in data.items() if k != "seats"}
    return MatchRecord(**fields, seats=seats)


async def read_store(store: EventStore, page: int = 100) -> AsyncIterator[Match]:
    """Every match of a store (an SQLite backup file opened as a store), with its log."""
    offset = 0
    while True:
        recs = await store.all_matches(offset, page)
        for rec in recs:
            yield rec, await store.read(rec.id)
        if len(recs) < page:
            return
        offset += page


async def restore(target: EventStore, matches: AsyncIterator[Match]) -> tuple[int, int]:
    """Write every match into `target`, which must hold none; return (matches, commits)."""
    if await target.all_matches(0, 1):
        raise ValueError("the target store already holds matches: restore writes into an empty store only")
    n = commits_written = 0
    async for rec, commits in matches:
        finished, result, diverged = rec.finished, rec.result, rec.diverged
        await target.create_match(rec, commits)
        if finished:
            await target.mark_finished(rec.id, result)
        if diverged is not None:
            await target.mark_diverged(rec.id, diverged)
        n += 1
        commits_written += len(commits)
    return n, commits_written


async def restore_files(target: EventStore, sources: list[str]) -> tuple[int, int]:
    """Restore from SQLite backup files and admin export files (told apart by their first bytes)."""
    async def every() -> AsyncIterator[Match]:
        for path in sources:
            with open(path, "rb") as f:
                magic = f.read(16)
            if magic == b"SQLite format 3\x00":
                store = SqliteStore(path)
                try:
                    async for match in read_store(store):
                        yield match
                finally:
                    await store.close()
            else:
                for match in read_export(path):
                    yield match
    return await restore(target, every())
