"""The turn clock of a match created with a time control (SPEC 3.10, service/match/time_control.py).

From each commit on, the seats to act have until the commit's time plus the seconds per move
(`turn_seconds`, or days per move), or, under a Fischer control, plus their own bank (folded
from the log). The clock tells every watcher the deadline (a `clock` message, with the banks
under Fischer), and when it passes plays for the seats whose time ran out: their first legal
move, or a bot's (the match's `absent` policy). Every
node watching the match runs it; the move id (`sys:clock:` + seq + seat) makes the timed-out
move commit once, whichever node fires first. A clock whose move fails (the store went away,
the match was busy) tries again: a clock that gives up stops the match for ever.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from protocol import messages
from service.bots import DEFAULT_STRENGTH
from service.games import Game, IllegalMove
from service.match import time_control
from service.match.committed import Busy, Committed, Submit, system_move_id
from service.match.fanout import Fanout
from service.match.projection import Frame
from service.ops import logs, metrics
from service.store import EventStore, MatchRecord, StoreUnavailable

log = logging.getLogger("teahouse.clock")

# A turn clock whose move failed tries again this soon.
CLOCK_RETRY_S = 1.0

# A seat bot playing one move for `seat` at a position (service.match.seat_bots.SeatBots.play_for).
PlayFor = Callable[[Committed, int, int, str], Awaitable[None]]


class TurnClock:
    def __init__(self, game: Game, record: MatchRecord, fanout: Fanout, submit: Submit, play_for: PlayFor) -> None:
        self.game, self.record, self.fanout = game, record, fanout
        self.submit, self.play_for = submit, play_for
        self.deadline: int | None = None  # what watchers were told last (None: no clock runs)
        self._at: Committed | None = None
        self._task: asyncio.Task | None = None
        # A Fischer clock's banks (ms per seat) as of the latest commit, and that commit's time.
        self.fischer = record.time_control if (record.time_control or {}).get("type") == "fischer" else None
        self.banks: list[int] | None = None
        self._last_ts = 0

    @property
    def task(self) -> asyncio.Task | None:
        return self._task

    async def load(self, store: EventStore) -> None:
        """Fold a Fischer clock's banks from the whole log (a snapshot keeps no banks: they are
        the log's times, read again)."""
        if self.fischer is not None:
            commits = await store.read(self.record.id, 0)
            self.banks, self._last_ts = time_control.fold(self.fischer, self.record.players,
                                                          time_control.played_here(self.record.forked_from, commits))

    def frame(self, seq: int) -> Frame | None:
        """The `clock` message at `seq` for a watcher that just came, if a clock runs."""
        if self.deadline is None:
            return None
        return Frame(messages.clock(self.record.id, seq, self.deadline, self.banks))

    def _charge(self, c: Committed) -> None:
        if self.fischer is None or c.commit is None:
            return
        if self.banks is None:
            self.banks = time_control.initial_banks(self.fischer, self.record.players)
        if self._last_ts:
            self.banks = time_control.charge(self.fischer, self.banks, self._last_ts, c.commit.seat, c.ts)
        self._last_ts = c.ts

    def _deadline(self, c: Committed) -> int | None:
        """When the first seat to act at `c` runs out of time (None: no clock runs there)."""
        status = c.status
        if c.seq == 0 or status["finished"] or not status["to_act"]:
            return None
        if self.fischer is not None and self.banks is not None:
            return c.ts + min(self.banks[s] for s in status["to_act"])
        seconds = self.record.turn_seconds
        return c.ts + seconds * 1000 if seconds else None

    def on_commit(self, c: Committed) -> None:
        """(Re)start the clock for the position `c`, and tell the watchers if it changed (a
        running clock's deadline always does)."""
        self._at = c
        self.stop()
        self._charge(c)
        if not self.record.turn_seconds and self.fischer is None and self.deadline is None:
            return  # no clock, and none announced: nothing to say
        deadline = self._deadline(c)
        if deadline != self.deadline or deadline is not None:
            self.deadline = deadline
            # (a delayed match's spectators are not told: the deadline dates the live position)
            self.fanout.send_all(Frame(messages.clock(self.record.id, c.seq, deadline, self.banks)),
                                 spectators=not self.record.spectator_delay)
        if deadline is not None:
            self._task = asyncio.create_task(self._expire(c, deadline), name=f"clock {self.record.id}")

    def stop(self) -> None:
        """Stop waiting for the current deadline (the match moved on, or stops here)."""
        if self._task is not None:
            self._task.cancel()
            self._task = None

    def _current(self, at: Committed) -> bool:
        return self._at is at

    async def _expire(self, at: Committed, deadline: int) -> None:
        logs.MATCH.set(self.record.id)
        # (the loop's timer may wake a hair before the wall clock's deadline: the move it plays
        # is dated after the deadline, so that a Fischer bank it ends is spent, never 1 ms short)
        while (left := deadline / 1000 - time.time()) > 0:
            await asyncio.sleep(left)
        if self._current(at):
            metrics.CLOCK_EXPIRIES.inc()
        # Until the match moves on (which cancels this task), keep trying.
        while self._current(at):
            try:
                await self._play(at, deadline)
            except asyncio.CancelledError:
                raise
            except (StoreUnavailable, Busy):
                pass  # said once for the node by the store's reachability; or the match moved on
            except Exception as exc:
                log.warning("turn clock of %s failed at seq %d (%s); retrying", self.record.id, at.seq, exc)
            await asyncio.sleep(CLOCK_RETRY_S)

    async def _play(self, at: Committed, deadline: int) -> None:
        """A move for each seat to act at `at` whose time ran out (under Fischer, those whose
        bank is spent; otherwise every one)."""
        banks = self.banks if self.fischer is not None else None
        for seat in at.status["to_act"]:
            if banks is not None and at.ts + banks[seat] > deadline:
                continue  # its own bank runs on
            moves: list[dict[str, Any]] = self.game.legal_moves(at.state, seat)
            if not moves or not self._current(at):
                continue
            if self.record.absent in ("bot", "random"):
                # The absent seat's move comes from a bot (strength 0 plays at random).
                await self.play_for(at, seat, DEFAULT_STRENGTH if self.record.absent == "bot" else 0, "clock")
                continue
            try:
                await self.submit(seat, moves[0], system_move_id("clock", at.seq, seat), at_seq=at.seq)
            except IllegalMove:
                pass  # the state moved on under the clock: the new seq has a clock of its own
