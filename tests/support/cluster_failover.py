"""Kill a Redis Cluster master mid-play and count the acknowledged moves that survive
(used by tests/ops/test_redis_cluster.py and bench/ops_failover.py)."""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import httpx
from teahouse_client import TeahouseClient

from tests.support.failover import Run, count_lost, tracebacks
from tests.support.redis_cluster import LocalCluster
from tests.support.server import ServerProcess

GAME, PLAYERS = "hieroglyphs", 2  # long matches (hundreds of commits): play goes on across the kill


@dataclass
class FailoverResult:
    wait_replicas: int
    acked: int  # moves acknowledged to clients in the whole run
    acked_before_kill: int
    on_killed_master: int  # matches whose slot's master was killed
    lost: int  # acknowledged moves the log no longer holds
    diverged: int  # matches stopped as `diverged` (their log lost commits a node had seen)
    resumed_s: float  # from the kill to the first ack of a move sent after it, on the killed master's matches
    errors: Counter[str]
    tracebacks: list[str]  # in the node's log: failures nobody handled
    # Appends acknowledged though WAIT ran out first (the node's /metrics), before the kill and
    # in the whole run: after the failover the promoted replica has no replica of its own, so
    # every WAIT on it runs out; one before the kill means a replica lagged by the timeout.
    wait_timeouts_before_kill: float = 0.0
    wait_timeouts: float = 0.0

    def line(self) -> str:
        return (f"cluster failover, wait_replicas={self.wait_replicas}: {self.acked} moves acked "
                f"({self.acked_before_kill} before the kill), {self.on_killed_master} matches on the killed "
                f"master, {self.lost} acked moves lost, {self.diverged} matches diverged, play resumed "
                f"{self.resumed_s:.1f} s after the kill; errors seen: {dict(self.errors) or 'none'}; "
                f"{len(self.tracebacks)} tracebacks in the node's log; WAITs ran out: "
                f"{self.wait_timeouts_before_kill:g} before the kill, {self.wait_timeouts:g} in all")


async def kill_a_master_mid_play(workdir: Path, wait_replicas: int, matches: int = 6,
                                 before_kill: int = 60, timeout: float = 60) -> FailoverResult:
    cluster = await asyncio.to_thread(LocalCluster(workdir / "cluster").start)
    server = ServerProcess(cluster.url, workdir / "server.log")
    server.env = {"TEAHOUSE_WAIT_REPLICAS": str(wait_replicas), "TEAHOUSE_WAIT_TIMEOUT_MS": "1000"}
    client = None
    run = None
    try:
        await asyncio.to_thread(server.start)
        client = TeahouseClient(server.url)
        run = Run(client, GAME, PLAYERS, matches, timeout)
        await run.start()
        ledger = run.ledger
        await run.until(lambda: ledger.count() >= before_kill, "no play before the kill")
        masters = {m: cluster.master_of(f"th:{{{m}}}:log") for m in run.ids}
        victim = Counter(masters.values()).most_common(1)[0][0]
        doomed = [m for m in run.ids if masters[m] == victim]
        acked_before = ledger.count()
        waits_before = await _wait_timeouts(server.url)
        await asyncio.to_thread(cluster.kill, victim)
        killed_at = time.monotonic()  # the process is gone: a move sent from now on can only land on its replica
        await asyncio.to_thread(cluster.wait_failover, victim)
        await run.until(lambda: all(m in ledger.diverged or run.first_ack_sent_after(m, killed_at) is not None
                                    for m in doomed)
                        or all(t.done() for t in run.tasks), "play did not resume on the killed master's matches")
        first = [t for m in doomed if (t := run.first_ack_sent_after(m, killed_at)) is not None]
        await run.finish()
        lost = await count_lost(cluster.url, ledger)
        return FailoverResult(wait_replicas, ledger.count(), acked_before, len(doomed),
                              lost, len(ledger.diverged),
                              (min(first) - killed_at) if first else float("nan"), ledger.errors,
                              tracebacks(server.log_text()), waits_before, await _wait_timeouts(server.url))
    finally:
        if run is not None:
            await run.close()
        if client is not None:
            await client.aclose()
        server.stop()
        cluster.stop()


async def _wait_timeouts(url: str) -> float:
    """teahouse_wait_timeouts_total as the node's /metrics reports it."""
    async with httpx.AsyncClient() as http:
        text = (await http.get(url + "/metrics", timeout=10)).text
    return sum(float(line.split()[-1]) for line in text.splitlines()
               if line.startswith("teahouse_wait_timeouts_total"))
