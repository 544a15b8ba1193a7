"""Analysis after the end (protocol/SPEC.md 2.14): a finished match's win chances at every commit
and its key moments (service/bots/chances.py), made once per match in the background and kept
in the store beside its log.

Off by default (the `analysis` limit, `teahouse serve --analysis`). The queue is not kept
anywhere: it is what the store holds, finished matches without an analysis, so a node that
restarts picks up where it stopped. A node queues a match when it sees it finish, when someone
asks for its analysis, and on a scan of every match at its start and every `rescan_s` after
(matches that finished on other nodes). Several nodes may analyse the same match: the result is
the same (it is deterministic), so the second write changes nothing.

The work runs in one worker process of its own (spawned, lowered in priority like the bots'),
one match at a time: the CPU it takes is bounded per match by the playouts per commit, and the
bots' pool never waits behind it. Stopping the node ends the worker at once (a multiprocessing
pool's terminate): an analysis half made is simply made again after the restart.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
from multiprocessing.pool import Pool
from typing import Any

from service.bots import chances
from service.bots.pool import worker_setup
from service.store import EventStore, StoreUnavailable

log = logging.getLogger("teahouse.analysis")

PAGE = 200


class Analyst:
    def __init__(self, store: EventStore, playouts: int, rescan_s: float = 60.0) -> None:
        self.store, self.playouts, self.rescan_s = store, playouts, rescan_s
        self._queue: asyncio.Queue[str] = asyncio.Queue()
        self._waiting: list[str] = []   # queued, in order (what a 202 answer counts)
        self._known: set[str] = set()   # analysed (or refused) here: no need to look again
        self.running: str | None = None
        self._tasks: list[asyncio.Task] = []
        self._pool: Pool | None = None

    def start(self) -> None:
        self._tasks = [asyncio.create_task(self._scan_forever(), name="analysis scan"),
                       asyncio.create_task(self._work_forever(), name="analysis")]

    def finished(self, match_id: str) -> None:
        """Queue a match that is over (again harmless: a queued or known match is skipped)."""
        if match_id in self._known or match_id in self._waiting or match_id == self.running:
            return
        self._waiting.append(match_id)
        self._queue.put_nowait(match_id)

    def ahead(self, match_id: str) -> int | None:
        """How many matches are analysed before this one (0: it is being analysed, or next), or
        None when it is not queued on this node."""
        if match_id == self.running:
            return 0
        if match_id in self._waiting:
            return self._waiting.index(match_id) + (self.running is not None)
        return None

    async def scan(self) -> int:
        """Queue every finished match of the store that has no analysis; return how many."""
        queued = 0
        offset = 0
        while recs := await self.store.all_matches(offset, PAGE):
            for rec in recs:
                if not rec.finished or rec.id in self._known or rec.id in self._waiting or rec.id == self.running:
                    continue
                if await self.store.load_analysis(rec.id) is not None:
                    self._known.add(rec.id)  # made before (here, before a restart, or by another node)
                    continue
                self.finished(rec.id)
                queued += 1
            offset += len(recs)
        return queued

    async def _scan_forever(self) -> None:
        while True:
            try:
                await self.scan()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the store went away: the next round tries again
                log.warning("analysis scan failed (%s); trying again in %g s", exc, self.rescan_s)
            await asyncio.sleep(self.rescan_s)

    async def _work_forever(self) -> None:
        while True:
            match_id = await self._queue.get()
            self._waiting.remove(match_id)
            self.running = match_id
            try:
                await self.analyse(match_id)
                self._known.add(match_id)
            except asyncio.CancelledError:
                raise
            except StoreUnavailable as exc:
                log.warning("%s: not analysed, the store is away (%s); a later scan queues it again", match_id, exc)
            except Exception:
                log.exception("%s: the analysis failed", match_id)
                self._known.add(match_id)  # the same log would fail the same way
            finally:
                self.running = None

    async def analyse(self, match_id: str) -> dict[str, Any] | None:
        """Analyse one finished match now and keep the analysis (unless one is kept already)."""
        rec = await self.store.get_match(match_id)
        if rec is None or not rec.finished or rec.diverged is not None:
            return None
        kept = await self.store.load_analysis(match_id)
        if kept is not None:
            return kept
        commits = [{"seq": c.seq, "seat": c.seat, "events": c.events} for c in await self.store.read(match_id)]
        doc = await self._in_worker(rec.game, rec.options, rec.players, rec.rules_version, commits, rec.seed)
        doc = {"match": match_id, "seq": len(commits), **doc}
        await self.store.save_analysis(match_id, doc)
        log.info("%s: analysed (%d commits, %d playouts each)", match_id, len(commits), self.playouts)
        return doc

    async def _in_worker(self, *args: Any) -> dict[str, Any]:
        """chances.analyse in the worker process, awaited without blocking the loop."""
        if self._pool is None:
            self._pool = multiprocessing.get_context("spawn").Pool(1, initializer=worker_setup)
        loop = asyncio.get_running_loop()
        done: asyncio.Future[dict[str, Any]] = loop.create_future()

        def settle(value: Any, failed: bool = False) -> None:
            if not done.done():
                (done.set_exception if failed else done.set_result)(value)

        self._pool.apply_async(chances.analyse, (*args, self.playouts),
                               callback=lambda v: loop.call_soon_threadsafe(settle, v),
                               error_callback=lambda e: loop.call_soon_threadsafe(settle, e, True))
        return await done

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._pool is not None:
            # (a match may be half analysed: it is still without one in the store, so the next
            # start queues it again; nothing waits for it)
            pool, self._pool = self._pool, None
            await asyncio.to_thread(pool.terminate)
