"""A real HAProxy (the Debian package) in front of Teahouse nodes, and the kill -9 scenario
used by tests/ops/test_balancer.py and bench/ops_failover.py.

The generated config is deploy/haproxy.cfg's, with local ports and short check intervals:
round robin, no stickiness, WebSocket upgrades passed through (HAProxy does so in `mode http`;
`timeout tunnel` governs an upgraded connection), health checks on /health/ready, and
`option redispatch` so that a connection the dead node refuses is tried on another one.
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import httpx
from teahouse_client import TeahouseClient

from tests.support.failover import Run, count_lost, percentile, tracebacks
from tests.support.redis_server import RedisServer, free_port
from tests.support.server import ServerProcess

HAPROXY = "/usr/sbin/haproxy"


def haproxy_config(port: int, nodes: list[tuple[str, int]], check_ms: int = 300) -> str:
    servers = "\n".join(f"    server {name} 127.0.0.1:{p} check inter {check_ms} fall 2 rise 2"
                        for name, p in nodes)
    return f"""global
    maxconn 4096
defaults
    mode http
    timeout connect 2s
    timeout client 60s
    timeout server 60s
    timeout tunnel 1h
    option redispatch
    retries 3
frontend teahouse
    bind 127.0.0.1:{port}
    default_backend nodes
backend nodes
    balance roundrobin
    option httpchk GET /health/ready
    http-check expect status 200
    default-server on-marked-down shutdown-sessions
{servers}
"""


class HAProxy:
    def __init__(self, workdir: Path, nodes: list[tuple[str, int]]) -> None:
        if shutil.which(HAPROXY) is None:
            raise RuntimeError("haproxy is not installed (Debian package haproxy)")
        self.port = free_port()
        self.cfg = workdir / "haproxy.cfg"
        self.cfg.write_text(haproxy_config(self.port, nodes))
        self.log = workdir / "haproxy.log"
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> HAProxy:
        check = subprocess.run([HAPROXY, "-c", "-f", str(self.cfg)], capture_output=True, text=True)
        if check.returncode != 0:
            raise RuntimeError(f"haproxy refused its config: {check.stdout} {check.stderr}")
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen([HAPROXY, "-db", "-f", str(self.cfg)], stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            try:
                if httpx.get(self.url + "/health/ready", timeout=1).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise RuntimeError(f"haproxy did not come up: {self.log.read_text()[-2000:]}")

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(10)
            self.proc = None


@dataclass
class BalancerResult:
    signal: str
    matches: int
    acked: int
    acked_before_kill: int
    lost: int
    resumes: list[float]  # per socket the killed node held: seconds from its loss to joined again
    errors: dict[str, int]
    close_codes: dict[int | None, int]  # how the sockets ended (None: no close frame, a crash)
    exit_code: int | None  # SIGTERM: the node's exit code, and how long it took to exit
    exit_s: float | None
    tracebacks: list[str]  # in the nodes' logs: failures nobody handled

    def line(self) -> str:
        how = "kill -9" if self.signal == "KILL" else f"SIGTERM (exit {self.exit_code} after {self.exit_s:.1f} s)"
        return (f"{how} of 1 of 2 nodes behind HAProxy: {self.matches} matches, {self.acked} moves acked "
                f"({self.acked_before_kill} before the kill), {self.lost} acked moves lost; "
                f"{len(self.resumes)} clients resumed through the balancer, resume p50 "
                f"{percentile(self.resumes, 0.5):.2f} s, max {max(self.resumes, default=0):.2f} s; "
                f"close codes {self.close_codes}; errors seen: {self.errors or 'none'}; "
                f"{len(self.tracebacks)} tracebacks in the nodes' logs")


async def kill_a_node_behind_the_balancer(workdir: Path, matches: int = 6, game: str = "hieroglyphs",
                                          players: int = 2, before_kill: int = 60, timeout: float = 60,
                                          signal: str = "KILL") -> BalancerResult:
    """Stop one of the two nodes mid-play with SIGKILL (a crash) or SIGTERM (a drain, as
    Kubernetes and `docker stop` do it)."""
    redis = RedisServer(workdir)
    redis.start()
    nodes = [ServerProcess(redis.url, workdir / f"node-{n}.log") for n in "ab"]
    proxy = None
    client = None
    run = None
    try:
        for node in nodes:
            await asyncio.to_thread(node.start)
        proxy = await asyncio.to_thread(HAProxy(workdir, [(f"node-{i}", n.port) for i, n in enumerate(nodes)]).start)
        client = TeahouseClient(proxy.url)
        run = Run(client, game, players, matches, timeout)
        await run.start()
        ledger = run.ledger
        await run.until(lambda: ledger.count() >= before_kill, "no play before the kill")
        acked_before = ledger.count()
        exit_code, exit_s = None, None
        if signal == "TERM":
            exit_code, exit_s = await asyncio.to_thread(nodes[0].terminate)
        else:
            await asyncio.to_thread(nodes[0].kill)
        killed_at = time.monotonic()
        await run.until(lambda: all(run.first_ack_sent_after(m, killed_at) is not None or
                                    all(p.view is not None and p.view.over for p in run.players if p.match == m)
                                    for m in run.ids), "play did not resume on every match")
        # every socket the dead node held was found lost and joined again through the balancer
        await run.until(lambda: ledger.reconnects and all(p.conn is not None and not p.conn.lost for p in run.players),
                        "some clients did not resume")
        await run.finish()
        lost = await count_lost(redis.url, ledger)
        return BalancerResult(signal, matches, ledger.count(), acked_before, lost, list(ledger.reconnects),
                              dict(ledger.errors), dict(ledger.close_codes), exit_code, exit_s,
                              tracebacks(*(n.log_text() for n in nodes)))
    finally:
        if run is not None:
            await run.close()
        if client is not None:
            await client.aclose()
        if proxy is not None:
            proxy.stop()
        for node in nodes:
            node.stop()
        redis.stop()
