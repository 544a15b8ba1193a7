"""Khan engine figures: fold speed, legal-move enumeration on a crowded board, and the time
of one full random match per seat count.

Run: .venv/bin/python bench/bench_khan.py
Prints figures; asserts nothing.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from _engine import fold_speed, random_match  # noqa: E402

from service.games import fold, get_game  # noqa: E402
from service.games.khan.data import BOARDS  # noqa: E402

GAME = get_game("khan")


def crowded_state(players: int = 4, fill: float = 0.8, seed: int = 7) -> dict:
    """A started game whose free land is `fill` covered with yurts of every colour."""
    s = GAME.initial({}, players)
    s = fold(GAME, GAME.decide(s, None, {"type": "start"}, random.Random(seed)), s)
    board = BOARDS[s["board"]]
    rng = random.Random(seed)
    rulers = {c for c in s["rulers"].values() if c is not None}
    yurts = list(s["yurts"])
    for i in range(len(yurts)):
        if board.is_land[i] and yurts[i] is None and i not in rulers and rng.random() < fill:
            yurts[i] = rng.choice([-1, *range(players)])
    return {**s, "yurts": yurts}


def legal_moves_time(state: dict, budget: float = 1.0) -> tuple[float, int, int]:
    seat = GAME.status(state)["to_act"][0]
    moves = GAME.legal_moves(state, seat)
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < budget:
        GAME.legal_moves(state, seat)
        n += 1
    conquests = sum(1 for m in moves if m["type"] == "conquer")
    return (time.perf_counter() - start) / n, len(moves), conquests


def main() -> None:
    print(f"{'players':>7} {'commits':>8} {'events':>7} {'match ms (median of 5)':>23} {'fold events/s':>14}")
    for players in range(GAME.min_players, GAME.max_players + 1):
        times = []
        for k in range(5):
            events, commits, seconds = random_match(GAME, players, f"bench-{players}-{k}")
            times.append(seconds)
        print(f"{players:>7} {commits:>8} {len(events):>7} {statistics.median(times) * 1000:>23.1f} "
              f"{fold_speed(GAME, players, events):>14.0f}")
    for fill in (0.5, 0.8, 1.0):
        per_call, total, conquests = legal_moves_time(crowded_state(fill=fill))
        print(f"legal_moves, 4 players, {int(fill * 100)}% of free land with yurts: {per_call * 1000:.2f} ms "
              f"({total} moves, {conquests} conquests)")


if __name__ == "__main__":
    main()
