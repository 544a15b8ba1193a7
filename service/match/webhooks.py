"""The node's webhooks: what derives the outbox from the log, and the courier that empties it.

After a runtime applies a commit (its own or another node's), its `MatchNotices` works out, in a
task of its own and never on the commit's path, the deliveries the commit implies for the
players seated there who registered hooks (service/match/notices.py), writes them to the store's
outbox and moves the match's cursor past the commit. At the position a commit reaches under a
time control it also waits for the seats' `clock_low` times.

A node can die between a commit and that write. So every node also sweeps: at its start and
every `sweep_s` seconds it looks at the matches of every player with a hook, and derives what
the commits after a match's cursor imply from the log. Deriving is idempotent (the delivery ids
are functions of the log), so the sweep and the runtimes, and several nodes, may all derive the
same commit: each delivery is still written once. The courier (service/match/courier.py) sends it.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from service.match import notices
from service.match.committed import Committed
from service.match.courier import Courier
from service.match.ratings import Ratings
from service.ops import crash_points, logs
from service.store import DeliveryRecord, EventStore, HookRecord, MatchRecord, StoreUnavailable

log = logging.getLogger("teahouse.webhooks")

OWNERS_TTL_S = 2.0  # a hook registered on another node is heard of this soon


class Webhooks:
    def __init__(self, store: EventStore, courier: Courier, ratings: Ratings | None, sweep_s: float) -> None:
        self.store, self.courier, self.ratings, self.sweep_s = store, courier, ratings, sweep_s
        self._owners: set[str] = set()
        self._owners_at = -OWNERS_TTL_S
        self._sweeper: asyncio.Task | None = None

    def start(self) -> None:
        self.courier.start()
        self._sweeper = asyncio.create_task(self._sweep_forever(), name="webhook sweep")

    async def close(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
            await asyncio.gather(self._sweeper, return_exceptions=True)
        await self.courier.close()

    def changed(self) -> None:
        """A hook was registered or deleted on this node: read the owners again."""
        self._owners_at = -OWNERS_TTL_S

    async def owners(self) -> set[str]:
        if time.monotonic() - self._owners_at >= OWNERS_TTL_S:
            self._owners = set(await self.store.hook_owners())
            self._owners_at = time.monotonic()
        return self._owners

    async def hooks_of(self, players: Iterable[str | None]) -> dict[str, list[HookRecord]]:
        """The hooks that may hear of `players`, by owner: theirs, and their apps' own."""
        owners = await self.owners()
        wanted = notices.owners_of(players) & owners
        return {p: hooks for p in sorted(wanted) if (hooks := await self.store.hooks(p))}

    async def write(self, deliveries: Sequence[DeliveryRecord]) -> None:
        if not deliveries:
            return
        # A fault test stops the node here: after the commit, before its outbox is written.
        crash_points.reached("webhooks.derived")
        if await self.store.add_deliveries(deliveries):
            self.courier.wake()

    async def catch_up(self, record: MatchRecord, hooks: Mapping[str, Sequence[HookRecord]] | None = None) -> int:
        """Derive what the match's commits after its cursor imply, from its log; returns the
        seq derived up to."""
        cursor = await self.store.hook_cursor(record.id)
        last = await self.store.last_seq(record.id)
        if last <= cursor:
            return cursor
        if hooks is None:
            hooks = await self.hooks_of(notices.seat_players(record))
        if hooks and await self._after(record.id, last, hooks):
            commits = await self.store.read(record.id, 0, last)
            await self.write(notices.from_log(record, hooks, commits, cursor, await self._ratings(record)))
        await self.store.set_hook_cursor(record.id, last)
        return last

    async def _after(self, match_id: str, last: int, hooks: Mapping[str, Sequence[HookRecord]]) -> bool:
        """Whether the match's last commit came after one of the hooks was registered (a hook hears
        nothing older: a player's past matches are not folded when it registers its first hook)."""
        top = await self.store.read(match_id, last - 1, last)
        return bool(top) and top[0].ts >= min(h.created for found in hooks.values() for h in found)

    async def _ratings(self, record: MatchRecord) -> list[dict[str, Any]] | None:
        if self.ratings is None:
            return None
        fresh = await self.store.get_match(record.id)
        if fresh is None or not fresh.finished:
            return None
        return await self.ratings.match_changes(record.game, record.id)

    async def sweep(self) -> None:
        for owner in sorted(await self.owners()):
            for match_id in await self.store.player_matches(owner):
                if await self.store.last_seq(match_id) <= await self.store.hook_cursor(match_id):
                    continue
                record = await self.store.get_match(match_id)
                if record is not None:
                    await self.catch_up(record)

    async def _sweep_forever(self) -> None:
        while True:
            try:
                self.changed()
                await self.sweep()
            except asyncio.CancelledError:
                raise
            except StoreUnavailable:
                pass
            except Exception:
                log.exception("the webhook sweep failed; trying again at the next one")
            await asyncio.sleep(self.sweep_s)

    def for_match(self, record: MatchRecord) -> MatchNotices:
        return MatchNotices(self, record)


class MatchNotices:
    """One runtime's subscriber: the deliveries of each commit it applies, in seq order, and the
    `clock_low` timer of its current position."""

    def __init__(self, hooks: Webhooks, record: MatchRecord) -> None:
        self.hooks, self.record = hooks, record
        self._before: dict[str, Any] | None = None
        self._jobs: asyncio.Queue[tuple[dict[str, Any] | None, Committed, list[dict[str, Any]] | None]] = \
            asyncio.Queue()
        self._worker: asyncio.Task | None = None
        self._low: asyncio.Task | None = None
        self._cursor: int | None = None

    @property
    def tasks(self) -> list[asyncio.Task]:
        return [t for t in (self._worker, self._low) if t is not None]

    def on_commit(self, c: Committed, ratings: list[dict[str, Any]] | None, banks: Sequence[int] | None) -> None:
        before, self._before = self._before, c.status
        self._jobs.put_nowait((before, c, ratings))
        if self._worker is None:
            self._worker = asyncio.create_task(self._work(), name=f"webhooks {self.record.id}")
        self._watch_clock(c, banks)

    def stop(self) -> None:
        for t in self.tasks:
            t.cancel()

    async def _work(self) -> None:
        logs.MATCH.set(self.record.id)
        while True:
            before, c, ratings = await self._jobs.get()
            try:
                await self._derive(before, c, ratings)
            except asyncio.CancelledError:
                raise
            except StoreUnavailable:
                pass  # the sweep derives it from the log once the store is back
            except Exception:
                log.exception("deriving the webhooks of %s at seq %d failed; the sweep will", self.record.id, c.seq)

    async def _derive(self, before: dict[str, Any] | None, c: Committed, ratings: list[dict[str, Any]] | None) -> None:
        hooks = await self.hooks.hooks_of(notices.seat_players(self.record))
        if not hooks:
            return
        if self._cursor is None:
            self._cursor = await self.hooks.store.hook_cursor(self.record.id)
        if self._cursor >= c.seq:
            return
        if c.commit is None or self._cursor < c.seq - 1:
            # Loaded, or commits this runtime did not see derived: from the log.
            self._cursor = await self.hooks.catch_up(self.record, hooks)
            return
        await self.hooks.write(notices.implied(self.record, hooks, before, c.commit, c.status, ratings))
        await self.hooks.store.set_hook_cursor(self.record.id, c.seq)
        self._cursor = c.seq

    def _watch_clock(self, c: Committed, banks: Sequence[int] | None) -> None:
        if self._low is not None:
            self._low.cancel()
            self._low = None
        times = notices.low_times(self.record, c.status, c.ts, banks)
        if times and c.seq > 0:
            deadlines = self._deadlines(c, banks)
            self._low = asyncio.create_task(self._clock_low(c.seq, times, deadlines),
                                            name=f"clock_low {self.record.id}")

    def _deadlines(self, c: Committed, banks: Sequence[int] | None) -> dict[int, int]:
        seats = list(c.status.get("to_act") or [])
        if banks is not None and (self.record.time_control or {}).get("type") == "fischer":
            return {s: c.ts + banks[s] for s in seats}
        seconds = self.record.turn_seconds or 0
        return {s: c.ts + seconds * 1000 for s in seats}

    async def _clock_low(self, seq: int, times: dict[int, int], deadlines: dict[int, int]) -> None:
        logs.MATCH.set(self.record.id)
        for due, seat in sorted((t, s) for s, t in times.items()):
            while (left := due / 1000 - time.time()) > 0:
                await asyncio.sleep(left)
            for attempt in range(3):
                try:
                    hooks = await self.hooks.hooks_of([notices.seat_players(self.record)[seat]])
                    await self.hooks.write(notices.clock_low(self.record, hooks, seq, seat, due, deadlines[seat]))
                    break
                except StoreUnavailable:
                    await asyncio.sleep(1.0 + attempt)
