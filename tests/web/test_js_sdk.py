"""The JS SDK's own tests (clients/js/test, `node --test`), run here so `make test` runs them too:
patch apply against Python-made cases and the shared protocol vectors, the connection state
machine against a fake socket, and two JS seats playing Pixies on a real server."""

from __future__ import annotations

import os
import re
import shutil
import subprocess

from tests.support.server import ROOT

NODE = shutil.which("node") or "/usr/bin/node"


def node_major() -> int:
    out = subprocess.run([NODE, "--version"], capture_output=True, text=True, check=True).stdout
    return int(re.match(r"v(\d+)", out.strip()).group(1))


def test_node_test_suite_passes_with_nothing_skipped(web_server):
    # Node 20 and 21 keep the global WebSocket behind a flag; 22 and later have it.
    flags = ["--experimental-websocket"] if node_major() < 22 else []
    run = subprocess.run([NODE, *flags, "--test", "clients/js/test"], cwd=ROOT, capture_output=True, text=True,
                         timeout=120, env={**os.environ, "TEAHOUSE_URL": web_server.url})
    tail = run.stdout[-3000:] + run.stderr[-2000:]
    assert run.returncode == 0, tail
    counts = dict(re.findall(r"^# (pass|fail|skipped|cancelled) (\d+)$", run.stdout, re.M))
    assert int(counts["pass"]) > 100, tail
    assert counts["fail"] == counts["skipped"] == counts["cancelled"] == "0", tail
    assert "ok " in run.stdout and "two JS seats" in run.stdout
