"""The gates every commit passes: ruff over the tree, mypy over the server, protocol and SDK."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_ruff():
    out = run("ruff", "check", ".")
    assert out.returncode == 0, out.stdout + out.stderr


def test_mypy():
    out = run("mypy", "protocol", "service", "clients/python")
    assert out.returncode == 0, out.stdout + out.stderr


def test_protocol_is_sans_io():
    """protocol/ is shared by the server and every client: it must not do I/O."""
    banned = ("asyncio", "starlette", "uvicorn", "redis", "websockets", "httpx", "socket", "sqlite3")
    for path in (ROOT / "protocol").rglob("*.py"):
        for line in path.read_text().splitlines():
            words = line.split()
            if words[:1] in (["import"], ["from"]) and len(words) > 1:
                assert words[1].split(".")[0] not in banned, f"{path.name}: {line.strip()}"
