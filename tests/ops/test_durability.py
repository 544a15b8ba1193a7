"""A node tells its operator, once, when its Redis can lose acknowledged moves on a power loss
(docs/operators.md, Durability): in the log, in /health/ready's body, in the
`teahouse_acks_at_risk` gauge. And /health counts stopped (diverged) matches from the store, so
a restarted node still reports them.

Every case runs a real redis-server with the settings under test and a real server process."""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from service.store import open_store
from tests.support.redis_server import RedisServer
from tests.support.server import ServerProcess, running_server

WARNING = "acknowledged moves could be lost on power loss"


@contextlib.contextmanager
def redis_with(workdir: Path, *settings: str) -> Iterator[RedisServer]:
    workdir.mkdir(parents=True, exist_ok=True)
    r = RedisServer(workdir, settings)
    r.start()
    try:
        yield r
    finally:
        r.stop()


def node(store_url: str, workdir: Path, env: dict[str, str] | None = None):
    """A server whose log holds its info lines too (one log file per server started)."""
    return running_server(store_url, workdir / f"server-{time.monotonic_ns()}.log", env, "info")


def durability_of(proc: ServerProcess) -> dict:
    """The verdict once read (the check runs beside the startup, so wait for it)."""
    deadline = time.monotonic() + 10
    while True:
        body = httpx.get(proc.url + "/health/ready").json()
        if body["durability"]["acks_at_risk"] is not None or time.monotonic() > deadline:
            return body
        time.sleep(0.05)


def gauge(proc: ServerProcess, name: str) -> float:
    text = httpx.get(proc.url + "/metrics").text
    found = re.search(rf"^{name} (\S+)$", text, re.M)
    assert found, f"{name} is not in /metrics"
    return float(found.group(1))


def test_appendfsync_always_is_not_at_risk(tmp_path):
    with redis_with(tmp_path / "r") as r, node(r.url, tmp_path) as proc:
        body = durability_of(proc)
        assert body["ok"] is True
        assert body["durability"]["acks_at_risk"] is False and body["durability"]["known"] is True
        assert body["durability"]["settings"]["appendfsync"] == "always"
        assert gauge(proc, "teahouse_acks_at_risk") == 0
        assert WARNING not in proc.log_text()


def test_appendfsync_everysec_without_replicas_is_said_once(tmp_path):
    with redis_with(tmp_path / "r", "--appendfsync", "everysec") as r, node(r.url, tmp_path) as proc:
        body = durability_of(proc)
        assert body["ok"] is True  # a warning, not a refusal: the node serves
        assert body["durability"]["acks_at_risk"] is True and body["durability"]["known"] is True
        assert "everysec" in body["durability"]["detail"]
        assert gauge(proc, "teahouse_acks_at_risk") == 1
        for _ in range(3):
            httpx.get(proc.url + "/health")
        assert proc.log_text().count(WARNING) == 1


def test_appendonly_no_is_at_risk(tmp_path):
    with redis_with(tmp_path / "r", "--appendonly", "no") as r, node(r.url, tmp_path) as proc:
        d = durability_of(proc)["durability"]
        assert d["acks_at_risk"] is True and d["settings"]["appendonly"] == "no"


def test_everysec_with_enough_replicas_waited_for_is_not_at_risk(tmp_path):
    with redis_with(tmp_path / "p", "--appendfsync", "everysec") as primary, \
            redis_with(tmp_path / "s", "--appendfsync", "everysec", "--replicaof", "127.0.0.1",
                       str(primary.port)):
        deadline = time.monotonic() + 10
        while _replicas(primary) < 1 and time.monotonic() < deadline:
            time.sleep(0.1)
        with node(primary.url, tmp_path, {"TEAHOUSE_WAIT_REPLICAS": "1"}) as proc:
            d = durability_of(proc)["durability"]
            assert d["acks_at_risk"] is False, d
            assert d["settings"]["connected_replicas"] == 1
            assert gauge(proc, "teahouse_acks_at_risk") == 0
        # asking for more replicas than are connected: WAIT times out and acks anyway
        with node(primary.url, tmp_path, {"TEAHOUSE_WAIT_REPLICAS": "2"}) as proc:
            d = durability_of(proc)["durability"]
            assert d["acks_at_risk"] is True and "only 1 replica" in d["detail"]


def test_config_renamed_is_said_and_the_node_still_serves(tmp_path):
    with redis_with(tmp_path / "r", "--rename-command", "CONFIG", "") as r, node(r.url, tmp_path) as proc:
        body = durability_of(proc)
        assert body["ok"] is True
        assert body["durability"]["acks_at_risk"] is True and body["durability"]["known"] is False
        assert "could not be read" in body["durability"]["detail"]
        assert gauge(proc, "teahouse_acks_at_risk") == 1
        assert proc.log_text().count(WARNING) == 1
        # and the node plays: a match can be created
        assert httpx.post(proc.url + "/api/matches", json={"game": "pixies", "players": 2}).status_code == 201


def test_sqlite_is_not_at_risk(tmp_path):
    with node(f"sqlite:{tmp_path / 'data'}", tmp_path) as proc:
        d = durability_of(proc)["durability"]
        assert d["acks_at_risk"] is False and d["known"] is True


@pytest.mark.parametrize("kind", ["redis", "sqlite"])
def test_health_counts_diverged_matches_from_the_store_after_a_restart(tmp_path, kind):
    with contextlib.ExitStack() as stack:
        if kind == "redis":
            url = stack.enter_context(redis_with(tmp_path / "r")).url
        else:
            url = f"sqlite:{tmp_path / 'data'}"
        proc = stack.enter_context(node(url, tmp_path))
        ids = [httpx.post(proc.url + "/api/matches", json={"game": "pixies", "players": 2}).json()["match"]
               for _ in range(3)]
        assert httpx.get(proc.url + "/health").json()["diverged_matches"] == 0
        # Another node marks two of them (what a node that found their logs rewound writes)
        asyncio.run(_mark(url, ids[:2]))
        assert httpx.get(proc.url + "/health").json()["diverged_matches"] == 2
        # This node never saw them diverge, and a fresh one neither: both count the store's
        proc.stop()
        proc.start()
        assert httpx.get(proc.url + "/health").json()["diverged_matches"] == 2
        assert gauge(proc, "teahouse_diverged_matches") == 2
        asyncio.run(_mark(url, ids[:1], clear=True))
        assert httpx.get(proc.url + "/health/ready").json()["diverged_matches"] == 1


async def _mark(url: str, ids: list[str], clear: bool = False) -> None:
    store = open_store(url)
    try:
        for mid in ids:
            await store.mark_diverged(mid, None if clear else {"seen_seq": 5, "log_seq": 3, "node": "other", "ts": 0})
    finally:
        await store.close()


def _replicas(r: RedisServer) -> int:
    import redis

    client = redis.Redis.from_url(r.url)
    try:
        return int(client.info("replication")["connected_slaves"])
    finally:
        client.close()
