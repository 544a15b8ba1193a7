"""Open a store from a URL: `sqlite:PATH` (the default), `redis://HOST:PORT/DB`, or
`redis+cluster://HOST:PORT[,HOST:PORT...]` (seed nodes of a Redis Cluster)."""

from __future__ import annotations

from service.store.base import (
    Claim,
    Commit,
    Conflict,
    DeliveryRecord,
    EventStore,
    HookRecord,
    LogRewound,
    MatchRecord,
    PlayerRecord,
    Rejected,
    SeatRecord,
    StoreUnavailable,
)

__all__ = ["Claim", "Commit", "Conflict", "DeliveryRecord", "EventStore", "HookRecord", "LogRewound", "MatchRecord", "PlayerRecord", "Rejected",
           "SeatRecord",
           "StoreUnavailable", "open_store"]

DEFAULT_URL = "sqlite:teahouse-data"


SHARED_SCHEMES = ("redis://", "rediss://", "unix://", "redis+cluster://")


def open_store(url: str = DEFAULT_URL, wait_replicas: int = 0, wait_timeout_ms: int = 1000) -> EventStore:
    """`wait_replicas`, `wait_timeout_ms`: Redis only (Limits.wait_replicas)."""
    if url.startswith("redis+cluster://"):
        from service.store.redis_cluster import ClusterStore

        return ClusterStore(url, wait_replicas, wait_timeout_ms)
    if url.startswith(("redis://", "rediss://", "unix://")):
        from service.store.redis import RedisStore

        return RedisStore(url, wait_replicas, wait_timeout_ms)
    if url.startswith("sqlite:"):
        from service.store.sqlite import SqliteStore

        return SqliteStore(url.removeprefix("sqlite:").removeprefix("//") or "teahouse-data")
    raise ValueError(f"unknown store URL {url!r}: use sqlite:PATH, redis://HOST:PORT or redis+cluster://HOST:PORT")
