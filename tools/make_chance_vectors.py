"""Regenerate protocol/vectors/chance/<game>.json: for each game, a seed and the random outcomes of
its first commit (the `start`), as the server's engine decides them (SPEC 10.6).

    .venv/bin/python -m tools.make_chance_vectors

Each file is a two-line game record's content (service/match/record.py): the header a record
of that match would carry (game, players, options, seed and its commitment, the chance lists)
and the start commit with its events. tests/protocol/test_chance_vectors.py checks that the JS
verifier (clients/js/verify.js, written from the SPEC alone) draws the same outcomes, and that
the engine still does.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from service.games import GAMES, get_game
from service.games.chance import commit_rng, seed_commitment
from service.match.record import FORMAT, FORMAT_VERSION, chance_lists

OUT = Path(__file__).resolve().parent.parent / "protocol" / "vectors" / "chance"
SEED = "c822010b445c3c7336842c5fea4eca3d11a196c74edfa16e67c762f7e156a280"  # SPEC 10's example seed
# One case at the fewest seats, one at the most with an option that adds draws where a game has one.
CASES: dict[str, list[tuple[int, dict[str, Any]]]] = {
    "pixies": [(2, {}), (5, {})],
    "china": [(3, {}), (5, {})],
    "gugong": [(2, {}), (5, {"random_start_hands": True})],
    "khan": [(2, {}), (4, {})],
    "hieroglyphs": [(2, {}), (4, {})],
}


def vector(game_id: str, players: int, options: dict[str, Any]) -> dict[str, Any]:
    g = get_game(game_id)
    state = g.initial(dict(options), players)
    events = g.decide(state, None, {"type": "start"}, commit_rng(SEED, 1))
    head = {"format": FORMAT, "version": FORMAT_VERSION, "game": game_id, "players": players, "options": options,
            "seed_sha256": seed_commitment(SEED), "seed": SEED, "forked_from": None,
            "chance": chance_lists(game_id, options, players)}
    return {"header": head, "commit": {"seq": 1, "seat": None, "command": {"type": "start"}, "events": events}}


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for game_id in GAMES:
        cases = [vector(game_id, n, opts) for n, opts in CASES[game_id]]
        (OUT / f"{game_id}.json").write_text(json.dumps(cases, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
