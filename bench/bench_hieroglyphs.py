"""Chinese Squared engine figures: fold speed and the time of one full random match.

Run: .venv/bin/python bench/bench_hieroglyphs.py
Prints figures; asserts nothing. Random play rarely completes a task, so default matches run
to the 60-round safety cap; the figures are for that (longest ordinary) match length.
"""

from __future__ import annotations

import time

from _engine import fold_speed, random_match

from service.games import fold, get_game

GAME = get_game("hieroglyphs")


def per_second(fn, budget: float = 0.3) -> float:
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < budget:
        fn()
        n += 1
    return n / (time.perf_counter() - start)


def main() -> None:
    print(f"{'players':>7} {'commits':>8} {'events':>7} {'match ms':>9} {'fold events/s':>14} "
          f"{'views/s':>9} {'legal_moves/s':>14}")
    for players in range(GAME.min_players, GAME.max_players + 1):
        times = []
        for k in range(5):
            events, commits, seconds = random_match(GAME, players, f"bench-{players}-{k}")
            times.append(seconds)
        state = fold(GAME, events[:len(events) // 2], GAME.initial({}, players))
        seat = GAME.status(state)["to_act"][0]
        views = per_second(lambda s=state, n=players: [GAME.view(s, a) for a in [*range(n), None]]) * (players + 1)
        moves = per_second(lambda s=state, seat=seat: GAME.legal_moves(s, seat))
        speed = fold_speed(GAME, players, events)
        median_ms = sorted(times)[len(times) // 2] * 1000
        print(f"{players:>7} {commits:>8} {len(events):>7} {median_ms:>9.1f} {speed:>14,.0f} "
              f"{views:>9,.0f} {moves:>14,.0f}")
    print("match ms: median wall time of 5 full random matches (decide + evolve + legal_moves per commit)")
    print("views/s and legal_moves/s: measured on the state halfway through the last match")


if __name__ == "__main__":
    main()
