"""The connections that watch no match, looked at by one timer (Limits.idle_socket_s): a timer
of their own would cost each idle connection a timer handle (bench/platform_memory.py)."""

from __future__ import annotations

import asyncio
import contextvars
from typing import Protocol

# The context of timers whose callbacks read no context variable: a timer otherwise copies the
# current context (a Context and its map on every idle connection).
QUIET = contextvars.Context()


class Idler(Protocol):
    def idle_check(self) -> bool:
        """Close the connection if it has been idle too long. False once it needs no more
        checks (it watches a match, or it is closing): it leaves the sweep then."""


class IdleSweep:
    __slots__ = ("members", "period", "_timer")

    def __init__(self, idle_s: float) -> None:
        self.members: set[Idler] = set()
        self.period = min(1.0, idle_s / 4)
        self._timer: asyncio.TimerHandle | None = None

    def add(self, member: Idler) -> None:
        self.members.add(member)
        if self._timer is None:
            loop = asyncio.get_running_loop()
            self._timer = loop.call_later(self.period, self._sweep, loop, context=QUIET)

    def _sweep(self, loop: asyncio.AbstractEventLoop) -> None:
        self._timer = None
        for member in list(self.members):
            if not member.idle_check():
                self.members.discard(member)
        if self.members:
            self._timer = loop.call_later(self.period, self._sweep, loop, context=QUIET)
