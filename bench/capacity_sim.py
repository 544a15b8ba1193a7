"""The capacity model's per-node slope, measured: several Teahouse nodes behind HAProxy on a
3-master Redis Cluster, driven by the rig's load generator at the capacity model's mix
(docs/capacity.md), at two sizes.

The mix: every match moves once per `--rate`⁻¹ seconds (0.1: once per 10 s), has 4 seats and
`--spectators` (2) spectators, and `--big-share` (10%) of the matches have `--big-spectators`
(100) instead. Each size is a fresh deployment: a private Redis Cluster (3 masters + 3 replicas,
tests/support/redis_cluster.py, switched to `appendonly yes`, `appendfsync everysec` as the rig
runs Redis), `--nodes` `teahouse serve --bench-games --store redis+cluster://...` processes
without the per-address limits (every client comes from 127.0.0.1, as in peers/run.sh), and a
real HAProxy in front (tests/support/balancer.py's config: round robin, no stickiness). The
load generator is bench/peers/loadgen/loadgen.js with the teahouse adapter (it needs
`(cd bench/peers/colyseus && npm ci)` for `ws`), run through HAProxy with `--hold` (every
connection open and idle first) and `--big-matches`.

What it measures, per size, from /proc (process CPU time, not wall time: the machine may be
shared) sampled every 0.5 s and cut at the load generator's phase instants:
- node CPU: before any client (the nodes' own timers and HAProxy's health checks), during the
  idle hold (→ CPU per connection-second) and during play (→ CPU per move, net of both);
- node RSS before and after the connections opened (→ per connection and per match);
- Redis: CPU of the masters and of the replicas per move, `used_memory` of the masters per
  match, and the masters' network bytes per move (INFO);
- bytes per move per seat and per spectator on the wire (the load generator's count);
- the load average and the machine's CPU used by everything else.
Then the slope between the two sizes (the difference of node CPU per second of play over the
difference in matches), beside what the per-connection and per-move figures of the smaller size
predict for it. It prints a table and writes the raw figures as JSON (`--out`).
Nothing here asserts.

    .venv/bin/python bench/capacity_sim.py [--nodes 2] [--sizes 60,120] [--duration 60] [--hold 20]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402
import redis  # noqa: E402

from bench._support import CLK_TCK, TEAHOUSE, cpu_seconds  # noqa: E402
from bench.capacity_model import Mix, node_pairs  # noqa: E402
from tests.support.balancer import HAProxy, haproxy_config  # noqa: E402
from tests.support.redis_cluster import LocalCluster, cli  # noqa: E402
from tests.support.redis_server import free_port  # noqa: E402

PEERS = ROOT / "bench" / "peers"
LOADGEN = PEERS / "loadgen" / "loadgen.js"
SEATS = 4


def mix_counts(matches: int, big_share: float, spectators: int, big_spectators: int) -> dict[str, int]:
    """How many matches are crowded, and the connections of the whole mix."""
    big = round(matches * big_share)
    return {"matches": matches, "big_matches": big,
            "connections": matches * (SEATS + spectators) + big * (big_spectators - spectators)}


def cpu_ns_seconds(pid: int) -> float:
    """CPU time of every live thread of a process, from the scheduler's nanosecond accounting
    (/proc/<pid>/task/*/schedstat): /proc/<pid>/stat counts 10 ms ticks, and an idle node's few
    hundredths of a core over 10 s are a handful of ticks. Threads that ended are not counted
    (the processes here keep theirs: redis-server's bio threads, the nodes' executor)."""
    total = 0
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            try:
                with open(f"/proc/{pid}/task/{task}/schedstat") as f:
                    total += int(f.read().split()[0])
            except (FileNotFoundError, ProcessLookupError, IndexError):
                continue
    except (FileNotFoundError, ProcessLookupError):
        return 0.0
    return total / 1e9


def rss_kib(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return float(line.split()[1])
    except (FileNotFoundError, ProcessLookupError):
        pass
    return 0.0


def machine_busy_s() -> float:
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    return (v[0] + v[1] + v[2] + v[5] + v[6] + (v[7] if len(v) > 7 else 0)) / CLK_TCK


def loadavg() -> list[float]:
    with open("/proc/loadavg") as f:
        return [float(x) for x in f.read().split()[:3]]


class Sampler(threading.Thread):
    """Every 0.5 s: CPU and RSS of every process of the deployment, and each Redis node's INFO
    (memory, network, role), stamped with the wall clock the load generator reports in."""

    def __init__(self, pids: dict[str, list[int]], redis_ports: list[int], node_ports: list[int]) -> None:
        super().__init__(daemon=True)
        self.pids = pids
        self.node_ports = node_ports
        self.clients = {p: redis.Redis(host="127.0.0.1", port=p, socket_timeout=2) for p in redis_ports}
        self.samples: list[dict[str, Any]] = []
        self.stop_flag = threading.Event()

    def sample(self) -> dict[str, Any]:
        s: dict[str, Any] = {"t": time.time() * 1000, "busy": machine_busy_s()}
        for group, pids in self.pids.items():
            s[group] = {"cpu": [cpu_ns_seconds(p) for p in pids], "cpu_ticks": [cpu_seconds(p) for p in pids],
                        "rss": [rss_kib(p) for p in pids]}
        info = {}
        for port, r in self.clients.items():
            try:
                i = r.info()
            except redis.RedisError:
                continue
            info[port] = {"role": i["role"], "used_memory": i["used_memory"],
                          "net_in": i["total_net_input_bytes"], "net_out": i["total_net_output_bytes"],
                          "cpu": i["used_cpu_user"] + i["used_cpu_sys"]}
        s["rinfo"] = info
        if len(self.samples) % 4 == 0:  # the nodes' own gauges, every 2 s
            s["gauges"] = [self.gauges(p) for p in self.node_ports]
        return s

    @staticmethod
    def gauges(port: int) -> dict[str, float]:
        try:
            text = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=2).text
        except httpx.HTTPError:
            return {}
        out = {}
        for line in text.splitlines():
            name, _, value = line.partition(" ")
            if name in ("teahouse_loaded_matches", "teahouse_connections", "teahouse_watchers"):
                out[name] = float(value)
        return out

    def run(self) -> None:
        while not self.stop_flag.is_set():
            self.samples.append(self.sample())
            self.stop_flag.wait(0.5)

    def gauges_at(self, t_ms: float) -> dict[str, float]:
        """The nodes' gauges summed, from the scrape nearest the instant."""
        s = min((x for x in self.samples if "gauges" in x), key=lambda x: abs(x["t"] - t_ms))
        out: dict[str, float] = {}
        for g in s["gauges"]:
            for k, v in g.items():
                out[k] = out.get(k, 0) + v
        return out

    def at(self, t_ms: float) -> dict[str, Any]:
        """The sample nearest the instant (samples are 0.5 s apart)."""
        return min(self.samples, key=lambda s: abs(s["t"] - t_ms))

    def stop(self) -> None:
        self.stop_flag.set()
        self.join(5)
        self.samples.append(self.sample())


def _sum(sample: dict[str, Any], group: str, key: str) -> float:
    return float(sum(sample[group][key]))


def _redis(a: dict[str, Any], b: dict[str, Any], role: str, key: str) -> float:
    return float(sum(b["rinfo"][p][key] - a["rinfo"][p][key] for p in b["rinfo"]
                     if p in a["rinfo"] and b["rinfo"][p]["role"] == role))


def _redis_now(sample: dict[str, Any], role: str, key: str) -> float:
    return float(sum(v[key] for v in sample["rinfo"].values() if v["role"] == role))


def start_node(store_url: str, log: Path) -> tuple[subprocess.Popen, int]:
    port = free_port()
    env = {**os.environ, "TEAHOUSE_MATCHES_PER_ADDRESS_PER_MINUTE": "0", "TEAHOUSE_CONNECTIONS_PER_ADDRESS": "0",
           "TEAHOUSE_REQUESTS_PER_SECOND": "0", "TEAHOUSE_SPECTATORS_PER_MATCH": "0",
           "TEAHOUSE_LIVE_REPLAYS_PER_ADDRESS_PER_MINUTE": "0"}
    # this checkout's code first: the venv's editable install may point at another checkout
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    with open(log, "wb") as f:
        proc = subprocess.Popen([str(TEAHOUSE), "serve", "--bench-games", "--host", "127.0.0.1", "--port", str(port),
                                 "--store", store_url, "--no-access-log"],
                                stdout=f, stderr=subprocess.STDOUT, env=env, preexec_fn=_more_files)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"node exited: {log.read_text()[-2000:]}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health/ready", timeout=1).status_code == 200:
                return proc, port
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"node did not become ready: {log.read_text()[-2000:]}")


def _more_files() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = 20000 if hard == resource.RLIM_INFINITY else min(20000, hard)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, want), hard))


def key_memory(ports: list[int]) -> dict[str, Any]:
    """MEMORY USAGE of every match key on the masters, by key part (th:{M}:part), with the
    log streams' entries: what a match holds in Redis, without the allocator's slack."""
    by_part: dict[str, int] = {}
    matches: set[str] = set()
    log_entries = 0
    sampled_entries = sampled_bytes = 0
    for port in ports:
        r = redis.Redis(host="127.0.0.1", port=port, socket_timeout=5)
        if r.info("replication")["role"] != "master":
            continue
        for key in r.scan_iter(match="th:{*", count=1000):
            k = key.decode()
            tag, _, part = k.partition("}:")
            matches.add(tag)
            by_part[part] = by_part.get(part, 0) + int(r.memory_usage(key, samples=0) or 0)
            if part == "log":
                log_entries += int(r.xlen(key))
                if sampled_entries < 500:  # the entries' own bytes: what each further move adds
                    entries: list[tuple[bytes, dict[bytes, bytes]]] = r.xrange(key) or []  # type: ignore[assignment]
                    for _id, entry in entries:
                        sampled_entries += 1
                        sampled_bytes += sum(len(k) + len(v) for k, v in entry.items())
    n = max(1, len(matches))
    return {"matches": len(matches), "bytes_per_match": round(sum(by_part.values()) / n),
            "bytes_per_match_by_part": {k: round(v / n) for k, v in sorted(by_part.items())},
            "log_entries_per_match": round(log_entries / n, 1),
            "log_bytes_per_entry": round(by_part.get("log", 0) / log_entries, 1) if log_entries else None,
            "log_entry_payload_bytes": round(sampled_bytes / sampled_entries, 1) if sampled_entries else None}


def run_size(args: argparse.Namespace, n_nodes: int, matches: int, work: Path) -> dict[str, Any]:
    mix = mix_counts(matches, args.big_share, args.spectators, args.big_spectators)
    cluster = LocalCluster(work)
    nodes: list[subprocess.Popen] = []
    proxy = None
    sampler = None
    try:
        cluster.start()
        for p in cluster.ports:  # durability as the rig runs Redis
            cli(p, "CONFIG", "SET", "appendonly", "yes")
            cli(p, "CONFIG", "SET", "appendfsync", "everysec")
        ports = []
        for i in range(n_nodes):
            proc, port = start_node(cluster.url, work / f"node-{i}.log")
            nodes.append(proc)
            ports.append(port)
        backends = [(f"node-{i}", p) for i, p in enumerate(ports)]
        proxy = HAProxy(work, backends)
        # the tests' config, with checks that a loaded machine does not fail: a node busy opening
        # hundreds of connections may answer /health/ready after the tests' 300 ms
        proxy.cfg.write_text(haproxy_config(proxy.port, backends, check_ms=2000).replace("fall 2", "fall 5"))
        proxy.start()
        redis_pids = [cluster.procs[p].pid for p in cluster.ports]
        pids = {"nodes": [n.pid for n in nodes], "redis": redis_pids, "haproxy": [proxy.proc.pid]}  # type: ignore[union-attr]
        sampler = Sampler(pids, cluster.ports, ports)
        sampler.start()
        time.sleep(args.baseline)
        t_base0 = sampler.samples[0]["t"]
        out = work / f"loadgen-{matches}.json"
        cmd = ["node", str(LOADGEN), "--adapter", "teahouse", "--url", proxy.url,
               "--server-pid", ",".join(str(p) for p in pids["nodes"] + redis_pids),
               "--matches", str(matches), "--spectators", str(args.spectators),
               "--big-matches", str(mix["big_matches"]), "--big-spectators", str(args.big_spectators),
               "--rate", str(args.rate), "--duration", str(args.duration), "--hold", str(args.hold),
               "--drain", "10", "--label", f"capacity {n_nodes} nodes {matches} matches", "--out", str(out)]
        env = {**os.environ, "TEAHOUSE_HOME": str(ROOT)}
        load0 = loadavg()
        print(f"  {matches} matches ({mix['big_matches']} with {args.big_spectators} spectators), "
              f"{mix['connections']} connections, {n_nodes} nodes: running the load generator", flush=True)
        lg = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=args.duration + args.hold + 400,
                            preexec_fn=_more_files)
        if lg.returncode != 0:
            raise RuntimeError(f"loadgen failed ({lg.returncode}): {lg.stderr[-3000:]}\n"
                               f"haproxy: {proxy.log.read_text()[-2000:]}")
        load1 = loadavg()
        sampler.stop()
        r = json.loads(out.read_text())
        ph = r["phase_wall_ms"]
        s_base0, s_base1 = sampler.at(t_base0), sampler.at(ph["connect_start"])
        s_h0, s_h1 = sampler.at(ph["hold_start"]), sampler.at(ph["hold_end"])
        s_w0, s_w1 = sampler.at(ph["window_start"]), sampler.at(ph["window_end"])
        s_end = sampler.samples[-1]
        secs = lambda a, b: (b["t"] - a["t"]) / 1000  # noqa: E731
        base_s, hold_s, win_s = secs(s_base0, s_base1), secs(s_h0, s_h1), secs(s_w0, s_w1)
        conns = r["connections"]
        gauges = sampler.gauges_at((ph["hold_start"] + ph["hold_end"]) / 2)
        moves = r["moves_completed"]
        node_base = (_sum(s_base1, "nodes", "cpu") - _sum(s_base0, "nodes", "cpu")) / base_s
        node_hold = (_sum(s_h1, "nodes", "cpu") - _sum(s_h0, "nodes", "cpu")) / hold_s
        node_win = (_sum(s_w1, "nodes", "cpu") - _sum(s_w0, "nodes", "cpu")) / win_s
        per_conn_s = max(0.0, node_hold - node_base) / conns
        per_move_net = (node_win - node_hold) * win_s / moves if moves else None
        hap_win = (_sum(s_w1, "haproxy", "cpu") - _sum(s_w0, "haproxy", "cpu")) / win_s
        hap_hold = (_sum(s_h1, "haproxy", "cpu") - _sum(s_h0, "haproxy", "cpu")) / hold_s
        busy = (s_w1["busy"] - s_w0["busy"]) / win_s
        ours = node_win + (_sum(s_w1, "redis", "cpu") - _sum(s_w0, "redis", "cpu")) / win_s + hap_win
        rss_before = _sum(s_base1, "nodes", "rss")
        rss_after = _sum(s_h0, "nodes", "rss")
        mem0 = _redis_now(s_base1, "master", "used_memory")
        mem1 = _redis_now(s_end, "master", "used_memory")
        keys = key_memory(cluster.ports)
        r_hold = _redis(s_h0, s_h1, "master", "cpu") / hold_s
        r_win = _redis(s_w0, s_w1, "master", "cpu") / win_s
        rr_hold = _redis(s_h0, s_h1, "slave", "cpu") / hold_s
        rr_win = _redis(s_w0, s_w1, "slave", "cpu") / win_s
        r_base = _redis(s_base0, s_base1, "master", "cpu") / base_s
        net_play = (_redis(s_w0, s_w1, "master", "net_in") + _redis(s_w0, s_w1, "master", "net_out")) / win_s
        net_hold = (_redis(s_h0, s_h1, "master", "net_in") + _redis(s_h0, s_h1, "master", "net_out")) / hold_s
        return {
            "matches": matches, "big_matches": mix["big_matches"], "connections": conns, "nodes": n_nodes,
            "rate_per_match": args.rate, "moves_completed": moves, "moves_per_s": round(moves / win_s, 2),
            "moves_incomplete_after_drain": r["moves_incomplete_after_drain"], "errors": r["errors"],
            # (node, match) pairs: a match whose connections landed on two nodes is loaded on both
            "node_gauges_in_hold": gauges,
            "seconds": {"baseline": round(base_s, 1), "hold": round(hold_s, 1), "play": round(win_s, 1)},
            "node_cpu_cores": {"baseline": round(node_base, 4), "hold": round(node_hold, 4), "play": round(node_win, 4)},
            "node_cpu_us_per_connection_second": round(per_conn_s * 1e6, 2),
            "node_cpu_ms_per_move_gross": round(node_win * win_s / moves * 1000, 3) if moves else None,
            "node_cpu_ms_per_move_net": round(per_move_net * 1000, 3) if per_move_net is not None else None,
            "haproxy_cpu_cores": {"hold": round(hap_hold, 4), "play": round(hap_win, 4)},
            "haproxy_cpu_ms_per_move": round((hap_win - hap_hold) * win_s / moves * 1000, 3) if moves else None,
            "node_rss_mib": {"before": round(rss_before / 1024, 1), "connected": round(rss_after / 1024, 1),
                             "end": round(_sum(s_end, "nodes", "rss") / 1024, 1)},
            "node_rss_kib_per_connection": round((rss_after - rss_before) / conns, 2),
            "node_rss_kib_per_match": round((rss_after - rss_before) / matches, 1),
            "redis_master_cpu_cores": {"baseline": round(r_base, 4), "hold": round(r_hold, 4), "play": round(r_win, 4)},
            "redis_replica_cpu_cores": {"hold": round(rr_hold, 4), "play": round(rr_win, 4)},
            # net of the hold: the followers' polls and the cluster's own gossip go on without moves
            "redis_master_cpu_ms_per_move_net": round((r_win - r_hold) * win_s / moves * 1000, 3) if moves else None,
            "redis_replica_cpu_ms_per_move_net": round((rr_win - rr_hold) * win_s / moves * 1000, 3) if moves else None,
            "redis_master_cpu_us_per_match_second_idle": round((r_hold - r_base) / matches * 1e6, 2),
            "redis_master_used_memory_mib": {"before": round(mem0 / 2**20, 2), "end": round(mem1 / 2**20, 2)},
            "redis_master_bytes_per_match": round((mem1 - mem0) / matches),
            "redis_keys": keys,
            # in + out of the masters (replication to the replicas included), bytes per second
            "redis_master_net_bytes_per_s": {"hold": round(net_hold), "play": round(net_play)},
            "wire_bytes_per_move_seat": r["bytes_per_move_seat"],
            "wire_bytes_per_move_spectator": r["bytes_per_move_spectator"],
            "latency_all_ms": r["latency_all_ms"],
            "loadgen_cpu_util": r["loadgen_cpu_util"],
            "machine_cpu_cores_busy_in_play": round(busy, 2),
            "other_cpu_cores_in_play": round(busy - ours - r["loadgen_cpu_util"], 2),
            "loadavg": {"start": load0, "end": load1},
            "loadgen": r,
        }
    finally:
        if sampler is not None and sampler.is_alive():
            sampler.stop()
        if proxy is not None:
            proxy.stop()
        for n in nodes:
            n.terminate()
        for n in nodes:
            try:
                n.wait(20)
            except subprocess.TimeoutExpired:
                n.kill()
                n.wait()
        cluster.stop()


def pairs(r: dict[str, Any], big_spectators: int, spectators: int) -> float:
    """(node, match) pairs loaded during the hold: the nodes' own gauge when it was scraped,
    else the expectation for round robin (bench/capacity_model.py)."""
    g = r.get("node_gauges_in_hold", {}).get("teahouse_loaded_matches")
    if g:
        return float(g)
    mix = Mix(spectators=spectators, big_share=r["big_matches"] / r["matches"], big_spectators=big_spectators)
    return node_pairs(r["matches"], r["nodes"], mix)


def fit(results: list[dict[str, Any]], args: argparse.Namespace) -> dict[str, Any] | None:
    """The model's per-node figures from the 1-node and the 2-node run at the same matches
    (same connections and moves, twice the (node, match) pairs), then what they predict for the
    last run and for the slope between the last two, against what those measured."""
    one = next((r for r in results if r["nodes"] == 1), None)
    two = next((r for r in results if one and r["nodes"] == 2 and r["matches"] == one["matches"]), None)
    if one is None or two is None or len(results) < 3:
        return None
    p1, p2 = pairs(one, args.big_spectators, args.spectators), pairs(two, args.big_spectators, args.spectators)
    idle = lambda r: r["node_cpu_cores"]["hold"] - r["node_cpu_cores"]["baseline"]  # noqa: E731
    per_pair = (idle(two) - idle(one)) / (p2 - p1)
    per_conn = (idle(one) - per_pair * p1) / one["connections"]
    commit = one["node_cpu_ms_per_move_net"]
    follow = (two["node_cpu_ms_per_move_net"] - commit) / (p2 / two["matches"] - 1)
    rss = lambda r: (r["node_rss_mib"]["connected"] - r["node_rss_mib"]["before"]) * 1024  # noqa: E731
    rss_pair = (rss(two) - rss(one)) / (p2 - p1)
    rss_conn = (rss(one) - rss_pair * p1) / one["connections"]
    ridle = lambda r: r["redis_master_cpu_cores"]["hold"] - r["redis_master_cpu_cores"]["baseline"]  # noqa: E731
    redis_pair = (ridle(one) / p1 + ridle(two) / p2) / 2
    redis_move = (one["redis_master_cpu_ms_per_move_net"] + two["redis_master_cpu_ms_per_move_net"]) / 2
    figures = {"node_cpu_ms_per_move": commit, "node_cpu_ms_per_move_per_extra_node": round(follow, 3),
               "node_cpu_us_per_connection_second": round(per_conn * 1e6, 2),
               "node_cpu_us_per_loaded_match_second": round(per_pair * 1e6, 1),
               "node_rss_kib_per_connection": round(rss_conn, 2), "node_rss_kib_per_loaded_match": round(rss_pair, 1),
               "redis_cpu_ms_per_move": round(redis_move, 3),
               "redis_cpu_us_per_loaded_match_second": round(redis_pair * 1e6, 1)}

    def node_cores(r: dict[str, Any], p: float) -> float:  # play, above the nodes' own idle
        return (r["moves_per_s"] * (commit + (p / r["matches"] - 1) * follow) / 1000
                + r["connections"] * per_conn + p * per_pair)

    def redis_cores(r: dict[str, Any], p: float) -> float:
        return r["moves_per_s"] * redis_move / 1000 + p * redis_pair

    # The slope between the last two runs (same nodes, so the nodes' and the cluster's own idle
    # cancel out), per added match, against the same difference of the model.
    b, c = results[-2], results[-1]
    pb, pc = pairs(b, args.big_spectators, args.spectators), pairs(c, args.big_spectators, args.spectators)
    dm = c["matches"] - b["matches"]
    gap = lambda model, measured: round((model - measured) / measured * 100, 1) if measured else None  # noqa: E731
    measured = {
        "node_cpu_ms_per_match_second": (c["node_cpu_cores"]["play"] - b["node_cpu_cores"]["play"]) / dm * 1000,
        "node_rss_kib_per_match": (c["node_rss_mib"]["connected"] - b["node_rss_mib"]["connected"]) * 1024 / dm,
        "redis_master_cpu_us_per_match_second":
            (c["redis_master_cpu_cores"]["play"] - b["redis_master_cpu_cores"]["play"]) / dm * 1e6,
        "redis_used_memory_bytes_per_match":
            (c["redis_master_used_memory_mib"]["end"] - b["redis_master_used_memory_mib"]["end"]) * 2**20 / dm,
    }
    model = {
        "node_cpu_ms_per_match_second": (node_cores(c, pc) - node_cores(b, pb)) / dm * 1000,
        "node_rss_kib_per_match": ((c["connections"] - b["connections"]) * rss_conn + (pc - pb) * rss_pair) / dm,
        "redis_master_cpu_us_per_match_second": (redis_cores(c, pc) - redis_cores(b, pb)) / dm * 1e6,
        # the match's keys as MEMORY USAGE counts them (without the allocator's slack)
        "redis_used_memory_bytes_per_match": float(c.get("redis_keys", {}).get("bytes_per_match", 0)),
    }
    return {"pairs": {"fit_1_node": p1, "fit_2_nodes": p2, "last_two": [pb, pc]}, "figures": figures,
            "against": f"{b['nodes']} nodes, {b['matches']} → {c['matches']} matches",
            "compare": {k: {"model": round(model[k], 4), "measured": round(measured[k], 4),
                            "gap_pct": gap(model[k], measured[k])} for k in model}}


def second_node(results: list[dict[str, Any]]) -> dict[str, Any] | None:
    """1 node against 2 at the same matches: with round robin and no stickiness a match's
    connections land on both nodes, so every move is committed on one and followed (tick, read,
    folded, its own audiences' views) on the other."""
    one = next((r for r in results if r["nodes"] == 1), None)
    two = next((r for r in results if one and r["nodes"] == 2 and r["matches"] == one["matches"]), None)
    if one is None or two is None:
        return None
    return {"node_cpu_ms_per_move_net_1_node": one["node_cpu_ms_per_move_net"],
            "node_cpu_ms_per_move_net_2_nodes": two["node_cpu_ms_per_move_net"],
            "extra_ms_per_move_per_following_node": round(two["node_cpu_ms_per_move_net"] - one["node_cpu_ms_per_move_net"], 3),
            "node_cpu_us_per_connection_second_1_vs_2": [one["node_cpu_us_per_connection_second"],
                                                         two["node_cpu_us_per_connection_second"]]}


ROWS = [
    ("nodes", lambda r: r["nodes"]),
    ("connections", lambda r: r["connections"]),
    ("moves/s in play", lambda r: r["moves_per_s"]),
    ("node CPU, cores: baseline / idle hold / play", lambda r: "{baseline} / {hold} / {play}".format(**r["node_cpu_cores"])),
    ("node idle CPU µs per connection-second (all idle costs)", lambda r: r["node_cpu_us_per_connection_second"]),
    ("node CPU ms per move, gross / net", lambda r: f"{r['node_cpu_ms_per_move_gross']} / {r['node_cpu_ms_per_move_net']}"),
    ("HAProxy CPU ms per move", lambda r: r["haproxy_cpu_ms_per_move"]),
    ("node RSS MiB: before / connected", lambda r: f"{r['node_rss_mib']['before']} / {r['node_rss_mib']['connected']}"),
    ("node RSS KiB per connection / per match", lambda r: f"{r['node_rss_kib_per_connection']} / {r['node_rss_kib_per_match']}"),
    ("Redis CPU cores, masters: baseline / hold / play", lambda r: "{baseline} / {hold} / {play}".format(**r["redis_master_cpu_cores"])),
    ("Redis CPU ms per move net, masters / replicas", lambda r: f"{r['redis_master_cpu_ms_per_move_net']} / {r['redis_replica_cpu_ms_per_move_net']}"),
    ("Redis masters' CPU µs per match-second, idle", lambda r: r["redis_master_cpu_us_per_match_second_idle"]),
    ("Redis used_memory per match / keys per match, bytes", lambda r: f"{r['redis_master_bytes_per_match']} / {r['redis_keys']['bytes_per_match']}"),
    ("Redis log entries per match, bytes per entry", lambda r: f"{r['redis_keys']['log_entries_per_match']}, {r['redis_keys']['log_bytes_per_entry']}"),
    ("Redis log entry payload, bytes", lambda r: r["redis_keys"]["log_entry_payload_bytes"]),
    ("Redis masters' net in + out, KB/s: hold / play", lambda r: f"{r['redis_master_net_bytes_per_s']['hold'] / 1000:.1f} / {r['redis_master_net_bytes_per_s']['play'] / 1000:.1f}"),
    ("wire bytes per move, seat / spectator", lambda r: f"{r['wire_bytes_per_move_seat']} / {r['wire_bytes_per_move_spectator']}"),
    ("move → every recipient p50 / p99 ms", lambda r: f"{r['latency_all_ms']['p50']} / {r['latency_all_ms']['p99']}"),
    ("load generator / everything else, cores", lambda r: f"{r['loadgen_cpu_util']} / {r['other_cpu_cores_in_play']}"),
    ("load average start → end", lambda r: f"{r['loadavg']['start'][0]} → {r['loadavg']['end'][0]}"),
]


def _cell(f: Any, r: dict[str, Any]) -> str:
    try:
        return str(f(r))
    except KeyError:  # a figure an older run of this script did not record
        return "n/a"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="1:60,2:60,2:120",
                    help="NODES:MATCHES per run, comma-separated; the slope is taken between the last two, "
                         "and a run on 1 node beside one on 2 at the same matches gives the cost of a "
                         "second node following each match")
    ap.add_argument("--rate", type=float, default=0.1, help="moves per second per match")
    ap.add_argument("--spectators", type=int, default=2)
    ap.add_argument("--big-share", type=float, default=0.1)
    ap.add_argument("--big-spectators", type=int, default=100)
    ap.add_argument("--duration", type=float, default=60, help="seconds of play per size")
    ap.add_argument("--hold", type=float, default=30, help="seconds every connection is open and idle first")
    ap.add_argument("--baseline", type=float, default=10, help="seconds of nodes with no client first")
    ap.add_argument("--out", default=None, help="write the raw figures here as JSON")
    ap.add_argument("--replot", default=None, help="no run: print the tables of a JSON this script wrote")
    args = ap.parse_args()
    if args.replot:
        saved = json.loads(Path(args.replot).read_text())
        results, wall = saved["sizes"], saved["wall_s"]
        args = argparse.Namespace(**{**saved["args"], "out": args.out, "replot": args.replot})
    else:
        if not (PEERS / "colyseus" / "node_modules" / "ws").exists():
            raise SystemExit("the load generator needs `ws`: (cd bench/peers/colyseus && npm ci)")
        t0 = time.monotonic()
        results = []
        for n, m in (x.split(":") for x in args.sizes.split(",")):
            with tempfile.TemporaryDirectory(prefix="teahouse-capacity-") as d:
                results.append(run_size(args, int(n), int(m), Path(d)))
        wall = round(time.monotonic() - t0, 1)
    sizes = [(r["nodes"], r["matches"]) for r in results]
    report: dict[str, Any] = {"args": {k: v for k, v in vars(args).items() if k != "replot"}, "sizes": results,
                              "second_node": second_node(results), "fit": fit(results, args),
                              "wall_s": wall, "nproc": os.cpu_count()}
    w = max(len(n) for n, _ in ROWS)
    print(f"\nnodes behind HAProxy, Redis Cluster 3 masters + 3 replicas; "
          f"{args.rate} moves/s per match, 4 seats + {args.spectators} spectators, "
          f"{args.big_share:.0%} of matches with {args.big_spectators}")
    print(f"| {'figure':<{w}} | " + " | ".join(f"{n} nodes, {m} matches" for n, m in sizes) + " |")
    print(f"|{'-' * (w + 2)}|" + "|".join("---" for _ in sizes) + "|")
    for name, f in ROWS:
        print(f"| {name:<{w}} | " + " | ".join(_cell(f, r) for r in results) + " |")
    if report["second_node"]:
        print("a second node following each match: " + json.dumps(report["second_node"]))
    if report["fit"]:
        fitted = report["fit"]
        print("\nper-node figures fitted from the 1-node and 2-node runs at the same matches: " + json.dumps(fitted["figures"]))
        print(f"(node, match) pairs: {fitted['pairs']}")
        print(f"\n| slope per added match, {fitted['against']} | model | measured | model vs measured |")
        print("|---|---|---|---|")
        for k, v in fitted["compare"].items():
            print(f"| {k} | {v['model']} | {v['measured']} | {v['gap_pct']}% |")
    if args.out:
        Path(args.out).write_text(json.dumps(report, indent=1) + "\n")
        print(f"raw figures: {args.out}")


if __name__ == "__main__":
    main()
