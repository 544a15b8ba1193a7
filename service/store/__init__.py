"""Open a store from a URL: `sqlite:PATH` (the default) or `redis://HOST:PORT/DB`."""

from __future__ import annotations

from service.store.base import (
    Commit,
    Conflict,
    EventStore,
    LogRewound,
    MatchRecord,
    SeatRecord,
    StoreUnavailable,
)

__all__ = ["Commit", "Conflict", "EventStore", "LogRewound", "MatchRecord", "SeatRecord", "StoreUnavailable",
           "open_store"]

DEFAULT_URL = "sqlite:teahouse-data"


def open_store(url: str = DEFAULT_URL) -> EventStore:
    if url.startswith(("redis://", "rediss://", "unix://")):
        from service.store.redis import RedisStore

        return RedisStore(url)
    if url.startswith("sqlite:"):
        from service.store.sqlite import SqliteStore

        return SqliteStore(url.removeprefix("sqlite:").removeprefix("//") or "teahouse-data")
    raise ValueError(f"unknown store URL {url!r}: use sqlite:PATH or redis://HOST:PORT")
