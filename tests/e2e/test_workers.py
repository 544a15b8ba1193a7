"""`teahouse serve --workers 2`: two processes on one port sharing a Redis store play one match,
and one scrape of /metrics counts what every process did."""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import websockets
from prometheus_client.parser import text_string_to_metric_families
from teahouse_client import TeahouseClient

from tests.e2e.helpers import close_all, doc_of, play_resilient, seat_players
from tests.support.redis_server import free_port
from tests.support.server import ROOT


@contextlib.asynccontextmanager
async def two_workers(redis_url: str, tmp_path: Path) -> AsyncIterator[tuple[str, subprocess.Popen]]:
    port = free_port()
    log = open(tmp_path / "server.log", "wb")
    proc = subprocess.Popen([sys.executable, "-m", "service.cli", "serve", "--workers", "2", "--port", str(port),
                             "--store", redis_url], cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(url + "/health", timeout=0.5).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline and proc.poll() is None, (tmp_path / "server.log").read_text()
            await asyncio.sleep(0.1)
        yield url, proc
    finally:
        proc.terminate()
        proc.wait(15)
        log.close()


async def test_two_worker_processes_serve_one_match(redis_url, tmp_path):
    async with two_workers(redis_url, tmp_path) as (url, _):
        client = TeahouseClient(url)
        mid = (await client.create_match("pixies", 3))["match"]
        specs = [await client.connect().open() for _ in range(4)]
        spec_views = [await s.spectate(mid) for s in specs]
        _, conns, views = await seat_players(client, mid, 3, record=False)
        await asyncio.gather(*[play_resilient(c, mid, random.Random(i)) for i, c in enumerate(conns)])
        final = (await client.match(mid))["seq"]
        for v in [*views, *spec_views]:
            await v.wait_for(lambda g: g.seq == final)
        rep = await client.replay(mid, final)
        assert all(doc_of(v) == {"view": rep["view"], "status": rep["status"]} for v in spec_views)
        # seven connections over two processes: the presence every one sees counts them all
        await spec_views[0].wait_for(lambda g: g.presence is not None and g.presence["spectators"] == 4)
        # each move's commit counted once, by the process that appended it, and summed by the one
        # scraped (one process alone holds about half); the start's, seq 1, is tested elsewhere
        # (tests/ops/test_metrics_and_logs.py)
        assert final - 1 <= scrape(url)[("teahouse_commits_total", (("game", "pixies"),))] <= final
        await close_all(*conns, *specs)
        await client.aclose()


def test_more_than_one_worker_needs_a_shared_store(tmp_path):
    run = subprocess.run([sys.executable, "-m", "service.cli", "serve", "--workers", "2", "--store",
                          f"sqlite:{tmp_path / 'db'}"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and "needs a shared store" in run.stderr


def scrape(url: str) -> dict[tuple[str, tuple], float]:
    r = httpx.get(url + "/metrics")
    assert r.status_code == 200, r.text
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(r.text) for s in family.samples}


def _children(pid: int) -> list[int]:
    kids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                # field 4 of stat is the parent; the name in field 2 may hold spaces, hence after ")"
                if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    kids.append(int(entry.name))
    return kids


def _owners(server_pid: int, port: int) -> dict[int, int]:
    """Client port -> the server process holding that connection's socket (read from /proc)."""
    inode_to_client = {}
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        local, remote, inode = fields[1], fields[2], fields[9]
        if int(local.split(":")[1], 16) == port and remote != "00000000:0000":
            inode_to_client[inode] = int(remote.split(":")[1], 16)
    owners = {}
    for pid in _children(server_pid):
        with contextlib.suppress(OSError):
            for fd in Path(f"/proc/{pid}/fd").iterdir():
                with contextlib.suppress(OSError):
                    target = os.readlink(fd)
                    if target.startswith("socket:[") and target[8:-1] in inode_to_client:
                        owners[inode_to_client[target[8:-1]]] = pid
    return owners


async def test_one_scrape_counts_every_worker(redis_url, tmp_path):
    async with two_workers(redis_url, tmp_path) as (url, proc):
        port = int(url.rsplit(":", 1)[1])
        before = scrape(url)
        # connections until both workers hold some (the kernel hands each to whichever accepts)
        sockets = []
        for _ in range(60):
            ws = await websockets.connect(url.replace("http", "ws") + "/ws", subprotocols=["teahouse.v1.json"])
            await ws.send("{not json")  # SPEC 5.10: a protocol error, counted by code on the worker
            assert '"error"' in await asyncio.wait_for(ws.recv(), 10)
            sockets.append(ws)
            owners = _owners(proc.pid, port)
            if len(sockets) >= 4 and len(set(owners.values())) == 2:
                break
        assert len(set(_owners(proc.pid, port).values())) == 2, "every connection went to one worker"
        codes = {k for k in scrape(url) if k[0] == "teahouse_errors_total"} - set(before)
        # every scrape (each a new connection, answered by either worker) sees all of them
        for _ in range(6):
            after = scrape(url)
            assert after[("teahouse_connections", ())] == len(sockets)
            assert sum(after[k] - before.get(k, 0) for k in after if k[0] == "teahouse_errors_total") == len(sockets)
            assert after[("teahouse_store_up", ())] == 1
        assert len(codes) == 1
        for ws in sockets:
            await ws.close()
        for _ in range(100):  # the closes reach the workers a moment later
            if scrape(url)[("teahouse_connections", ())] == 0:
                break
            await asyncio.sleep(0.05)
        else:
            raise AssertionError("teahouse_connections did not come back down")
