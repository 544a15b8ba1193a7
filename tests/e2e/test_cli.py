"""`teahouse bot` and `teahouse replay` as a user runs them, against a real server."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from service.match.lobby import new_match_id

TEAHOUSE = [sys.executable, "-m", "service.cli"]
ROOT = Path(__file__).resolve().parents[2]


def run(*args: str, url: str | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "TEAHOUSE_URL"}
    if url is not None:
        env["TEAHOUSE_URL"] = url
    return subprocess.run([*TEAHOUSE, *args], capture_output=True, text=True, timeout=timeout, env=env, cwd=ROOT)


def one_clear_line(proc: subprocess.CompletedProcess) -> str:
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr + proc.stdout
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    return lines[0]


def test_bot_takes_the_server_from_teahouse_url_and_says_where_to_watch(sqlite_server):
    proc = run("bot", "--game", "pixies", "--players", "2", url=sqlite_server.url)
    assert proc.returncode == 0, proc.stderr
    first = proc.stdout.splitlines()[0]
    assert first.endswith("/web/#/match/" + first.split("]")[0].lstrip("[")) and sqlite_server.url in first
    mid = first.split("]")[0].lstrip("[")
    assert httpx.get(f"{sqlite_server.url}/api/matches/{mid}").json()["state"] == "finished"


def test_replay_prints_a_finished_match_from_its_log(sqlite_server):
    mid = run("bot", "--game", "khan", "--players", "2", "--quiet", "--url", sqlite_server.url)
    assert mid.returncode == 0, mid.stderr
    summary = [m for m in httpx.get(f"{sqlite_server.url}/api/matches?state=finished").json()
               if m["game"] == "khan"][0]
    proc = run("replay", summary["match"], url=sqlite_server.url)
    assert proc.returncode == 0, proc.stderr
    log = httpx.get(f"{sqlite_server.url}/api/matches/{summary['match']}/log").json()
    assert proc.stdout.count("--- seq ") == len(log["commits"])
    assert proc.stdout.rstrip().splitlines()[-1].startswith("result:")
    assert "phase finished, to act []" in proc.stdout


@pytest.mark.parametrize("args,says", [
    (["bot", "--game", "chess"], "unknown game"),
    (["replay", "NoSuchMatch1"], "no match has the id"),
])
def test_a_refusal_is_one_line(sqlite_server, args, says):
    assert says in one_clear_line(run(*args, url=sqlite_server.url))


def test_a_server_that_is_down_is_one_line():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    for args in (["bot"], ["replay", "abc"]):
        line = one_clear_line(run(*args, url=f"http://127.0.0.1:{port}"))
        assert "cannot reach the server" in line and str(port) in line


def test_match_ids_never_look_like_options():
    assert not any(new_match_id().startswith("-") for _ in range(20_000))
