"""Whether this node can reach its store, said once per change, and how long to wait between tries.

While the store is down every part of a node that touches it fails at once: each match's tail,
its clock and bots, presence, every client request. Each of them used to log its own failure,
once a second, with a traceback: a few seconds of outage wrote thousands of lines. Now the store
itself notes each failure and each success here, and this module writes one line when the store
goes away and one when it is back. The callers retry quietly with `Backoff`.
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Callable, Coroutine
from typing import Any, ParamSpec, TypeVar

from service.ops import metrics
from service.store.base import StoreUnavailable

log = logging.getLogger("teahouse.store")

T = TypeVar("T")
P = ParamSpec("P")


class Reachability:
    """Up or down, as the latest store call found it."""

    def __init__(self, store: str) -> None:
        self.store = store
        self.up = True
        self.down_since: float | None = None
        self.outages = 0
        self.errors = 0
        self.listeners: list[Callable[[bool], None]] = []  # told of every change (metrics)

    def failed(self, exc: BaseException) -> None:
        self.errors += 1
        metrics.STORE_ERRORS.inc()
        if self.up:
            metrics.STORE_OUTAGES.inc()
            metrics.STORE_UP.set(0)
            self.up, self.down_since = False, time.monotonic()
            self.outages += 1
            log.warning("store %s unreachable (%s: %s); requests answer store_unavailable and matches "
                        "retry until it is back", self.store, type(exc).__name__, exc,
                        extra={"event": "store_down"})
            self._tell(False)

    def ok(self) -> None:
        if not self.up:
            took = time.monotonic() - (self.down_since or time.monotonic())
            metrics.STORE_UP.set(1)
            self.up, self.down_since = True, None
            log.warning("store %s reachable again after %.1f s", self.store, took,
                        extra={"event": "store_up", "outage_s": round(took, 3)})
            self._tell(True)

    def _tell(self, up: bool) -> None:
        for fn in self.listeners:
            fn(up)


def guarded(unavailable: Callable[[BaseException], bool]) -> Callable[[Callable[P, Coroutine[Any, Any, T]]],
                                                                 Callable[P, Coroutine[Any, Any, T]]]:
    """Decorate a store method: an error for which `unavailable(exc)` is true is raised as
    StoreUnavailable and noted on the store's `reachability`; a success notes the store is up."""

    def wrap(fn: Callable[P, Coroutine[Any, Any, T]]) -> Callable[P, Coroutine[Any, Any, T]]:
        @functools.wraps(fn)
        async def method(*args: P.args, **kwargs: P.kwargs) -> T:
            store = args[0]  # the store the method is called on
            try:
                out = await fn(*args, **kwargs)
            except StoreUnavailable:
                raise
            except Exception as exc:
                if not unavailable(exc):
                    raise
                store.reachability.failed(exc)  # type: ignore[attr-defined]
                raise StoreUnavailable(f"the {store.name} store is unreachable "  # type: ignore[attr-defined]
                                       f"({type(exc).__name__})") from exc
            store.reachability.ok()  # type: ignore[attr-defined]
            return out

        return method

    return wrap


class Backoff:
    """Waits that double from `first` up to `cap`; `reset` after a success."""

    def __init__(self, first: float = 0.1, cap: float = 2.0) -> None:
        self.first, self.cap = first, cap
        self.next = first

    def delay(self) -> float:
        d, self.next = self.next, min(self.next * 2, self.cap)
        return d

    def reset(self) -> None:
        self.next = self.first
