"""A match's watchers on this node and handing each commit's frames to them.

Every connection watching the match belongs to one audience (a seat, or the spectators, None).
A frame is encoded once per encoding and the same bytes go to every connection of that encoding.
A crowd is not written in one go: see FANOUT_CHUNK.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Iterable, Mapping
from typing import Protocol

from service.match.committed import Committed
from service.match.projection import Audience, Frame

# A broadcast writes at most this many connections' frames in one turn of the event loop; an
# audience larger than that (a crowd of spectators) gets its frames in the next turns, in order,
# after the seats have theirs: a thousand sockets written in one go would hold the loop (and
# every other match on this node) for several milliseconds.
FANOUT_CHUNK = 200


class Watcher(Protocol):
    """A connection watching a match (service.ws.session.Session implements it)."""

    encoding: str

    def deliver(self, data: bytes) -> None:
        """Write or queue one message's bytes without waiting; a watcher whose queue is full
        cuts itself off."""


def fan_out(frame: Frame, watchers: Iterable[Watcher]) -> None:
    """Hand `frame` to every watcher: the bytes of an encoding are looked up once per run of
    watchers of that encoding, not once per watcher (and the same bytes object goes to each, so
    the transport frames it once: service/ws/wire.py)."""
    encoding = None
    data = b""
    for w in watchers:
        if w.encoding != encoding:
            encoding = w.encoding
            data = frame.encoded(encoding)
        w.deliver(data)


class Fanout:
    """The watchers of one match by audience, and the frames of a broadcast not yet handed to
    all of them.

    Deferred frames are kept in order; the head entry is sent from index `_later_at` on. A later
    frame for the same audience queues behind them; `flush` (before a resync's answer, or when
    a watcher leaves) sends them all first, so that no watcher sees its frames out of order or
    after it left."""

    def __init__(self) -> None:
        self.watchers: dict[Audience, set[Watcher]] = {}
        self._later: list[tuple[Audience, Frame, list[Watcher]]] = []
        self._later_at = 0
        self._later_handle: asyncio.Handle | None = None

    def add(self, watcher: Watcher, audience: Audience) -> None:
        self.watchers.setdefault(audience, set()).add(watcher)

    def remove(self, watcher: Watcher) -> list[Audience]:
        """Take `watcher` out of every audience (after sending it what was deferred); return the
        audiences nobody watches any more."""
        self.flush()
        emptied = []
        for audience, group in list(self.watchers.items()):
            if watcher in group:
                group.discard(watcher)
                if not group:
                    del self.watchers[audience]
                    emptied.append(audience)
        return emptied

    def counts(self, players: int) -> tuple[list[int], int]:
        """Connections here per seat, and spectators."""
        return [len(self.watchers.get(s, ())) for s in range(players)], len(self.watchers.get(None, ()))

    def on_commit(self, c: Committed) -> None:
        self.send(c.frames)

    def send(self, frames: Mapping[Audience, Frame]) -> None:
        """Each audience's frame to its watchers."""
        for audience, frame in frames.items():
            group = self.watchers.get(audience)
            if group:
                self.emit(audience, frame, group)

    def send_all(self, frame: Frame, spectators: bool = True) -> None:
        """One frame to every watcher, whatever its audience (not to the spectators unless
        `spectators`: a frame about the live position, which a spectator delay holds back)."""
        for audience, group in list(self.watchers.items()):
            if spectators or audience is not None:
                self.emit(audience, frame, group)

    def emit(self, audience: Audience, frame: Frame, group: Iterable[Watcher]) -> None:
        """`frame` to the watchers in `group` (of `audience`): at once, unless the group is a
        crowd (more than FANOUT_CHUNK connections: the spectators) or the audience still has
        deferred frames; then in the next turns of the loop, after the seats have theirs."""
        group = list(group)
        if len(group) <= FANOUT_CHUNK and not any(a == audience for a, _, _ in self._later):
            fan_out(frame, group)
            return
        self._later.append((audience, frame, group))
        if self._later_handle is None:
            self._later_handle = asyncio.get_running_loop().call_soon(self._send_later)

    def encode_ahead(self, frames: Mapping[Audience, Frame]) -> None:
        """Encode each frame in its watchers' encodings (the first FANOUT_CHUNK's), so that
        sending it later is only handing over bytes."""
        for audience, frame in frames.items():
            group = self.watchers.get(audience)
            if group:
                for encoding in {w.encoding for w in itertools.islice(group, FANOUT_CHUNK)}:
                    frame.encoded(encoding)

    def _send_later(self) -> None:
        """Send the next FANOUT_CHUNK of the deferred frames; come back for the rest."""
        self._later_handle = None
        budget = FANOUT_CHUNK
        while self._later and budget > 0:
            _, frame, group = self._later[0]
            start = self._later_at
            end = min(len(group), start + budget)
            fan_out(frame, itertools.islice(group, start, end))
            budget -= end - start
            if end == len(group):
                del self._later[0]
                self._later_at = 0
            else:
                self._later_at = end
        if self._later:
            self._later_handle = asyncio.get_running_loop().call_soon(self._send_later)

    def flush(self) -> None:
        """Send every deferred frame now."""
        if self._later_handle is not None:
            self._later_handle.cancel()
            self._later_handle = None
        later, start = self._later, self._later_at
        self._later, self._later_at = [], 0
        for _, frame, group in later:
            fan_out(frame, itertools.islice(group, start, None))
            start = 0
