"""Whether a match is over follows from its log, not from the `finished` mark beside it.

The commit that ends a match and the mark that says so are two writes. A node that dies (or a
store that goes away) between them left a match whose log is over but whose record said live
for ever: its summary said `live`, its log and fork routes answered 409 and its seed was never
revealed. Whoever loads such a match folds its log, sees the game's status, and writes the
missing mark. A live match's runtime does the same for the matches it loads, and marks the
commit that ends the match itself (FinishMark).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from service.games import Game, fold, get_game
from service.match.committed import Committed
from service.match.fanout import Fanout
from service.match.projection import Frame, Projection
from service.ops import metrics
from service.store import EventStore, MatchRecord, StoreUnavailable
from service.store.base import EVENT_SCHEMA
from service.store.outage import Backoff

log = logging.getLogger("teahouse.settle")


def usable_snapshot(game: Game, snap: dict[str, Any]) -> bool:
    """A snapshot is a shortcut only under the rules and event schema that made it."""
    return snap.get("rules_version") == game.rules_version and snap.get("event_schema") == EVENT_SCHEMA


async def latest_state(store: EventStore, record: MatchRecord) -> tuple[int, dict[str, Any]]:
    """The match's seq and state now: its snapshot (if usable) and the commits after it."""
    game = get_game(record.game)
    seq, state = 0, game.initial(record.options, record.players)
    snap = await store.load_snapshot(record.id)
    if snap is not None and usable_snapshot(game, snap[1]):
        seq, state = snap[0], snap[1]["state"]
    for c in await store.read(record.id, seq):
        state = fold(game, c.events, state, record.rules_version)
        seq = c.seq
    return seq, state


def finished_result(game: Game, state: dict[str, Any]) -> dict[str, Any] | None:
    """The result if the state is over, else None."""
    status = game.status(state)
    return dict(status["result"] or {}) if status["finished"] else None


def note_repair(record: MatchRecord, seq: int) -> None:
    metrics.FINISHED_REPAIRED.inc()
    log.warning("match %s: its log is over at seq %d but it was not marked finished (a node or the store "
                "stopped between the two writes); marked finished now", record.id, seq,
                extra={"match": record.id})


async def settle(store: EventStore, record: MatchRecord) -> MatchRecord:
    """`record`, marked finished (in the store too) if its log says the match is over."""
    if record.finished or record.diverged is not None or not all(s.taken for s in record.seats):
        return record  # not started (no seat free before the start commit) or already settled
    seq, state = await latest_state(store, record)
    result = finished_result(get_game(record.game), state)
    if result is not None:
        await store.mark_finished(record.id, result)
        record.finished, record.result = True, result
        note_repair(record, seq)
    return record


class FinishMark:
    """A live match's `finished` mark: written when a commit ends the match (or when a load
    finds a log that is over and a record that never heard), then told to every watcher.

    The commit that ended the match is already in the log, so a store that fails here does not
    fail that move: the mark is retried in the background until it lands (and any load repairs
    it from the log too)."""

    def __init__(self, store: EventStore, record: MatchRecord, fanout: Fanout, projection: Projection,
                 on_finish: Callable[[str], None] | None = None) -> None:
        self.store, self.record, self.fanout, self.projection = store, record, fanout, projection
        self.on_finish = on_finish  # told the match's id once it is marked finished (the analysis queue)
        self.task: asyncio.Task | None = None  # marking finished, retried while the store is away

    async def loaded(self, seq: int, status: dict[str, Any]) -> None:
        """The position a load folded: the log is the truth, mark the record if it is over."""
        if status["finished"] and not self.record.finished:
            result = dict(status["result"] or {})
            self.record.finished, self.record.result = True, result
            note_repair(self.record, seq)
            await self._mark(result)

    async def on_commit(self, c: Committed) -> None:
        if c.status["finished"] and not self.record.finished:
            result = dict(c.status["result"] or {})
            self.record.finished, self.record.result = True, result
            await self._mark(result)
            self.fanout.send_all(self.frame(c.seq))

    def frame(self, seq: int) -> Frame:
        """The `finished` message (the match's result, its seed revealed)."""
        return self.projection.finished(seq, self.record.result, self.record.seed)

    async def _mark(self, result: dict[str, Any]) -> None:
        try:
            await self.store.mark_finished(self.record.id, result)
        except StoreUnavailable:
            self.task = asyncio.create_task(self._mark_later(result), name=f"finish {self.record.id}")
            return
        self._told()

    def _told(self) -> None:
        if self.on_finish is not None:
            self.on_finish(self.record.id)

    async def _mark_later(self, result: dict[str, Any]) -> None:
        backoff = Backoff()
        while True:
            await asyncio.sleep(backoff.delay())
            try:
                await self.store.mark_finished(self.record.id, result)
                self._told()
                return
            except StoreUnavailable:
                continue
