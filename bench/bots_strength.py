"""How strong the bots are: the server's search bot (service/bots/dispatch.py: policy rollouts,
or ISMCTS where a position lists thousands of moves; `--search` picks one of the two alone)
against the random bot and against the greedy one-ply bot, for every game, pure engines in
process (no server). Prints win rates with Wilson 95% confidence intervals next to par;
asserts nothing.

What a win rate means (the same at 2 players and at the max player count): each match seats
ONE search bot and fills the other n-1 seats with the opponent bot; the searching seat rotates
over the matches. The searching seat scores 1 when it finishes alone in first place, 1/k when it
shares first place with k-1 others, else 0. The rate is that score's mean, so the n seats'
expected scores add up to 1 and **par** (a bot exactly as strong as its opponents) is 1/n:
50% at 2 players, 20% in a 5-player match. The issue's targets (90% vs random, 65% vs greedy)
are stated for 2 players; at n players the same figure means beating n-1 opponents at once.

The search's budget is a time per move (`--ms`, target 200) with a high iteration cap, counted
in the bot's own CPU time by default (`--clock cpu`), so that other jobs on a shared machine
do not shrink the search; `--clock wall` counts wall time instead.

    .venv/bin/python bench/bots_strength.py --matches 20 --ms 200 [--games pixies,khan]
        [--players min|max|both] [--opponents random,greedy] [--jobs 2] [--clock cpu|wall]
        [--cells china:3:greedy,khan:4:random]   # instead of games x players x opponents
        [--search bot|rollouts|ismcts] [--set NAME=VALUE]   # experiments: a module constant
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # this checkout's service/, not whatever the venv points at

from service.bots import bot_rng, dispatch, evaluation, ismcts, rollouts  # noqa: E402
from service.bots.dispatch import search as bot_search  # noqa: E402
from service.bots.ismcts import Budget  # noqa: E402
from service.bots.simple import greedy_move, random_move  # noqa: E402
from service.games import GAMES, fold, get_game  # noqa: E402
from service.games.chance import commit_rng  # noqa: E402
from service.games.playout import START  # noqa: E402


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


SEARCHES = {"bot": bot_search, "ismcts": ismcts.search, "rollouts": rollouts.search}


def _module(name: str, searcher: str) -> ModuleType | None:
    """The module whose constant NAME a `--set` overrides for this search."""
    own = {"bot": (dispatch, rollouts, ismcts), "ismcts": (ismcts,), "rollouts": (rollouts,)}[searcher]
    return next((m for m in (*own, evaluation) if hasattr(m, name)), None)


def one_match(game_id: str, players: int, opponent: str, index: int, ms: int, cpu: bool,
              knobs: dict[str, float] | None = None, searcher: str = "bot") -> Outcome:
    for name, value in (knobs or {}).items():
        module = _module(name, searcher)
        setattr(module, name, type(getattr(module, name))(value))
    search = SEARCHES[searcher]
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
            t = time.process_time() if cpu else time.perf_counter()
            choice = search(game, state, seat, players, rng, Budget(100_000, ms / 1000, cpu))
            spent += (time.process_time() if cpu else time.perf_counter()) - t
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
    won = 1.0 / len(winners) if me in winners else 0.0
    return Outcome(game_id, players, opponent, won, tie, moves, spent, iterations)


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def _cells(args: argparse.Namespace) -> list[tuple[str, int, str]]:
    if args.cells:
        out = []
        for cell in args.cells.split(","):
            gid, n, opponent = cell.split(":")
            out.append((gid, int(n), opponent))
        return out
    cells = []
    for gid in args.games.split(","):
        g = get_game(gid)
        counts = {"min": [g.min_players], "max": [g.max_players], "both": sorted({g.min_players, g.max_players})}[args.players]
        for n in counts:
            for opponent in args.opponents.split(","):
                cells.append((gid, n, opponent))
    return cells


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", default=",".join(GAMES))
    ap.add_argument("--players", choices=("min", "max", "both"), default="both")
    ap.add_argument("--opponents", default="random,greedy")
    ap.add_argument("--cells", default="", help="game:players:opponent,... instead of the three above")
    ap.add_argument("--matches", type=int, default=20)
    ap.add_argument("--first", type=int, default=0, help="index of the first match (to extend a sample)")
    ap.add_argument("--ms", type=int, default=200)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--clock", choices=("cpu", "wall"), default="cpu")
    ap.add_argument("--search", choices=sorted(SEARCHES), default="bot",
                    help="the searching seat's algorithm: the bot's (by branching) or one of the two")
    ap.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                    help="override a constant of the search's modules or of evaluation.py (experiments)")
    args = ap.parse_args()
    knobs = {name: float(value) for name, value in (kv.split("=") for kv in args.set)}
    for name in knobs:
        if not name.isupper() or _module(name, args.search) is None:
            ap.error(f"neither {args.search} nor evaluation has a constant {name}")
    print(f"{args.search} at {args.ms} ms/move ({args.clock} time), matches {args.first}..{args.first + args.matches - 1} "
          f"per cell, {args.jobs} job(s); one searching seat, the others the opponent; ties split"
          + "".join(f"; {kv}" for kv in args.set))
    print("| game | players | vs | wins / matches | rate | Wilson 95% | par | ties | iterations / move | ms / move |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        for gid, n, opponent in _cells(args):
            jobs = [(gid, n, opponent, i, args.ms, args.clock == "cpu", knobs, args.search) for i in range(args.first, args.first + args.matches)]
            outcomes = []
            for o in pool.map(one_match, *zip(*jobs, strict=True)):
                outcomes.append(o)
                # One line per match on stderr: a run cut short still tells what it played.
                print(f"# {gid} {n} {opponent} match {args.first + len(outcomes) - 1}: {o.won:g} "
                      f"({o.iterations / max(1, o.bot_moves):.0f} iterations/move)", file=sys.stderr, flush=True)
            wins = sum(o.won for o in outcomes)
            lo, hi = wilson(wins, len(outcomes))
            moves = sum(o.bot_moves for o in outcomes) or 1
            print(f"| {gid} | {n} | {opponent} | {wins:g} / {len(outcomes)} | {wins / len(outcomes):.0%} | "
                  f"[{lo:.0%}, {hi:.0%}] | {1 / n:.0%} | {sum(o.tie for o in outcomes)} | "
                  f"{sum(o.iterations for o in outcomes) / moves:.0f} | {1000 * sum(o.bot_seconds for o in outcomes) / moves:.0f} |",
                  flush=True)


if __name__ == "__main__":
    main()
