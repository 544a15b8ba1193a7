from __future__ import annotations

import gc

import pytest

from tests.support.server import sqlite_server as running_sqlite_server


@pytest.fixture(scope="module", autouse=True)
def _collect_garbage_left_by_earlier_tests():
    """Playwright allocates enough to run the garbage collector in the middle of a browser
    test; collect before, so that nothing left for it runs there. Nothing is hidden: the
    end-to-end tests close what they open in their own teardown (tests/e2e/conftest.py), so a
    ResourceWarning here is a real leak of an earlier test, reported as the error it is."""
    gc.collect()
    yield


@pytest.fixture(scope="session")
def web_server(tmp_path_factory):
    """A real server (sqlite store) serving the web client at /web/ and the JS SDK at /js/."""
    with running_sqlite_server(tmp_path_factory.mktemp("web")) as proc:
        yield proc
