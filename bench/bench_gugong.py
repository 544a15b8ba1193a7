"""Gùgōng engine figures: fold speed and the time of one full random match.

Run: .venv/bin/python bench/bench_gugong.py
Prints figures; asserts nothing.
"""

from __future__ import annotations

import time

from _engine import fold_speed

from service.games import fold, get_game
from service.games.playout import playout

GAME = get_game("gugong")


def random_match(players: int, seed: str) -> tuple[list[dict], int, float, float]:
    """One match by random legal moves: its events, commits, wall time and legal_moves share."""
    start = time.perf_counter()
    events: list[dict] = []
    commits = 0
    for step in playout(GAME, players, seed):
        events += step.events
        commits += 1
    total = time.perf_counter() - start
    # time legal_moves alone over the same states, to show where a match's time goes
    state = GAME.initial({}, players)
    moves_time = 0.0
    for step in playout(GAME, players, seed):
        state = step.after
        st = GAME.status(state)
        if st["to_act"]:
            t0 = time.perf_counter()
            GAME.legal_moves(state, st["to_act"][0])
            moves_time += time.perf_counter() - t0
    return events, commits, total, moves_time


def main() -> None:
    print(f"{'players':>7} {'commits':>8} {'events':>7} {'match ms':>9} {'moves ms':>9} {'fold events/s':>14} {'views/s':>9}")
    for players in range(GAME.min_players, GAME.max_players + 1):
        runs = [random_match(players, f"bench-{players}-{k}") for k in range(5)]
        runs.sort(key=lambda r: r[2])
        events, commits, seconds, moves = runs[len(runs) // 2]
        state = fold(GAME, events, GAME.initial({}, players))
        n, start = 0, time.perf_counter()
        while time.perf_counter() - start < 0.3:
            for audience in [*range(players), None]:
                GAME.view(state, audience)
                n += 1
        views = n / (time.perf_counter() - start)
        speed = fold_speed(GAME, players, events)
        print(f"{players:>7} {commits:>8} {len(events):>7} {seconds * 1000:>9.1f} {moves * 1000:>9.1f} "
              f"{speed:>14,.0f} {views:>9,.0f}")
    print("match ms: median of 5 full random matches (decide + evolve + legal_moves per commit);")
    print("moves ms: the legal_moves share of that match; events include the control-stack events")


if __name__ == "__main__":
    main()
