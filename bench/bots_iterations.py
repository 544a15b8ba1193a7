"""What one ISMCTS iteration costs: CPU milliseconds per iteration of the bot's search at a few
mid-game positions of a game, reached by random play from fixed seeds (the same positions on
any checkout). Each search runs a fixed number of iterations with no clock, so the figure
includes the root's one-ply look at that many moves, as a 200 ms move would. Prints figures;
asserts nothing. Compare checkouts by running this file from each (it puts its own checkout
first on the path).

    .venv/bin/python bench/bots_iterations.py [--games khan,pixies,gugong] [--players 2] [--iterations 300]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # this checkout's service/, not whatever the venv points at

from service.bots.ismcts import Budget, search  # noqa: E402
from service.bots.simple import random_move  # noqa: E402
from service.games import fold, get_game  # noqa: E402
from service.games.chance import commit_rng  # noqa: E402
from service.games.playout import START  # noqa: E402

POSITIONS = 4


def position(game_id: str, players: int, index: int) -> dict:
    """The index-th test position: the match after 10 + 3 x index random plies."""
    game = get_game(game_id)
    state = game.initial({}, players)
    state = fold(game, game.decide(state, None, START, commit_rng(f"iterations-{index}", 1)), state)
    rng = random.Random(index)
    for ply in range(10 + 3 * index):
        status = game.status(state)
        if status["finished"]:
            break
        seat = status["to_act"][0]
        move = random_move(game, state, seat, players, rng)
        state = fold(game, game.decide(state, seat, move, random.Random(ply)), state)
    return state


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", default="khan,pixies,gugong")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--iterations", type=int, default=300)
    args = ap.parse_args()
    print(f"CPU ms per ISMCTS iteration, {args.iterations} iterations per search, {POSITIONS} positions")
    print("| game | players | moves at each position | ms / iteration at each | mean |")
    print("|---|---|---|---|---|")
    for gid in args.games.split(","):
        game = get_game(gid)
        widths, costs = [], []
        for index in range(POSITIONS):
            state = position(gid, args.players, index)
            status = game.status(state)
            if status["finished"]:
                continue
            seat = status["to_act"][0]
            width = len(game.legal_moves(state, seat))
            if width < 2:
                continue  # one legal move is played without a search
            t = time.process_time()
            search(game, state, seat, args.players, random.Random(1), Budget(args.iterations, None, True))
            widths.append(width)
            costs.append((time.process_time() - t) * 1000 / args.iterations)
        shown = ", ".join(f"{c:.2f}" for c in costs)
        mean = sum(costs) / len(costs) if costs else float("nan")
        print(f"| {gid} | {args.players} | {', '.join(map(str, widths))} | {shown} | {mean:.2f} |")


if __name__ == "__main__":
    main()
