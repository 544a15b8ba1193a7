"""What the rollouts' policy costs: CPU milliseconds per greedy ply (simple.greedy_move: a
re-dealt world, every legal move decided, folded and judged by the hint), over every decision of a few greedy-vs-greedy matches per game from fixed
seeds (the same positions on any checkout). Also prints a digest of the greedy choices and the
hint's values, so that two checkouts can be shown to play and judge alike. Prints figures;
asserts nothing. Compare checkouts by running this file from each (it puts its own checkout
first on the path); best of --rounds, to shed a busy machine's noise.

    .venv/bin/python bench/bots_plies.py [--games china,pixies] [--players 3] [--matches 3] [--rounds 3]
"""

from __future__ import annotations

import argparse
import hashlib
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # this checkout's service/, not whatever the venv points at

from service.bots import bot_rng  # noqa: E402
from service.bots.simple import greedy_move  # noqa: E402
from service.games import GAMES, fold, get_game  # noqa: E402
from service.games.chance import commit_rng  # noqa: E402
from service.games.interface import Game, State  # noqa: E402
from service.games.playout import START  # noqa: E402


def decisions(game: Game, players: int, matches: int) -> list[tuple[State, int]]:
    """Every (state, seat to act) of `matches` greedy-vs-greedy matches."""
    out = []
    for m in range(matches):
        seed = f"plies-{game.id}-{players}-{m}"
        state = game.initial({}, players)
        state = fold(game, game.decide(state, None, START, commit_rng(seed, 1)), state)
        seq = 1
        while not game.status(state)["finished"]:
            seq += 1
            seat = game.status(state)["to_act"][0]
            out.append((state, seat))
            command = greedy_move(game, state, seat, players, bot_rng(seed, seq, seat))
            state = fold(game, game.decide(state, seat, command, commit_rng(seed, seq)), state)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", default=",".join(GAMES))
    ap.add_argument("--players", type=int, default=0, help="0: each game's minimum")
    ap.add_argument("--matches", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    print(f"greedy plies over every decision of {args.matches} greedy matches per game, best of {args.rounds}")
    print("| game | players | decisions | ms / greedy ply | digest |")
    print("|---|---|---|---|---|")
    for gid in args.games.split(","):
        game = get_game(gid)
        players = args.players or game.min_players
        states = decisions(game, players, args.matches)
        assert game.evaluate is not None
        ply = float("inf")
        for _ in range(args.rounds):
            t = time.process_time()
            chosen = [greedy_move(game, s, seat, players, random.Random(i)) for i, (s, seat) in enumerate(states)]
            ply = min(ply, (time.process_time() - t) * 1000 / len(states))
        values = [game.evaluate(s) for s, _ in states]
        digest = hashlib.sha256(repr((chosen, values)).encode()).hexdigest()[:12]
        print(f"| {gid} | {players} | {len(states)} | {ply:.3f} | {digest} |", flush=True)


if __name__ == "__main__":
    main()
