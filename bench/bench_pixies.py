"""Pixies engine figures: fold speed and the time of one full random match.

Run: .venv/bin/python bench/bench_pixies.py
Prints figures; asserts nothing.
"""

from __future__ import annotations

import time

from _engine import fold_speed, random_match

from service.games import fold, get_game

GAME = get_game("pixies")


def main() -> None:
    print(f"{'players':>7} {'commits':>8} {'events':>7} {'match ms':>9} {'fold events/s':>14} {'views/s':>9}")
    for players in range(GAME.min_players, GAME.max_players + 1):
        times = []
        for k in range(5):
            events, commits, seconds = random_match(GAME, players, f"bench-{players}-{k}")
            times.append(seconds)
        state = fold(GAME, events, GAME.initial({}, players))
        n, start = 0, time.perf_counter()
        while time.perf_counter() - start < 0.3:
            for audience in [*range(players), None]:
                GAME.view(state, audience)
                n += 1
        views = n / (time.perf_counter() - start)
        speed = fold_speed(GAME, players, events)
        median_ms = sorted(times)[len(times) // 2] * 1000
        print(f"{players:>7} {commits:>8} {len(events):>7} {median_ms:>9.1f} {speed:>14,.0f} {views:>9,.0f}")
    print("match ms: median wall time of 5 full random matches (decide + evolve + legal_moves per commit)")


if __name__ == "__main__":
    main()
