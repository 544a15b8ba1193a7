from __future__ import annotations

import pytest

from tests.support.server import ServerProcess


@pytest.fixture(scope="session")
def web_server(tmp_path_factory):
    """A real server (sqlite store) serving the web client at /web/ and the JS SDK at /js/."""
    d = tmp_path_factory.mktemp("web")
    proc = ServerProcess(f"sqlite:{d / 'data'}", d / "server.log").start()
    yield proc
    proc.stop()
