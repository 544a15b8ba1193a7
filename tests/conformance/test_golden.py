"""Golden playthroughs: one seeded random match per game at its smallest and largest seat
count, every step written out (command, events, every audience's view, legal moves, status)
and diffed against tests/golden/. Regenerate after an intended rules change with
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
# Long move lists (a conquest's every placement) are kept as a count and a digest so a
# golden file stays readable; the digest still catches any change.
MOVES_IN_FULL = 60

CASES = sorted({(gid, n) for gid in GAMES for n in (get_game(gid).min_players, get_game(gid).max_players)})


def _moves(moves: list) -> object:
    if len(moves) <= MOVES_IN_FULL:
        return moves
    blob = orjson.dumps(moves, option=orjson.OPT_SORT_KEYS)
    return {"count": len(moves), "sha256": hashlib.sha256(blob).hexdigest(), "first": moves[:10]}


def render(game_id: str, players: int) -> bytes:
    g = get_game(game_id)
    lines = []
    for step in playout(g, players, f"golden-{game_id}-{players}", chooser=random.Random(2026)):
        st = g.status(step.after)
        record = {
            "seq": step.seq,
            "seat": step.seat,
            "command": step.command,
            "events": step.events,
            "status": st,
            "views": {("spectator" if a is None else str(a)): g.view(step.after, a) for a in [*range(players), None]},
            "legal_moves": {str(s): _moves(g.legal_moves(step.after, s)) for s in st["to_act"]},
        }
        lines.append(orjson.dumps(record, option=orjson.OPT_SORT_KEYS))
    return b"\n".join(lines) + b"\n"


@pytest.mark.parametrize("game_id,players", CASES, ids=[f"{g}-{n}p" for g, n in CASES])
def test_golden_playthrough(game_id, players):
    path = GOLDEN / f"{game_id}-{players}p.jsonl"
    got = render(game_id, players)
    if REGEN or not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(got)
        if not REGEN:
            pytest.fail(f"{path.name} did not exist; written now. Review and commit it.")
        return
    want = path.read_bytes()
    if got != want:
        for i, (a, b) in enumerate(zip(got.splitlines(), want.splitlines(), strict=False)):
            if a != b:
                pytest.fail(f"{path.name}: step line {i + 1} differs.\nwant: {b[:600]!r}\ngot:  {a[:600]!r}")
        pytest.fail(f"{path.name}: length differs ({len(got.splitlines())} vs {len(want.splitlines())} steps)")
