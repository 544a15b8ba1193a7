"""A real Teahouse server in its own process (uvicorn on a real socket), so tests can kill it."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

from tests.support.redis_server import free_port

ROOT = Path(__file__).resolve().parents[2]
# Every test client connects from 127.0.0.1: to the per-address limits a whole test run is one
# client. They are off here unless a test sets them (tests/ops/test_operator_limits.py does).
HARNESS_ENV = {"TEAHOUSE_MATCHES_PER_ADDRESS_PER_MINUTE": "0", "TEAHOUSE_CONNECTIONS_PER_ADDRESS": "0"}


class ServerProcess:
    def __init__(self, store_url: str, log_path: Path) -> None:
        self.store_url = store_url
        self.log_path = log_path
        self.port = free_port()
        self.proc: subprocess.Popen | None = None
        self.log_level = "warning"
        self.env: dict[str, str] = {}  # extra environment (e.g. shorter limits for a test)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> ServerProcess:
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "service.cli", "serve", "--port", str(self.port),
                 "--store", self.store_url, "--log-level", self.log_level],
                cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env={**os.environ, "PYTHONUNBUFFERED": "1", **HARNESS_ENV, **self.env},
            )
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited: {self.log_path.read_text()[-2000:]}")
            try:
                if httpx.get(self.url + "/health", timeout=0.5).status_code == 200:
                    return self
            except httpx.HTTPError:
                time.sleep(0.05)
        raise RuntimeError("server did not come up")

    def kill(self) -> None:
        """SIGKILL: no shutdown hooks, like a crashed node."""
        if self.proc is not None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)
            self.proc = None

    def terminate(self, timeout: float = 30) -> tuple[int, float]:
        """SIGTERM, as Kubernetes or `docker stop` sends it; wait for the exit.
        Returns (exit code, seconds it took)."""
        assert self.proc is not None
        t = time.monotonic()
        self.proc.terminate()
        rc = self.proc.wait(timeout)
        self.proc = None
        return rc, time.monotonic() - t

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            self.proc = None

    def log_text(self) -> str:
        return self.log_path.read_text(errors="replace")


@contextlib.contextmanager
def running_server(store_url: str, log_path: Path, env: dict[str, str] | None = None,
                   log_level: str = "warning") -> Iterator[ServerProcess]:
    """A server on `store_url` (`env`: limits set for a test), stopped on exit."""
    proc = ServerProcess(store_url, log_path)
    proc.env = dict(env or {})
    proc.log_level = log_level
    proc.start()
    try:
        yield proc
    finally:
        proc.stop()


@contextlib.contextmanager
def sqlite_server(workdir: Path, env: dict[str, str] | None = None) -> Iterator[ServerProcess]:
    """A server on a fresh SQLite store in `workdir` (`env`: limits set for a test), stopped on exit."""
    with running_server(f"sqlite:{workdir / 'data'}", workdir / "server.log", env) as proc:
        yield proc
