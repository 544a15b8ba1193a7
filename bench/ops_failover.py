"""Fault figures of issue 13 for operators (13.8, 13.9): what a kill -9 costs.

  balancer  HAProxy (Debian package) in front of 2 `teahouse serve` nodes on one redis-server
            (appendonly, fsync always); `--matches` matches played by SDK clients through
            HAProxy; one node killed with SIGKILL mid-play. Prints acknowledged moves lost
            (acked move ids missing from the log) and the clients' resume times (socket lost ->
            joined again through the balancer), p50 and max.
  cluster   a local Redis Cluster (3 masters + 3 replicas, cluster-node-timeout 1000 ms), one
            node on it; the master serving the most matches killed with SIGKILL mid-play, once
            with --wait-replicas 0 and once with 1. Prints acked moves lost, matches diverged,
            and the time from the kill to the first move acknowledged on the killed master's
            matches.

The scenarios are the ones tests/ops/test_balancer.py and tests/ops/test_redis_cluster.py
assert on (tests/support/balancer.py, tests/support/cluster_failover.py).

  .venv/bin/python bench/ops_failover.py [--runs 3] [--matches 6] [--only balancer|cluster]
Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.support.balancer import kill_a_node_behind_the_balancer  # noqa: E402
from tests.support.cluster_failover import kill_a_master_mid_play  # noqa: E402
from tests.support.failover import percentile  # noqa: E402


async def main(args: argparse.Namespace) -> None:
    if args.only in (None, "balancer"):
        resumes: list[float] = []
        lost = acked = 0
        for run in range(args.runs):
            with tempfile.TemporaryDirectory() as d:
                r = await kill_a_node_behind_the_balancer(Path(d), matches=args.matches)
            print(f"run {run + 1}: {r.line()}", flush=True)
            resumes += r.resumes
            lost += r.lost
            acked += r.acked
        print(f"balancer, {args.runs} runs: {lost} of {acked} acked moves lost; resume p50 "
              f"{percentile(resumes, 0.5):.2f} s, max {max(resumes, default=0):.2f} s over {len(resumes)} clients",
              flush=True)
    if args.only in (None, "cluster"):
        for wait in (0, 1):
            lost = acked = diverged = 0
            for run in range(args.runs):
                with tempfile.TemporaryDirectory() as d:
                    c = await kill_a_master_mid_play(Path(d), wait, matches=args.matches)
                print(f"run {run + 1}: {c.line()}", flush=True)
                lost += c.lost
                acked += c.acked
                diverged += c.diverged
            print(f"cluster, wait_replicas={wait}, {args.runs} runs: {lost} of {acked} acked moves lost, "
                  f"{diverged} matches diverged", flush=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--matches", type=int, default=6)
    parser.add_argument("--only", choices=["balancer", "cluster"])
    asyncio.run(main(parser.parse_args()))
