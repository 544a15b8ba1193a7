"""What one WebSocket connection may ask of a node: a request rate and an outbound byte budget.

Both are token buckets (service/ops/limits.py sets their sizes). The request bucket is charged only
for a message read while this connection's previous answer is still waiting to be written: a
client that waits for each answer before it sends the next request (one request in flight) is
paced by its own round trips and is never refused, while one that pipelines requests faster than
the node can answer them spends its burst and is then refused with `rate_limited`; from its first
refusal on, every request it sends is charged until the bucket is full again (a flooder paused
by a refusal would otherwise look one-in-flight when it is read again). The byte
budget is charged for the answers that can be large (legal moves, resyncs) whatever the pacing.
"""

from __future__ import annotations

import time
from collections.abc import Callable


class TokenBucket:
    """`rate` tokens a second, at most `burst` held. A rate of 0 means no limit."""

    def __init__(self, rate: float, burst: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate, self.burst, self.clock = rate, max(burst, 1.0), clock
        self.level = self.burst
        self._at = clock()

    def _refill(self) -> None:
        now = self.clock()
        self.level = min(self.burst, self.level + (now - self._at) * self.rate)
        self._at = now

    def wait(self) -> float:
        """Seconds until the bucket holds a positive amount (0: it does now)."""
        if not self.rate:
            return 0.0
        self._refill()
        return 0.0 if self.level > 0 else (1e-3 - self.level) / self.rate

    def take(self, cost: float = 1.0) -> float:
        """Spend `cost` if the bucket holds at least that much (0 returned), else spend nothing
        and return the seconds until it will."""
        if not self.rate:
            return 0.0
        self._refill()
        if self.level >= cost:
            self.level -= cost
            return 0.0
        return (cost - self.level) / self.rate

    def full(self) -> bool:
        if not self.rate:
            return True
        self._refill()
        return self.level >= self.burst

    def charge(self, cost: float) -> None:
        """Spend `cost` even beyond what is held: a debt that delays the next `wait()`."""
        if self.rate:
            self._refill()
            self.level -= cost


class ConnectionBudget:
    """One connection's request bucket and byte budget (Limits.requests_per_second,
    request_burst, outbound_bytes_per_second; a burst of one second of bytes)."""

    def __init__(self, requests_per_second: float, request_burst: int, outbound_bytes_per_second: int,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.requests = TokenBucket(requests_per_second, request_burst, clock)
        self.bytes = TokenBucket(outbound_bytes_per_second, outbound_bytes_per_second, clock)
        self.strict = False  # refused once: charge every request until the bucket refills

    def admit(self, pipelined: bool) -> float:
        """0 if a request may be handled now, else the seconds until it may."""
        if self.strict and self.requests.full():
            self.strict = False
        if not (pipelined or self.strict):
            return 0.0
        wait = self.requests.take()
        if wait:
            self.strict = True
        return wait
