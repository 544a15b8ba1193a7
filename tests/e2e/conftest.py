from __future__ import annotations

import pytest

from tests.support.server import ServerProcess


@pytest.fixture(params=["sqlite", "redis"])
def store_url(request, tmp_path):
    if request.param == "sqlite":
        return f"sqlite:{tmp_path / 'data'}"
    return request.getfixturevalue("redis_url")


@pytest.fixture
def server(store_url, tmp_path):
    proc = ServerProcess(store_url, tmp_path / "server.log").start()
    yield proc
    proc.stop()

