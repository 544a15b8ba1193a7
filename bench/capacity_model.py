"""The capacity model of docs/capacity.md: per-node figures in, nodes, Redis Cluster masters,
memory and network out, for a number of concurrent matches at a mix of play.

The arithmetic only; the figures come from bench/capacity_sim.py (or --figures FILE, its JSON
`model_figures`, or any overrides with --set NAME=VALUE) and the notes the doc cites.

    .venv/bin/python bench/capacity_model.py [--matches 100000,1000000] [--set NAME=VALUE ...]
"""

from __future__ import annotations

import argparse
import math
from dataclasses import asdict, dataclass, fields, replace
from typing import Any

SEATS = 4


@dataclass(frozen=True)
class Mix:
    """What the matches do: the issue's realistic mix by default."""
    move_every_s: float = 10.0  # one move per 10 s per match
    spectators: int = 2  # per ordinary match, beside its 4 seats
    big_share: float = 0.10  # matches with a crowd
    big_spectators: int = 100
    moves_per_match: int = 60  # how long a match lasts (handcards: 60 moves), for finished matches per day


@dataclass(frozen=True)
class Figures:
    """Per-node and per-Redis figures; the defaults are those docs/capacity.md derives (measured by
    bench/capacity_sim.py on 2026-12-04 unless the doc says otherwise)."""
    node_cpu_ms_per_move: float = 0.913  # the committing node, the mix's audience, net of idle costs
    node_cpu_ms_per_move_per_extra_node: float = 1.689  # each further node that holds a connection of the match
    node_cpu_us_per_connection_second: float = 4.43  # an open, idle WebSocket
    node_cpu_us_per_loaded_match_second: float = 178.3  # a (node, match) pair: presence and stream polls
    node_rss_base_mib: float = 67.6
    node_rss_kib_per_connection: float = 8.43
    node_rss_kib_per_loaded_match: float = 20.5
    bytes_per_move_seat: float = 41.0  # WebSocket payload, the mover's ack included
    bytes_per_move_spectator: float = 38.0
    bytes_per_move_in: float = 40.0  # the move frame a seat sends (estimate)
    frame_overhead_bytes: float = 68.0  # WebSocket header + TCP/IP (with timestamps) + Ethernet, per frame
    redis_cpu_ms_per_move: float = 0.161  # all masters, per move
    redis_cpu_us_per_loaded_match_second: float = 37.5  # all masters, per (node, match) pair
    redis_bytes_per_match: float = 15_660.0  # used_memory of a match with an empty log (record, seats, subscriptions)
    redis_bytes_per_log_entry: float = 160.0  # a commit's payload (139 B) and its stream entry's own
    redis_net_bytes_per_move: float = 1_000.0  # masters in + out, replication included (estimate)
    redis_net_bytes_per_loaded_match_second: float = 600.0  # presence and stream polls


@dataclass(frozen=True)
class Targets:
    node_utilisation: float = 0.6  # of one core per node process: room for bursts, p99 and one node's failover
    master_utilisation: float = 0.5  # of one core per Redis master (single-threaded)
    master_memory_gib: float = 25.0  # used_memory per master (a 32 GiB machine, fork headroom for the AOF rewrite)
    retention_days: float = 0.0  # finished matches kept in Redis (0: only the live ones counted)
    # round-robin: each connection on any node (docs/operators.md's balancer, no stickiness);
    # match: every connection of a match on one node (a placement the deployment does not have yet)
    placement: str = "round-robin"


def connections(matches: int, mix: Mix) -> int:
    big = round(matches * mix.big_share)
    return matches * (SEATS + mix.spectators) + big * (mix.big_spectators - mix.spectators)


def distinct_nodes(conns: int, nodes: int) -> float:
    """Expected nodes holding at least one of a match's `conns` connections when each lands on
    any of `nodes` independently (round robin with no stickiness, as docs/operators.md deploys)."""
    return nodes * (1 - (1 - 1 / nodes) ** conns) if nodes > 1 else 1.0


def node_pairs(matches: int, nodes: int, mix: Mix) -> float:
    """(node, match) pairs loaded: every node holding a connection of a match runs its runtime."""
    big = round(matches * mix.big_share)
    return ((matches - big) * distinct_nodes(SEATS + mix.spectators, nodes)
            + big * distinct_nodes(SEATS + mix.big_spectators, nodes))


def plan(matches: int, mix: Mix = Mix(), f: Figures = Figures(), t: Targets = Targets()) -> dict[str, Any]:
    moves_s = matches / mix.move_every_s
    conns = connections(matches, mix)
    recipients_s = moves_s * conns / matches  # every match moves at the same rate
    big = round(matches * mix.big_share)
    spectator_recipients_s = moves_s / matches * ((matches - big) * mix.spectators + big * mix.big_spectators)
    seat_recipients_s = recipients_s - spectator_recipients_s

    def cores_at(nodes: int) -> tuple[float, float]:
        pairs = node_pairs(matches, nodes, mix) if t.placement == "round-robin" else float(matches)
        extra = pairs / matches - 1  # further nodes per match (moves weighted alike)
        cpu = (moves_s * (f.node_cpu_ms_per_move + extra * f.node_cpu_ms_per_move_per_extra_node) / 1000
               + conns * f.node_cpu_us_per_connection_second / 1e6
               + pairs * f.node_cpu_us_per_loaded_match_second / 1e6)
        return cpu, pairs

    # Nodes and CPU depend on each other (more nodes, more nodes per match): the smallest N that fits.
    nodes = 1
    while True:
        cpu, pairs = cores_at(nodes)
        if cpu / nodes <= t.node_utilisation:
            break
        nodes = max(nodes + 1, math.ceil(cpu / t.node_utilisation))
    ram_gib = (nodes * f.node_rss_base_mib / 1024 + conns * f.node_rss_kib_per_connection / 2**20
               + pairs * f.node_rss_kib_per_loaded_match / 2**20)
    out_frames = recipients_s
    net_out = (seat_recipients_s * (f.bytes_per_move_seat + f.frame_overhead_bytes)
               + spectator_recipients_s * (f.bytes_per_move_spectator + f.frame_overhead_bytes))
    net_in = moves_s * (f.bytes_per_move_in + f.frame_overhead_bytes)
    redis_cores = moves_s * f.redis_cpu_ms_per_move / 1000 + pairs * f.redis_cpu_us_per_loaded_match_second / 1e6
    finished_per_day = matches / (mix.moves_per_match * mix.move_every_s) * 86400
    # a live match is half-way through its log on average; a finished one holds all of it, and
    # stays while retention keeps it (the log is never trimmed: service/match/retention.py)
    live = f.redis_bytes_per_match + mix.moves_per_match / 2 * f.redis_bytes_per_log_entry
    finished = f.redis_bytes_per_match + mix.moves_per_match * f.redis_bytes_per_log_entry
    redis_mem = matches * live + finished_per_day * t.retention_days * finished
    masters_cpu = math.ceil(redis_cores / t.master_utilisation)
    masters_mem = math.ceil(redis_mem / (t.master_memory_gib * 2**30))
    redis_net = moves_s * f.redis_net_bytes_per_move + pairs * f.redis_net_bytes_per_loaded_match_second
    return {
        "matches": matches, "moves_per_s": moves_s, "connections": conns,
        "fanout_frames_per_s": out_frames, "nodes": nodes, "node_match_pairs": round(pairs),
        "nodes_per_match": round(pairs / matches, 2), "node_cores_busy": round(cpu, 1),
        "node_cpu_share": {
            "moves": round(moves_s * (f.node_cpu_ms_per_move + (pairs / matches - 1) * f.node_cpu_ms_per_move_per_extra_node) / 1000 / cpu, 3),
            "connections": round(conns * f.node_cpu_us_per_connection_second / 1e6 / cpu, 3),
            "loaded_matches": round(pairs * f.node_cpu_us_per_loaded_match_second / 1e6 / cpu, 3)},
        "node_ram_gib": round(ram_gib, 1), "ram_gib_per_node": round(ram_gib / nodes, 2),
        "net_out_gbit_s": round(net_out * 8 / 1e9, 2), "net_in_gbit_s": round(net_in * 8 / 1e9, 3),
        "redis_cores_busy": round(redis_cores, 1), "redis_memory_gib": round(redis_mem / 2**30, 1),
        "redis_net_gbit_s": round(redis_net * 8 / 1e9, 2),
        "redis_masters": max(3, masters_cpu, masters_mem), "redis_masters_for_cpu": masters_cpu,
        "redis_masters_for_memory": masters_mem, "redis_replicas": max(3, masters_cpu, masters_mem),
        "finished_matches_per_day": round(finished_per_day),
    }


def _set(obj: Any, assignments: list[str]) -> Any:
    names = {x.name for x in fields(obj)}
    changes = {}
    for a in assignments:
        k, _, v = a.partition("=")
        if k in names:
            cur = getattr(obj, k)
            changes[k] = v if isinstance(cur, str) else type(cur)(float(v))
    return replace(obj, **changes)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--matches", default="100000,1000000")
    ap.add_argument("--set", action="append", default=[], help="NAME=VALUE of Mix, Figures or Targets")
    args = ap.parse_args()
    mix, fig, tgt = _set(Mix(), args.set), _set(Figures(), args.set), _set(Targets(), args.set)
    plans = [plan(int(m), mix, fig, tgt) for m in args.matches.split(",")]
    print("figures: " + ", ".join(f"{k}={v}" for k, v in {**asdict(fig), **asdict(tgt)}.items()))
    print("| | " + " | ".join(f"{p['matches']:,} matches" for p in plans) + " |")
    print("|---|" + "---|" * len(plans))
    for k in plans[0]:
        if k != "matches":
            print(f"| {k} | " + " | ".join(f"{p[k]:,}" if isinstance(p[k], (int, float)) else str(p[k]) for p in plans) + " |")


if __name__ == "__main__":
    main()
