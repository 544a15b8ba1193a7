"""Retention: finished matches older than Limits.retention_days are archived (unlisted, their
log kept and still readable by id) or deleted, by a task that wakes every retention_check_s,
off the request path. Every node may run it: archiving or deleting twice is harmless.

A match's age is counted from its last commit (the one that finished it), or from its
creation when it has none.

An open fork that nobody joined (no person's seat ever joined it) expires after the same number
of days, counted from its creation, and is deleted under either action: it holds nothing but a
copy of its origin's history, which its origin keeps.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable

from service.store import EventStore, MatchRecord

log = logging.getLogger("teahouse.retention")

DAY_MS = 86_400_000
PAGE = 200


async def finished_at(store: EventStore, rec: MatchRecord) -> int:
    last = await store.last_seq(rec.id)
    commits = await store.read(rec.id, last - 1, last) if last else []
    return commits[-1].ts if commits else rec.created


def abandoned_fork(rec: MatchRecord) -> bool:
    """A fork still being waited for that no person has joined (its bots' seats do not count)."""
    if rec.finished or not rec.forked_from:
        return False
    bots = rec.bots or []
    return not any(s.joined for s in rec.seats if not (s.seat < len(bots) and bots[s.seat] is not None))


async def sweep(store: EventStore, days: int, action: str, now_ms: int | None = None,
                forget: Callable[[str], Awaitable[None]] | None = None) -> list[str]:
    """Archive or delete every finished match older than `days`; return their ids."""
    if not days:
        return []
    cutoff = (now_ms if now_ms is not None else int(time.time() * 1000)) - days * DAY_MS
    done: list[str] = []
    offset = 0
    while recs := await store.all_matches(offset, PAGE):
        removed = 0
        for rec in recs:
            if abandoned_fork(rec):
                if rec.created <= cutoff:
                    await store.delete_match(rec.id)
                    removed += 1
                    if forget is not None:
                        await forget(rec.id)
                    done.append(rec.id)
                continue
            if not rec.finished or (action == "archive" and not rec.listed):
                continue
            if await finished_at(store, rec) > cutoff:
                continue
            if action == "delete":
                await store.delete_match(rec.id)
                removed += 1
                if forget is not None:
                    await forget(rec.id)
            else:
                await store.set_listed(rec.id, False)
            done.append(rec.id)
        offset += len(recs) - removed
    if done:
        log.info("retention: %s %d finished matches older than %d days", action + "d", len(done), days)
    return done


async def run_forever(store: EventStore, days: int, action: str, every_s: float,
                      forget: Callable[[str], Awaitable[None]] | None = None) -> None:
    while True:
        await asyncio.sleep(every_s)
        try:
            await sweep(store, days, action, forget=forget)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the store went away: the next round tries again
            log.warning("retention sweep failed (%s); trying again in %g s", exc, every_s)
