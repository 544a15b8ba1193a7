"""`teahouse serve --workers 2`: two processes on one port sharing a Redis store play one match."""

from __future__ import annotations

import asyncio
import os
import random
import subprocess
import sys
import time

import httpx
from teahouse_client import TeahouseClient

from tests.e2e.helpers import close_all, doc_of, play_resilient, seat_players
from tests.support.redis_server import free_port
from tests.support.server import ROOT


async def test_two_worker_processes_serve_one_match(redis_url, tmp_path):
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
        await close_all(*conns, *specs)
        await client.aclose()
    finally:
        proc.terminate()
        proc.wait(15)
        log.close()


def test_more_than_one_worker_needs_a_shared_store(tmp_path):
    run = subprocess.run([sys.executable, "-m", "service.cli", "serve", "--workers", "2", "--store",
                          f"sqlite:{tmp_path / 'db'}"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and "needs a shared store" in run.stderr
