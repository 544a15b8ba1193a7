"""How strong the bots are: the ISMCTS bot against the random bot and against the greedy
one-ply bot, for every game, pure engines in process (no server). Prints win rates with
Wilson 95% confidence intervals; asserts nothing.

Each match seats one ISMCTS bot and fills the other seats with the opponent; the ISMCTS seat
rotates over the matches. A shared first place counts as half a win in 2-player games and
as a win otherwise (reported separately as `ties`). The ISMCTS budget is a time per move
(`--ms`, target 200) with a high iteration cap, counted in the bot's own CPU time by default
(`--clock cpu`), so that other jobs on a shared machine do not shrink the search; `--clock wall`
counts wall time instead.

    .venv/bin/python bench/bots_strength.py --matches 10 --ms 200 [--games pixies,khan]
        [--players min|max|both] [--opponents random,greedy] [--jobs 2] [--clock cpu|wall]
"""

from __future__ import annotations

import argparse
import math
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from service.bots import bot_rng
from service.bots.ismcts import Budget, search
from service.bots.simple import greedy_move, random_move
from service.games import GAMES, fold, get_game
from service.games.chance import commit_rng
from service.games.playout import START


@dataclass
class Outcome:
    game: str
    players: int
    opponent: str
    won: float
    tie: bool
    bot_moves: int
    bot_seconds: float
    iterations: int


def one_match(game_id: str, players: int, opponent: str, index: int, ms: int, cpu: bool) -> Outcome:
    game = get_game(game_id)
    me = index % players
    seed = f"strength-{game_id}-{players}-{opponent}-{index}"
    state = game.initial({}, players)
    state = fold(game, game.decide(state, None, START, commit_rng(seed, 1)), state)
    seq, moves, spent, iterations = 1, 0, 0.0, 0
    while not game.status(state)["finished"]:
        seq += 1
        seat = game.status(state)["to_act"][0]
        rng = bot_rng(seed, seq, seat)
        if seat == me:
            t = time.perf_counter()
            choice = search(game, state, seat, players, rng, Budget(100_000, ms / 1000, cpu))
            spent += time.perf_counter() - t
            moves += 1
            iterations += choice.iterations
            command = choice.command
        elif opponent == "greedy":
            command = greedy_move(game, state, seat, players, rng)
        else:
            command = random_move(game, state, seat, players, rng)
        state = fold(game, game.decide(state, seat, command, commit_rng(seed, seq)), state)
    result = game.status(state)["result"]
    assert result is not None
    winners = result["winners"]
    tie = me in winners and len(winners) > 1
    won = (0.5 if players == 2 else 1.0) if tie else float(me in winners)
    return Outcome(game_id, players, opponent, won, tie, moves, spent, iterations)


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", default=",".join(GAMES))
    ap.add_argument("--players", choices=("min", "max", "both"), default="both")
    ap.add_argument("--opponents", default="random,greedy")
    ap.add_argument("--matches", type=int, default=10)
    ap.add_argument("--ms", type=int, default=200)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--clock", choices=("cpu", "wall"), default="cpu")
    args = ap.parse_args()
    cells = []
    for gid in args.games.split(","):
        g = get_game(gid)
        counts = {"min": [g.min_players], "max": [g.max_players], "both": sorted({g.min_players, g.max_players})}[args.players]
        for n in counts:
            for opponent in args.opponents.split(","):
                cells.append((gid, n, opponent))
    print(f"ISMCTS at {args.ms} ms/move ({args.clock} time), {args.matches} matches per cell, {args.jobs} job(s)")
    print(f"{'game':12} {'pl':>2} {'vs':7} {'wins':>6} {'rate':>6} {'95% CI':>13} {'ties':>4} {'iter/move':>9} {'wall ms/move':>12}")
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        for gid, n, opponent in cells:
            outcomes = list(pool.map(one_match, *zip(*[(gid, n, opponent, i, args.ms, args.clock == "cpu") for i in range(args.matches)], strict=True)))
            wins = sum(o.won for o in outcomes)
            lo, hi = wilson(wins, len(outcomes))
            moves = sum(o.bot_moves for o in outcomes) or 1
            print(f"{gid:12} {n:>2} {opponent:7} {wins:>6.1f} {wins / len(outcomes):>6.0%} "
                  f"[{lo:>4.0%}, {hi:>4.0%}] {sum(o.tie for o in outcomes):>4} "
                  f"{sum(o.iterations for o in outcomes) / moves:>9.0f} {1000 * sum(o.bot_seconds for o in outcomes) / moves:>12.0f}",
                  flush=True)


if __name__ == "__main__":
    main()
