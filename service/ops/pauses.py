"""The pauses of a node's event loop: garbage collections and stalls, measured and kept short.

A node holds many long-lived objects (connections, matches, their views): a full collection of
CPython's cyclic garbage collector walks every one of them while nothing else runs: under load
those pauses made the tail of move latency (bench/peers scenario b; bench/notes/wire.md, "Tail
latency under load").

The policy (`settle_gc`, once per process when the app starts):
- gc.freeze() moves everything alive then (modules, the games, the app) out of the collector's
  sight for good: it is never garbage, and no collection walks it again.
- A larger first-generation threshold: a node allocates objects in bursts (a move makes and drops
  hundreds), and the default of 700 runs a young collection several times a second under load,
  each promoting the objects of the moves in flight towards the old generation. Raising it delays
  collections, it never skips one: cyclic garbage is still found by the next young collection, or
  by a full one once it has aged (GC_THRESHOLDS keeps those about as frequent as CPython's).
What a node keeps for long is kept in forms the collector does not walk where that is cheap
(service.match.projection keeps its resync patches as bytes).

`PauseWatch` measures: every collection's duration by generation, and how late a timer fired on
the loop (a stall of any cause), both as /metrics histograms.
"""

from __future__ import annotations

import asyncio
import gc
import time
from typing import Any

from service.ops.metrics import GC_PAUSE_SECONDS, LOOP_LAG_SECONDS

LAG_PERIOD_S = 0.05  # metrics.LOOP_LAG_SECONDS
# Young collections every 5,000 net container allocations instead of 700, a middle one every third
# young one and a full one every fifth middle one: cyclic garbage that aged waits for no more
# allocations than under CPython's (700, 10, 10) (tests/service/test_pauses.py), and each pause
# stays short. Larger young thresholds make fewer but longer pauses (bench/platform_latency.py).
GC_THRESHOLDS = (5_000, 2, 4)

_settled = False


def settle_gc() -> None:
    """Apply the policy above, once per process: call it when the process has loaded what it
    keeps for its lifetime."""
    global _settled
    if _settled:
        return
    _settled = True
    gc.collect()  # start-up garbage is collected, not frozen with the rest
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


class PauseWatch:
    """Times garbage collections (gc.callbacks) and the loop's lateness (a timer task)."""

    def __init__(self) -> None:
        self._started = 0.0
        self._by_generation = [GC_PAUSE_SECONDS.labels(generation=str(g)) for g in range(3)]
        self._task: asyncio.Task | None = None

    def _on_gc(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
        else:
            self._by_generation[info["generation"]].observe(time.perf_counter() - self._started)

    def start(self) -> None:
        gc.callbacks.append(self._on_gc)
        self._task = asyncio.get_running_loop().create_task(self._lag(), name="loop lag")

    async def _lag(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            due = loop.time() + LAG_PERIOD_S
            await asyncio.sleep(LAG_PERIOD_S)
            LOOP_LAG_SECONDS.observe(max(0.0, loop.time() - due))

    async def close(self) -> None:
        if self._on_gc in gc.callbacks:
            gc.callbacks.remove(self._on_gc)
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
