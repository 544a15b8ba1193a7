"""CPU per move of what a commit costs the projection, for every game: each audience's document
(view + status) and its patch diff against the audience's previous one (service/match/projection.py),
over the same random playouts, in CPU time of this process (other jobs on the cores do not
inflate it). Also: the share of diff comparisons settled by identity (`is`), which views that
share unchanged parts (service/games/sharing.py) raise.

Run:
  .venv/bin/python bench/platform_views.py [--playouts 4] [--players 4] [--rounds 5]
  .venv/bin/python bench/platform_views.py --repo /path/to/other/checkout   # the same, other code
Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--playouts", type=int, default=4)
    ap.add_argument("--players", type=int, default=4, help="seats (clamped to each game's range)")
    ap.add_argument("--rounds", type=int, default=5, help="timed rounds; the fastest is kept")
    ap.add_argument("--repo", type=Path, default=Path(__file__).resolve().parent.parent,
                    help="the checkout whose engines and diff are measured")
    args = ap.parse_args()
    sys.path.insert(0, str(args.repo.resolve()))
    from protocol import patch
    from service.games import GAMES, get_game
    from service.games.playout import playout

    same = patch._same
    calls = {"all": 0, "is": 0}

    def counting(a, b):  # only for the identity share, in a separate untimed pass
        calls["all"] += 1
        calls["is"] += a is b
        return same(a, b)

    print(f"platform_views: {args.repo.resolve()}; {args.playouts} playouts per game, best of {args.rounds} rounds")
    print(f"{'game':<12} {'seats':>5} {'moves':>6} {'CPU us/move':>12} {'of it diff':>11} {'settled by is':>14}")
    for game_id in GAMES:
        game = get_game(game_id)
        players = max(game.min_players, min(game.max_players, args.players))
        states = [[step.after for step in playout(game, players, f"views-{game_id}-{players}-{k}")]
                  for k in range(args.playouts)]
        moves = sum(map(len, states))
        audiences = [*range(players), None]
        best_total = best_diff = float("inf")
        for _ in range(args.rounds):
            total = in_diff = 0.0
            for run in states:
                prev: dict = {}
                c0 = time.process_time()
                for state in run:
                    for a in audiences:
                        doc = {"view": game.view(state, a), "status": game.status(state)}
                        if a in prev:
                            d0 = time.process_time()
                            patch.diff(prev[a], doc)
                            in_diff += time.process_time() - d0
                        prev[a] = doc
                total += time.process_time() - c0
            best_total, best_diff = min(best_total, total), min(best_diff, in_diff)
        patch._same = counting
        try:
            for run in states:
                prev = {}
                for state in run:
                    for a in audiences:
                        doc = {"view": game.view(state, a), "status": game.status(state)}
                        if a in prev:
                            patch.diff(prev[a], doc)
                        prev[a] = doc
        finally:
            patch._same = same
        share = calls["is"] / max(calls["all"], 1)
        calls.update(all=0, **{"is": 0})
        print(f"{game_id:<12} {players:>5} {moves:>6} {best_total / moves * 1e6:>12.0f} "
              f"{best_diff / moves * 1e6:>11.0f} {share:>14.1%}")
    print("CPU us/move: process CPU time per commit to build every audience's document (each seat and the "
          "spectators) and diff it against the previous one; of it diff: protocol.patch.diff alone (timer "
          "overhead included); settled by is: the diff's element comparisons answered by identity.")


if __name__ == "__main__":
    main()
