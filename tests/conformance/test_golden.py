"""Golden playthroughs: one seeded random match per game at its smallest and largest seat
count, diffed against tests/golden/.

Each step is one short line (seq, seat, command, status, and a digest of everything the step
produced: its events, every audience's view, the legal moves); the full record of a few
checkpoint steps (the start, the middle, the end) is kept beside it, pretty-printed, so that a
rules change shows up as a reviewable diff. Regenerate after an intended rules change with
TEAHOUSE_REGEN_GOLDEN=1 and review the diff like code.
"""

from __future__ import annotations

import hashlib
import os
import random
from pathlib import Path

import orjson
import pytest

from service.games import GAMES, get_game
from service.games.playout import playout

GOLDEN = Path(__file__).resolve().parent.parent / "golden"
REGEN = os.environ.get("TEAHOUSE_REGEN_GOLDEN") == "1"
# Long move lists (a conquest's every placement) are kept as a count and a digest in the
# checkpoints so they stay readable; the digest still catches any change.
MOVES_IN_FULL = 60

CASES = sorted({(gid, n) for gid in GAMES for n in (get_game(gid).min_players, get_game(gid).max_players)})


def _moves(moves: list) -> object:
    if len(moves) <= MOVES_IN_FULL:
        return moves
    blob = orjson.dumps(moves, option=orjson.OPT_SORT_KEYS)
    return {"count": len(moves), "sha256": hashlib.sha256(blob).hexdigest(), "first": moves[:10]}


def _digest(value: object) -> str:
    return hashlib.sha256(orjson.dumps(value, option=orjson.OPT_SORT_KEYS)).hexdigest()[:32]


def render(game_id: str, players: int) -> tuple[bytes, bytes]:
    """(one line per step, the full records of the checkpoint steps)."""
    g = get_game(game_id)
    steps, records = [], []
    for step in playout(g, players, f"golden-{game_id}-{players}", chooser=random.Random(2026)):
        st = g.status(step.after)
        produced = {
            "events": step.events,
            "views": {("spectator" if a is None else str(a)): g.view(step.after, a) for a in [*range(players), None]},
            "legal_moves": {str(s): g.legal_moves(step.after, s) for s in st["to_act"]},
        }
        steps.append(orjson.dumps({"seq": step.seq, "seat": step.seat, "command": step.command,
                                   "status": st, "digest": _digest(produced)}, option=orjson.OPT_SORT_KEYS))
        produced["legal_moves"] = {s: _moves(m) for s, m in produced["legal_moves"].items()}
        records.append({"seq": step.seq, **produced})
    checkpoints = sorted({1, (len(records) + 1) // 2, len(records)})
    full = [records[seq - 1] for seq in checkpoints]
    return b"\n".join(steps) + b"\n", orjson.dumps(full, option=orjson.OPT_SORT_KEYS | orjson.OPT_INDENT_2) + b"\n"


def _first_difference(got: object, want: object, path: str = "") -> str:
    if isinstance(got, dict) and isinstance(want, dict):
        for k in sorted(set(got) | set(want)):
            if got.get(k) != want.get(k):
                return _first_difference(got.get(k), want.get(k), f"{path}.{k}")
    if isinstance(got, list) and isinstance(want, list) and len(got) == len(want):
        for i, (a, b) in enumerate(zip(got, want, strict=True)):
            if a != b:
                return _first_difference(a, b, f"{path}[{i}]")
    return f"{path}: want {str(want)[:300]}, got {str(got)[:300]}"


@pytest.mark.parametrize("game_id,players", CASES, ids=[f"{g}-{n}p" for g, n in CASES])
def test_golden_playthrough(game_id, players):
    steps_path = GOLDEN / f"{game_id}-{players}p.steps.jsonl"
    full_path = GOLDEN / f"{game_id}-{players}p.checkpoints.json"
    got_steps, got_full = render(game_id, players)
    if REGEN:
        GOLDEN.mkdir(parents=True, exist_ok=True)
        steps_path.write_bytes(got_steps)
        full_path.write_bytes(got_full)
        return
    # A missing golden file fails: it is an input of this test, never made up on the spot.
    assert steps_path.exists() and full_path.exists(), \
        f"{steps_path.name} or {full_path.name} is missing; regenerate with TEAHOUSE_REGEN_GOLDEN=1"
    want_full = orjson.loads(full_path.read_bytes())
    full = orjson.loads(got_full)
    for got, want in zip(full, want_full, strict=False):
        if got != want:
            pytest.fail(f"{full_path.name}: checkpoint at seq {want['seq']} differs at "
                        f"{_first_difference(got, want)}")
    want_steps = steps_path.read_bytes()
    if got_steps != want_steps:
        for i, (a, b) in enumerate(zip(got_steps.splitlines(), want_steps.splitlines(), strict=False)):
            if a != b:
                pytest.fail(f"{steps_path.name}: step {i + 1} differs (its events, views or legal moves, "
                            f"if the digest alone differs).\nwant: {b[:600]!r}\ngot:  {a[:600]!r}")
        pytest.fail(f"{steps_path.name}: length differs "
                    f"({len(got_steps.splitlines())} vs {len(want_steps.splitlines())} steps)")
    assert full == want_full
