"""A private Redis Cluster for tests: 3 masters + 3 replicas, real redis-server processes with
`--cluster-enabled yes` in a temp dir, joined with `redis-cli --cluster create`."""

from __future__ import annotations

import random
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

NODE_TIMEOUT_MS = 1000  # short, so that a killed master's replica takes over within seconds


def _port_free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def cluster_ports(n: int) -> list[int]:
    """n ports whose cluster-bus ports (port + 10000) are free too, and below 65536."""
    ports: list[int] = []
    while len(ports) < n:
        p = random.randrange(20000, 30000)
        if p not in ports and _port_free(p) and _port_free(p + 10000):
            ports.append(p)
    return ports


def cli(port: int, *args: str, timeout: float = 5) -> str:
    return subprocess.run(["redis-cli", "-p", str(port), *args], capture_output=True, text=True,
                          timeout=timeout).stdout


class LocalCluster:
    def __init__(self, workdir: Path, nodes: int = 6) -> None:
        for exe in ("redis-server", "redis-cli"):
            if shutil.which(exe) is None:
                raise RuntimeError(f"{exe} is not installed (Debian package redis-server / redis-tools)")
        self.dir = workdir
        self.ports = cluster_ports(nodes)
        self.procs: dict[int, subprocess.Popen] = {}

    @property
    def url(self) -> str:
        # Two seeds are enough: the client discovers the rest.
        return "redis+cluster://" + ",".join(f"127.0.0.1:{p}" for p in self.ports[:2])

    def start(self) -> LocalCluster:
        for port in self.ports:
            d = self.dir / str(port)
            d.mkdir(parents=True, exist_ok=True)
            self.procs[port] = subprocess.Popen(
                ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--dir", str(d),
                 "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                 "--cluster-node-timeout", str(NODE_TIMEOUT_MS), "--save", "", "--appendonly", "no",
                 "--logfile", str(d / "redis.log"), "--daemonize", "no"],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for port in self.ports:
            self._wait(lambda p=port: cli(p, "PING").strip() == "PONG", f"node {port} did not start")
        out = subprocess.run(["redis-cli", "--cluster", "create", *[f"127.0.0.1:{p}" for p in self.ports],
                              "--cluster-replicas", "1", "--cluster-yes"],
                             capture_output=True, text=True, timeout=60)
        if out.returncode != 0:
            raise RuntimeError(f"redis-cli --cluster create failed: {out.stdout[-2000:]} {out.stderr[-2000:]}")
        self.wait_healthy()
        return self

    def _wait(self, ok, what: str, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if ok():
                    return
            except (subprocess.SubprocessError, OSError):
                pass
            time.sleep(0.1)
        raise RuntimeError(what)

    def alive(self) -> list[int]:
        return [p for p, proc in self.procs.items() if proc.poll() is None]

    def wait_healthy(self, timeout: float = 30) -> None:
        """cluster_state:ok on every live node, and every live master with a replica in sync."""
        def healthy() -> bool:
            if not all("cluster_state:ok" in cli(p, "CLUSTER", "INFO") for p in self.alive()):
                return False
            for p in self.masters():
                info = cli(p, "INFO", "replication")
                if "connected_slaves:0" in info or "state=online" not in info:
                    return False
            return True
        self._wait(healthy, "the cluster did not become healthy", timeout)

    def masters(self) -> list[int]:
        out = []
        for p in self.alive():
            if "role:master" in cli(p, "INFO", "replication"):
                out.append(p)
        return out

    def master_of(self, key: str) -> int:
        """The port of the live master that serves `key`."""
        slot = int(cli(self.alive()[0], "CLUSTER", "KEYSLOT", key).strip())
        for line in cli(self.alive()[0], "CLUSTER", "NODES").splitlines():
            parts = line.split()
            if "master" in parts[2] and "fail" not in parts[2]:
                for rng in parts[8:]:
                    lo, _, hi = rng.partition("-")
                    if lo.isdigit() and int(lo) <= slot <= int(hi or lo):
                        return int(parts[1].split(":")[1].split("@")[0])
        raise RuntimeError(f"no master serves slot {slot}")

    def kill(self, port: int) -> None:
        """kill -9: no goodbye, like a crashed machine."""
        proc = self.procs[port]
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)

    def wait_failover(self, port: int, timeout: float = 30) -> None:
        """Until the other nodes have promoted the killed master's replica."""
        self._wait(lambda: all("cluster_state:ok" in cli(p, "CLUSTER", "INFO") for p in self.alive())
                   and len(self.masters()) == 3, f"no failover after killing {port}", timeout)

    def stop(self) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                proc.terminate()
        for proc in self.procs.values():
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        self.procs.clear()

    def flush(self) -> None:
        for p in self.masters():
            cli(p, "FLUSHALL")
