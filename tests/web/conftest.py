from __future__ import annotations

import gc
import warnings

import pytest

from tests.support.server import sqlite_server as running_sqlite_server


@pytest.fixture(scope="module", autouse=True)
def _collect_garbage_left_by_earlier_tests():
    """Earlier asyncio tests can leave unclosed sockets and transports for the garbage
    collector; Playwright allocates enough to run the collector in the middle of a browser test,
    and their ResourceWarnings would then be blamed on it. Collect them here, before, quietly:
    these tests open no asyncio resources of their own (run tests/web alone to see that)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)
        gc.collect()
    yield


@pytest.fixture(scope="session")
def web_server(tmp_path_factory):
    """A real server (sqlite store) serving the web client at /web/ and the JS SDK at /js/."""
    with running_sqlite_server(tmp_path_factory.mktemp("web")) as proc:
        yield proc
