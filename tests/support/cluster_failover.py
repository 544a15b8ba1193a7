"""Kill a Redis Cluster master mid-play and count the acknowledged moves that survive
(issue 13.8): used by tests/ops/test_redis_cluster.py and bench/ops_failover.py."""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from clients.python import TeahouseClient
from service.store import open_store
from tests.support.failover import Ledger, lost_moves, seat_players
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
    resumed_s: float  # from the kill to the first ack on a match of the killed master
    errors: Counter[str]

    def line(self) -> str:
        return (f"cluster failover, wait_replicas={self.wait_replicas}: {self.acked} moves acked "
                f"({self.acked_before_kill} before the kill), {self.on_killed_master} matches on the killed "
                f"master, {self.lost} acked moves lost, {self.diverged} matches diverged, play resumed "
                f"{self.resumed_s:.1f} s after the kill; errors seen: {dict(self.errors) or 'none'}")


async def kill_a_master_mid_play(workdir: Path, wait_replicas: int, matches: int = 6,
                                 before_kill: int = 60, timeout: float = 60) -> FailoverResult:
    cluster = await asyncio.to_thread(LocalCluster(workdir / "cluster").start)
    server = ServerProcess(cluster.url, workdir / "server.log")
    server.env = {"TEAHOUSE_WAIT_REPLICAS": str(wait_replicas), "TEAHOUSE_WAIT_TIMEOUT_MS": "1000"}
    client = None
    players = []
    try:
        await asyncio.to_thread(server.start)
        client = TeahouseClient(server.url)
        ledger = Ledger()
        ids = [(await client.create_match(GAME, PLAYERS))["match"] for _ in range(matches)]
        for i, m in enumerate(ids):
            players += await seat_players(client, m, PLAYERS, ledger, seed=i)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        stop = asyncio.Event()
        playing = [asyncio.create_task(p.play(stop, deadline)) for p in players]

        async def until(predicate, what: str) -> None:
            while not predicate():
                if loop.time() > deadline or any(t.done() and t.exception() for t in playing):
                    for t in playing:
                        if t.done() and t.exception():
                            raise t.exception()
                    raise TimeoutError(what)
                await asyncio.sleep(0.05)

        await until(lambda: ledger.count() >= before_kill, "no play before the kill")
        masters = {m: cluster.master_of(f"th:{{{m}}}:log") for m in ids}
        victim = Counter(masters.values()).most_common(1)[0][0]
        doomed = [m for m in ids if masters[m] == victim]
        acked_before = ledger.count()
        await asyncio.to_thread(cluster.kill, victim)
        killed_at = time.monotonic()  # the process is gone: an ack from now on came from its replica
        await asyncio.to_thread(cluster.wait_failover, victim)

        def resumed() -> bool:
            return all(m in ledger.diverged or any(t > killed_at for t in ledger.acked.get(m, {}).values())
                       or all(t.done() for t in playing) for m in doomed)
        await until(resumed, "play did not resume on the killed master's matches")
        first = [t for m in doomed for t in ledger.acked.get(m, {}).values() if t > killed_at]
        stop.set()
        await asyncio.gather(*playing)
        store = open_store(cluster.url)
        try:
            lost = await lost_moves(store, ledger)
        finally:
            await store.close()
        return FailoverResult(wait_replicas, ledger.count(), acked_before, len(doomed),
                              sum(len(v) for v in lost.values()), len(ledger.diverged),
                              (min(first) - killed_at) if first else float("nan"), ledger.errors)
    finally:
        for p in players:
            await p.close()
        if client is not None:
            await client.aclose()
        server.stop()
        cluster.stop()
