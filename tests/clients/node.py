"""Node for the JS SDK's tests: the binary, the flag Node 20 and 21 need for the global
WebSocket, and clients/js's pinned dev dependencies (TypeScript), installed with `npm ci` into
clients/js/node_modules (git ignores it) the first time a test needs them."""

from __future__ import annotations

import re
import shutil
import subprocess

from tests.support.server import ROOT

JS = ROOT / "clients" / "js"
NODE = shutil.which("node") or "/usr/bin/node"
NPM = shutil.which("npm") or "/usr/bin/npm"


def node_flags() -> list[str]:
    out = subprocess.run([NODE, "--version"], capture_output=True, text=True, check=True).stdout
    major = int(re.match(r"v(\d+)", out.strip()).group(1))  # type: ignore[union-attr]
    return ["--experimental-websocket"] if major < 22 else []


def js_dev_dependencies() -> None:
    """`npm ci` in clients/js unless its lockfile's packages are already there."""
    if (JS / "node_modules" / "typescript" / "package.json").exists():
        return
    run = subprocess.run([NPM, "ci", "--no-audit", "--no-fund"], cwd=JS, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
