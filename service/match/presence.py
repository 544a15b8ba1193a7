"""Who is connected to a match: per match (MatchPresence), and across nodes (PresencePoller).

A match's presence is its connections over every node: a seat is present if any node holds a
connection for it. MatchPresence tells each watcher of a match when it changed for it.

With a shared store each node writes its connection counts per match and reads the other
nodes'. One loop per node does it for every loaded match in two batched round trips a
second (service/store: publish_presences, read_presences), so a node holding thousands of
matches runs one task, not thousands.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Protocol

from protocol import messages
from service.match.fanout import Fanout, Watcher
from service.match.projection import Frame, Projection
from service.store import EventStore, StoreUnavailable

log = logging.getLogger("teahouse.presence")

PRESENCE_POLL_S = 1.0
# While a match has watchers here, its entry is rewritten this often (others treat an entry
# older than the store's staleness limit as a node that died).
REFRESH_S = 10.0
PRESENCE_COALESCE_S = 0.05


class MatchPresence:
    """One match's presence as its watchers here are told it. A burst of joins or leaves is
    coalesced into one presence frame (one per change to every watcher would cost the square of
    the audience), and a watcher is sent one only when it changed for it."""

    def __init__(self, match_id: str, node: str, players: int, fanout: Fanout, projection: Projection) -> None:
        self.match_id, self.node, self.players = match_id, node, players
        self.fanout, self.projection = fanout, projection
        self._remote: Mapping[str, tuple[list[int], int]] = {}
        self._seen: dict[Watcher, dict[str, Any]] = {}  # the presence each watcher last received
        self._scheduled = False
        self.closed = False

    def current(self) -> dict[str, Any]:
        """The `presence` message now, over every node."""
        seats, spectators = self.fanout.counts(self.players)
        present = [n > 0 for n in seats]
        for node, (other_seats, other_specs) in self._remote.items():
            if node == self.node:
                continue
            present = [p or n > 0 for p, n in zip(present, other_seats, strict=False)]
            spectators += other_specs
        return messages.presence(self.match_id, present, spectators)

    def tell(self, watcher: Watcher, reply: str, ref: str | None = None) -> None:
        """Send `watcher` the presence now: it ends the answer to its request `reply` (join,
        spectate or resync), so it carries `reply` and the request's `ref` (SPEC 5.7). It is
        a map in v2 too (no compact form): a client tells it from a broadcast by `reply`."""
        current = self.current()
        self._seen[watcher] = current
        watcher.deliver(Frame(messages.answer_presence(current, reply, ref)).encoded(watcher.encoding))

    def changed(self) -> None:
        """The connections here changed: the others hear of it at the coalesced flush."""
        if not self._scheduled:
            self._scheduled = True
            asyncio.get_running_loop().call_later(PRESENCE_COALESCE_S, self._flush)

    def forget(self, watcher: Watcher) -> None:
        self._seen.pop(watcher, None)
        self.changed()

    def remote(self, by_node: Mapping[str, tuple[list[int], int]]) -> None:
        """The other nodes' counts for this match; tell the watchers if that changed it."""
        self._remote = by_node
        if not self.closed:
            self._broadcast()

    def _flush(self) -> None:
        self._scheduled = False
        if not self.closed:
            self._broadcast()

    def _broadcast(self) -> None:
        """Send the presence to every watcher for whom it changed (encoded once per encoding)."""
        current = self.current()
        frame = self.projection.presence(current)
        seen = self._seen
        for audience, group in list(self.fanout.watchers.items()):
            told = [w for w in group if seen.get(w) != current]
            for w in told:
                seen[w] = current
            if told:
                self.fanout.emit(audience, frame, told)


class Present(Protocol):
    """What the poller reads of a loaded match (service.match.runtime.MatchRuntime)."""

    @property
    def id(self) -> str: ...

    @property
    def closed(self) -> bool: ...

    @property
    def watched(self) -> bool: ...

    def local_counts(self) -> tuple[list[int], int]: ...

    def remote_presence(self, by_node: dict[str, tuple[list[int], int]]) -> None: ...


class PresencePoller:
    def __init__(self, store: EventStore, node: str, runtimes: Callable[[], Iterable[Present]]) -> None:
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
        watched_rts = [rt for rt in live if rt.watched]
        if watched_rts:
            remote = await self.store.read_presences([rt.id for rt in watched_rts])
            for rt in watched_rts:
                rt.remote_presence(remote.get(rt.id, {}))

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
