"""The spectators of a match with a spectator delay: a runtime subscriber that holds their
audience behind the live match (service/match/spectators.py says by how much).

The spectators get a projection of their own, which moves only when the delay lets a commit
go: their patches are the same gap-free stream as anyone's, each one later. The commits not yet
released are kept (a commit and the state after it); a delay in seconds is released by a timer
too, so a commit goes out on time even when no commit follows it. When the match finishes
everything is released at once: nothing is left to protect.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable
from typing import Any

from service.games import Game
from service.match.committed import Committed
from service.match.fanout import Fanout
from service.match.narration import commit_sentences
from service.match.projection import Projection
from service.match.spectators import now_ms, released
from service.store import Commit, MatchRecord


class DelayedSpectators:
    def __init__(self, game: Game, record: MatchRecord, fanout: Fanout, names: Callable[[], list[str]],
                 ref: int) -> None:
        assert record.spectator_delay
        self.game, self.record, self.fanout, self._names = game, record, fanout, names
        self.delay = record.spectator_delay
        self.projection = Projection(game, record.id, ref)
        # The spectators' position: the last released commit and the state after it.
        self.seq = 0
        self.state: dict[str, Any] = game.initial(record.options, record.players)
        self.status: dict[str, Any] | None = None
        self._held: deque[tuple[Commit, dict[str, Any], dict[str, Any] | None]] = deque()
        self._live = 0
        self._timer: asyncio.TimerHandle | None = None

    def loaded(self, c: Commit, state: dict[str, Any]) -> None:
        """A commit of the log as the runtime loads it (nobody watches yet: nothing is sent)."""
        self._held.append((c, state, None))
        self._live = c.seq
        self._release(False)

    def on_commit(self, done: Committed) -> None:
        if done.commit is not None:
            self._held.append((done.commit, done.state, done.status))
            self._live = done.seq
        self._release(bool(done.status.get("finished")))

    def _release(self, everything: bool) -> None:
        now = now_ms()
        while self._held:
            c, state, status = self._held[0]
            if not everything and not released(self.delay, c.seq, c.ts, self._live, now):
                break
            self._held.popleft()
            self._show(c, state, status)
        self._schedule()

    def _show(self, c: Commit, state: dict[str, Any], status: dict[str, Any] | None) -> None:
        self.seq, self.state = c.seq, state
        if not self.fanout.watchers.get(None):
            self.status = status  # (nobody to send it to: the next spectator starts from here)
            return
        status = status if status is not None else dict(self.game.status(state))
        said = commit_sentences(self.game, c.seat, c.command, c.events, c.move_id, self._names(), state, status)
        frames = self.projection.advance(state, c.seq, said, status=status)
        self.status = status
        self.fanout.send(frames)

    def _schedule(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._held and "seconds" in self.delay:
            due = self._held[0][0].ts + self.delay["seconds"] * 1000
            wait = max(0.0, (due - now_ms()) / 1000)
            self._timer = asyncio.get_running_loop().call_later(wait, self._release, False)

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
