from __future__ import annotations

import gc

import pytest
from teahouse_client import TeahouseClient
from teahouse_client.client import Connection

from tests.support.server import ServerProcess


@pytest.fixture(autouse=True)
async def _close_what_the_test_opened(monkeypatch):
    """Every socket and HTTP client a test opens is closed in its own teardown, pass or fail,
    and the garbage is collected there: an unclosed resource is blamed on the test that made
    it, never on whichever test the collector happens to run in."""
    connections: list[Connection] = []
    clients: list[TeahouseClient] = []
    open_connection, init_client = Connection.open, TeahouseClient.__init__

    async def tracked_open(self: Connection) -> Connection:
        connections.append(self)
        return await open_connection(self)

    def tracked_init(self: TeahouseClient, *args, **kwargs) -> None:
        init_client(self, *args, **kwargs)
        clients.append(self)

    monkeypatch.setattr(Connection, "open", tracked_open)
    monkeypatch.setattr(TeahouseClient, "__init__", tracked_init)
    try:
        yield
    finally:
        for conn in connections:
            await conn.close()
        for client in clients:
            await client.aclose()
        gc.collect()


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

