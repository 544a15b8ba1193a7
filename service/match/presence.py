"""Presence across nodes, polled once per node for all its matches (not once per match).

With a shared store each node writes its connection counts per match and reads the other
nodes'. One loop per node does it for every loaded match in two batched round trips a
second (service/store: publish_presences, read_presences), so a node holding thousands of
matches runs one task, not thousands.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Iterable

from service.match.runtime import MatchRuntime
from service.store import EventStore, StoreUnavailable

log = logging.getLogger("teahouse.presence")

PRESENCE_POLL_S = 1.0
# While a match has watchers here, its entry is rewritten this often (others treat an entry
# older than the store's staleness limit as a node that died).
REFRESH_S = 10.0


class PresencePoller:
    def __init__(self, store: EventStore, node: str, runtimes: Callable[[], Iterable[MatchRuntime]]) -> None:
        self.store, self.node, self.runtimes = store, node, runtimes
        self._published: dict[str, tuple[tuple[int, ...], int, float]] = {}
        self._task: asyncio.Task | None = None

    def start(self) -> None:
        if self.store.shared:
            self._task = asyncio.create_task(self._run(), name="presence")

    async def _run(self) -> None:
        while True:
            try:
                await self.poll()
            except asyncio.CancelledError:
                raise
            except StoreUnavailable:
                pass  # said once for the node by the store's reachability
            except Exception as exc:  # the store went away: try again next second
                log.warning("presence poll failed (%s); retrying", exc)
            await asyncio.sleep(PRESENCE_POLL_S)

    async def poll(self) -> None:
        now = time.monotonic()
        live = [rt for rt in self.runtimes() if not rt.closed]
        changed: dict[str, tuple[list[int], int]] = {}
        for rt in live:
            seats, specs = rt.local_counts()
            last = self._published.get(rt.id)
            watched = any(seats) or specs
            if last is None and not watched:
                continue
            if last is None or last[:2] != (tuple(seats), specs) or (watched and now - last[2] > REFRESH_S):
                changed[rt.id] = (seats, specs)
                self._published[rt.id] = (tuple(seats), specs, now)
        if changed:
            await self.store.publish_presences(self.node, changed)
        ids = {rt.id for rt in live}
        for match in [m for m, (seats, specs, _) in self._published.items()
                      if (not any(seats) and not specs) or m not in ids]:
            del self._published[match]  # published as gone (or closed, which says so): nothing to refresh
        watched_rts = [rt for rt in live if rt.watchers]
        if watched_rts:
            remote = await self.store.read_presences([rt.id for rt in watched_rts])
            for rt in watched_rts:
                rt.remote_presence(remote.get(rt.id, {}))

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
