"""What one client address may do on this node: create matches (a sliding minute) and hold
WebSocket connections (a count). Both are per node: behind a balancer each node counts its own.

The address is the client's as uvicorn reports it: behind a reverse proxy on the same host it
comes from X-Forwarded-For (uvicorn trusts that header from 127.0.0.1 only; see
docs/operators.md), so every client behind the proxy is not one address.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable

WINDOW_S = 60.0


class CreationWindow:
    """At most `per_minute` creations per address in any 60 seconds (0: no limit)."""

    def __init__(self, per_minute: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.per_minute, self.clock = per_minute, clock
        self._times: dict[str, deque[float]] = {}

    def hit(self, address: str) -> float:
        """Count one creation now and return 0, or count nothing and return the seconds until
        the address may create again."""
        wait = self.room(address)
        if not wait:
            self.count(address)
        return wait

    def room(self, address: str) -> float:
        """0 if the address may create a match now, else the seconds until it may; counts
        nothing (a creation the lobby then refuses is not one: `count` only what was made)."""
        if not self.per_minute:
            return 0.0
        now = self.clock()
        times = self._times.get(address)
        if times is None:
            return 0.0
        while times and now - times[0] >= WINDOW_S:
            times.popleft()
        return WINDOW_S - (now - times[0]) if len(times) >= self.per_minute else 0.0

    def count(self, address: str) -> None:
        """One creation was made now."""
        if not self.per_minute:
            return
        now = self.clock()
        self._times.setdefault(address, deque()).append(now)
        if len(self._times) > 10_000:  # forget addresses that created nothing for a minute
            self._times = {a: t for a, t in self._times.items() if t and now - t[-1] < WINDOW_S}


class ConnectionCounts:
    """Open WebSocket connections per address, at most `per_address` each (0: no limit)."""

    def __init__(self, per_address: int) -> None:
        self.per_address = per_address
        self._open: dict[str, int] = {}

    def open(self, address: str) -> bool:
        n = self._open.get(address, 0)
        if self.per_address and n >= self.per_address:
            return False
        self._open[address] = n + 1
        return True

    def refusal(self) -> str:
        """The close reason for a connection that `open` refused."""
        return f"this address holds {self.per_address} connections, its limit; close one first"

    def close(self, address: str) -> None:
        n = self._open.get(address, 0) - 1
        if n > 0:
            self._open[address] = n
        else:
            self._open.pop(address, None)
