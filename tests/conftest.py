from __future__ import annotations

import pytest

from tests.support.redis_server import RedisServer
from tests.support.server import sqlite_server as running_sqlite_server


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory):
    server = RedisServer(tmp_path_factory.mktemp("redis"))
    server.start()
    yield server
    server.stop()


@pytest.fixture
def redis_url(redis_server):
    redis_server.flush()
    return redis_server.url


@pytest.fixture(scope="module")
def sqlite_server(tmp_path_factory):
    """A real server process (uvicorn) on its own SQLite store, shared by a test module."""
    with running_sqlite_server(tmp_path_factory.mktemp("srv")) as proc:
        yield proc


def pytest_collection_modifyitems(config, items):
    """`slow` tests run with TEAHOUSE_SLOW=1 (`make test` and CI set it) and with TEAHOUSE_LONG=1."""
    import os

    if os.environ.get("TEAHOUSE_SLOW") == "1" or os.environ.get("TEAHOUSE_LONG") == "1":
        return
    skip = pytest.mark.skip(reason="slow: set TEAHOUSE_SLOW=1 or TEAHOUSE_LONG=1 (make test does)")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)
