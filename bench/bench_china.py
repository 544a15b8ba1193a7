"""China engine figures: fold speed, the time of one full random match, and the size of
legal_moves (the enumerated Place actions) along the way.

Run: .venv/bin/python bench/bench_china.py
Prints figures; asserts nothing.
"""

from __future__ import annotations

import time

from _engine import fold_speed

from service.games import get_game
from service.games.playout import playout

GAME = get_game("china")


def random_match(players: int, seed: str) -> tuple[list[dict], int, float, int]:
    """Play one match by random legal moves: its events, commits, wall time and the largest
    legal_moves list met (counted after the clock stops)."""
    start = time.perf_counter()
    steps = list(playout(GAME, players, seed))
    seconds = time.perf_counter() - start
    events = [e for step in steps for e in step.events]
    widest = max(len(GAME.legal_moves(s.before, s.seat)) for s in steps if s.seat is not None)
    return events, len(steps), seconds, widest


def legal_moves_speed(players: int, seed: str, budget: float = 0.5) -> float:
    """legal_moves calls per second over the states of one match."""
    states = [(s.after, GAME.status(s.after)["to_act"]) for s in playout(GAME, players, seed)]
    states = [(st, to_act[0]) for st, to_act in states if to_act]
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < budget:
        for st, seat in states:
            GAME.legal_moves(st, seat)
            n += 1
    return n / (time.perf_counter() - start)


def main() -> None:
    print(
        f"{'players':>7} {'commits':>8} {'events':>7} {'match ms':>9} {'fold events/s':>14}"
        f" {'legal_moves/s':>14} {'max moves':>10}"
    )
    for players in range(GAME.min_players, GAME.max_players + 1):
        times, widest = [], 0
        for k in range(5):
            events, commits, seconds, wide = random_match(players, f"bench-{players}-{k}")
            times.append(seconds)
            widest = max(widest, wide)
        speed = fold_speed(GAME, players, events)
        lm = legal_moves_speed(players, f"bench-{players}-0")
        median_ms = sorted(times)[len(times) // 2] * 1000
        print(
            f"{players:>7} {commits:>8} {len(events):>7} {median_ms:>9.1f} {speed:>14,.0f} {lm:>14,.0f} {widest:>10}"
        )
    print("match ms: median wall time of 5 full random matches (decide + evolve + legal_moves per commit)")
    print("max moves: the longest legal_moves list met in those matches (enumerated Place actions)")


if __name__ == "__main__":
    main()
