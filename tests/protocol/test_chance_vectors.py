"""protocol/vectors/chance/: each game's start drawn from SPEC 10's example seed. The engines must
still draw exactly those outcomes (else the vectors and SPEC 10.6 are out of date: rerun
`python -m tools.make_chance_vectors` after an intended change and review the diff), and the JS
verifier, written from SPEC 10.6 alone, must draw them too (clients/js/test/verify.test.mjs)."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from service.games import GAMES
from tests.support.server import ROOT
from tools.make_chance_vectors import CASES, OUT, vector

NODE = shutil.which("node") or "/usr/bin/node"


@pytest.mark.parametrize("game_id", GAMES)
def test_the_engine_still_draws_the_vectors(game_id):
    on_disk = json.loads((OUT / f"{game_id}.json").read_text())
    assert on_disk == [vector(game_id, n, opts) for n, opts in CASES[game_id]]


def test_the_js_verifier_draws_every_vector():
    run = subprocess.run([NODE, "--test", "clients/js/test/verify.test.mjs"], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    counts = dict(line.split()[1:3] for line in run.stdout.splitlines() if line.startswith("# ") and len(line.split()) == 3)
    assert int(counts["pass"]) == 1 + 3 * sum(len(c) for c in CASES.values()) and counts["fail"] == "0"
