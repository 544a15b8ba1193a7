"""What each bot strength is worth in rating points: the server's bots of every strength play
each other (2 seats, every pair of strengths, each side first in turn), pure engines in process
(no server), and the matches are folded in order by the server's own rating fold
(service/match/ratings.py: Glicko-2, one rating period per match). Prints each strength's
rating, deviation and games; asserts nothing. Bounded by `--matches` per pair and `--seconds`.

    .venv/bin/python bench/bots_ratings.py [--game pixies] [--strengths 0,1,2] [--matches 4] [--seconds 600]
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # this checkout's service/, not whatever the venv points at

from service.bots import play  # noqa: E402
from service.games import fold, get_game  # noqa: E402
from service.games.chance import commit_rng  # noqa: E402
from service.games.playout import START  # noqa: E402
from service.match.lobby import bot_player  # noqa: E402
from service.match.ratings import GameFold, Rated, ranks_of  # noqa: E402


def one_match(game_id: str, strengths: tuple[int, int], index: int) -> list[int]:
    """The seats' ranks of one match between bots of these strengths (seat 0 first)."""
    game = get_game(game_id)
    seed = f"ratings-{game_id}-{strengths}-{index}"
    state = game.initial({}, 2)
    state = fold(game, game.decide(state, None, START, commit_rng(seed, 1)), state)
    seq = 1
    while not (status := game.status(state))["finished"]:
        seat = status["to_act"][0]
        command = play(game_id, state, seat, 2, strengths[seat], f"{seed}-{seq}").command
        seq += 1
        state = fold(game, game.decide(state, seat, command, commit_rng(seed, seq)), state)
    return ranks_of(status["result"], 2)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--game", default="pixies")
    ap.add_argument("--strengths", default="0,1,2")
    ap.add_argument("--matches", type=int, default=4, help="matches per pair of strengths (each side first in turn)")
    ap.add_argument("--seconds", type=float, default=600, help="stop starting matches after this long")
    args = ap.parse_args()
    strengths = [int(s) for s in args.strengths.split(",")]
    ratings = GameFold()
    started, played = time.monotonic(), 0
    # Round-robin rounds, so a stop on time leaves every pair with about as many matches.
    for index in range(args.matches):
        for a, b in itertools.combinations(strengths, 2):
            if time.monotonic() - started > args.seconds:
                break
            pair = (a, b) if index % 2 == 0 else (b, a)
            ranks = one_match(args.game, pair, index)
            ratings.apply(f"{index}-{a}-{b}", Rated((bot_player(pair[0]), bot_player(pair[1])), tuple(ranks)))
            played += 1
    print(f"{args.game}: {played} matches in {time.monotonic() - started:.0f} s (Glicko-2, tau 0.5, from 1500/350)")
    print(f"{'player':<16} {'rating':>7} {'RD':>6} {'games':>5}")
    for pid, s in sorted(ratings.standings.items(), key=lambda kv: -kv[1].rating.rating):
        print(f"{pid:<16} {s.rating.rating:7.1f} {s.rating.rd:6.1f} {s.games:5d}{'  provisional' if s.provisional else ''}")


if __name__ == "__main__":
    main()
