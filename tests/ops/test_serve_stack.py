"""`teahouse serve` runs on uvloop and httptools (both dependencies in pyproject.toml): a
node's CPU per move is mostly the event loop and the transport, and uvicorn's
"auto" would fall back to the pure-Python asyncio loop and h11 without a word."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.server import sqlite_server


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="reads /proc/<pid>/maps (Linux)")
def test_the_server_process_runs_on_uvloop_and_httptools(tmp_path):
    with sqlite_server(tmp_path) as server:
        assert server.proc is not None
        maps = Path(f"/proc/{server.proc.pid}/maps").read_text()
    assert "/uvloop/loop." in maps, "the server's event loop is not uvloop"
    assert "/httptools/parser/parser." in maps, "the server's HTTP parser is not httptools"
