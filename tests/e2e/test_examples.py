"""examples/: the random-move client in each language, run as a person runs it, against a real
server: each creates a match, takes every seat, plays it to the end and prints the result,
which must be the server's own record of a finished match."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from tests.clients.node import NODE, node_flags
from tests.support.server import ROOT

EXAMPLES = ROOT / "examples"


def command(language: str, url: str, game: str, players: int) -> list[str]:
    if language == "python":
        return [sys.executable, str(EXAMPLES / "python" / "random_client.py"), url, game, str(players)]
    return [NODE, *node_flags(), str(EXAMPLES / "js" / "random_client.mjs"), url, game, str(players)]


@pytest.mark.parametrize(("language", "game", "players"), [("python", "pixies", 2), ("js", "pixies", 2),
                                                           ("python", "gugong", 3)])
def test_the_example_plays_a_match_to_the_end(sqlite_server, tmp_path: Path, language: str, game: str, players: int):
    source = EXAMPLES / language / ("random_client.py" if language == "python" else "random_client.mjs")
    assert len(source.read_text().splitlines()) <= 70, "an example a person reads in one sitting"
    # Run from elsewhere: the example needs only the installed SDK (Python) or its own path (JS).
    run = subprocess.run(command(language, sqlite_server.url, game, players), cwd=tmp_path, capture_output=True,
                         text=True, timeout=240)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-3000:]
    lines = run.stdout.strip().splitlines()
    assert lines[0].startswith("match ") and lines[-2].startswith("finished after ")
    printed = json.loads(lines[-1].removeprefix("result "))
    summary = httpx.get(f"{sqlite_server.url}/api/matches/{printed['match']}").json()
    assert summary["game"] == game and summary["players"] == players
    assert summary["state"] == printed["state"] == "finished"
    # (winners may be empty: in Gugong a match where nobody arrived has none)
    assert summary["result"] == printed["result"] and "winners" in summary["result"]
    log = httpx.get(f"{sqlite_server.url}/api/matches/{printed['match']}/log").json()
    seats_that_moved = {c["seat"] for c in log["commits"] if c["seat"] is not None}
    assert seats_that_moved == set(range(players)), "the client played every seat"
