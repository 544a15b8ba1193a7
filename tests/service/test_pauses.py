"""The node's garbage-collector policy and its pause measurements (service/ops/pauses.py)."""

from __future__ import annotations

import asyncio
import gc
import subprocess
import sys
import textwrap
import time

from service.ops.metrics import REGISTRY
from service.ops.pauses import PauseWatch

# A process under the node's policy makes two kinds of cyclic garbage: short-lived cycles (a
# move's objects) and cycles that live for a while first (a match, a connection), so that they
# reach the old generations before they are dropped. Nothing calls gc.collect(): the policy's
# own collections must find them all, and the garbage alive at any time must stay bounded.
_CHURN = textwrap.dedent("""
    import gc, sys
    from collections import deque
    from service.ops.pauses import settle_gc

    settle_gc()
    dropped = alive = peak = 0

    class Node:
        def __init__(self):
            global alive
            alive += 1
            self.me = self            # a cycle: only the collector frees it
            self.payload = bytearray(200)

        def __del__(self):
            global alive
            alive -= 1

    window = deque()
    for i in range(600_000):
        Node()                        # garbage at once
        window.append(Node())         # garbage after 50,000 more
        if len(window) > 50_000:
            window.popleft()
            dropped += 1
        if i % 1000 == 0:
            garbage = alive - len(window)
            peak = max(peak, garbage)
    print(peak, alive - len(window), gc.get_threshold()[0])
""")


def test_cyclic_garbage_is_still_collected_and_bounded_under_the_node_policy():
    out = subprocess.run([sys.executable, "-c", _CHURN], capture_output=True, text=True, timeout=300, check=True)
    peak, _, threshold = map(int, out.stdout.split())
    assert threshold > 700                   # the policy is in force
    # 1,150,000 garbage cycles were made; at no time were more than a bounded number waiting
    # (young ones wait for at most a first-generation threshold's worth of allocations, aged
    # ones for the next full collection, which comes when the old generation grew by a quarter)
    assert peak < 100_000


def test_stalls_and_collections_are_measured():
    def count(name: str, **labels: str) -> float:
        return REGISTRY.get_sample_value(name, labels) or 0.0

    async def run() -> None:
        watch = PauseWatch()
        watch.start()
        try:
            await asyncio.sleep(0.06)
            stalls = count("teahouse_loop_lag_seconds_bucket", le="+Inf") - count("teahouse_loop_lag_seconds_bucket", le="0.1")
            full = count("teahouse_gc_pause_seconds_count", generation="2")
            time.sleep(0.2)            # a callback that holds the loop
            gc.collect()
            await asyncio.sleep(0.06)  # the lag timer fires late once
            assert count("teahouse_loop_lag_seconds_bucket", le="+Inf") - count(
                "teahouse_loop_lag_seconds_bucket", le="0.1") == stalls + 1
            assert count("teahouse_gc_pause_seconds_count", generation="2") == full + 1
        finally:
            await watch.close()

    asyncio.run(run())
