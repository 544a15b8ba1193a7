"""Does the analysis mean something? For every game, N matches between the server's bots (pure
engines in process, no server), each analysed as the server does (service/bots/chances.py), and
how often the seat with the highest estimated chance at the midpoint (commit last // 2) goes on
to win, with its Wilson 95% interval next to par (a seat picked blindly: 1/n). A shared first
place won by k seats scores 1/k; a midpoint where the estimates tie for first is counted apart
(no pick) and left out of the rate. Prints figures, asserts nothing.

The midpoint's estimate is exactly the one the server's analysis holds for that commit (its
playouts draw from the commit's own stream, seeded by the match's seed and the seq), so by
default only that commit is estimated; `--full` analyses whole matches, as the server's job does,
and checks the midpoint row against it (much slower: every commit's playouts).

Bounded: `--matches` per game, and `--budget-s` in all (no new match is started past it; the
figures say how many were played).

    .venv/bin/python bench/analysis_signal.py [--matches 20] [--players 2] [--playouts 16]
        [--strength 1] [--games pixies,china] [--budget-s 600] [--full]
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

from bench.bots_strength import wilson  # noqa: E402
from service.bots import play  # noqa: E402
from service.bots.chances import analyse, commit_stream, estimate  # noqa: E402
from service.games import GAMES, fold, get_game  # noqa: E402
from service.games.chance import commit_rng  # noqa: E402
from service.games.playout import START  # noqa: E402

# Chinese Squared's default match is several hundred commits; its short mode is the same game.
SHORT = {"hieroglyphs": {"mode": "rounds", "round_limit": 2}}


def bot_match(game_id: str, players: int, strength: int, seed: str) -> tuple[list[dict], list[dict], dict]:
    """A match of the server's bots: its commits ({seq, seat, events}), the state after each,
    and its result."""
    g = get_game(game_id)
    options = SHORT.get(game_id, {})
    state = g.initial(options, players)
    events = g.decide(state, None, START, commit_rng(seed, 1))
    state = fold(g, events, state)
    commits, states = [{"seq": 1, "seat": None, "events": events}], [state]
    pick = random.Random(seed)
    while not (status := g.status(state))["finished"]:
        seq = len(commits) + 1
        seat = pick.choice(status["to_act"])
        command = play(game_id, state, seat, players, strength, f"{seed}/{seq}").command
        events = g.decide(state, seat, command, commit_rng(seed, seq))
        state = fold(g, events, state)
        commits.append({"seq": seq, "seat": seat, "events": events})
        states.append(state)
    return commits, states, status["result"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--matches", type=int, default=20, help="bot matches per game")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--playouts", type=int, default=16, help="playouts per commit (the server's default: 16)")
    ap.add_argument("--strength", type=int, default=1, help="the bots' strength (1: greedy, fast)")
    ap.add_argument("--games", default=",".join(GAMES))
    ap.add_argument("--budget-s", type=float, default=600, help="no new match is started after this many seconds")
    ap.add_argument("--full", action="store_true", help="analyse every commit, as the server does")
    args = ap.parse_args()
    began = time.monotonic()
    print(f"midpoint leader wins? {args.players} players, bots of strength {args.strength}, "
          f"{args.playouts} playouts per commit{' (whole matches analysed)' if args.full else ''}")
    print(f"{'game':<12} {'matches':>7} {'no pick':>7} {'rate':>7} {'95% interval':>15} {'par':>5} {'s/match':>8}")
    for game_id in args.games.split(","):
        g = get_game(game_id)
        players = min(max(args.players, g.min_players), g.max_players)
        score, counted, ties, played = 0.0, 0, 0, 0
        spent = time.monotonic()
        for i in range(args.matches):
            if time.monotonic() - began > args.budget_s:
                break
            seed = f"analysis-signal/{game_id}/{players}/{i}"
            commits, states, result = bot_match(game_id, players, args.strength, seed)
            played += 1
            mid = len(commits) // 2
            # the server's analysis seeds each commit's playouts with the match seed and the seq
            row = estimate(g, states[mid - 1], players, args.playouts, commit_stream(seed, mid))
            if args.full:
                full = analyse(game_id, SHORT.get(game_id, {}), players, g.rules_version, commits, seed, args.playouts)
                assert full["chances"][mid] == [round(p, 6) for p in row], "the midpoint is not the analysis' row"
            best = max(row)
            leaders = [s for s in range(players) if row[s] == best]
            if len(leaders) > 1:
                ties += 1
                continue
            winners = result["winners"] or []
            counted += 1
            score += 1 / len(winners) if leaders[0] in winners else 0.0
        per = (time.monotonic() - spent) / max(1, played)
        low, high = wilson(score, counted)
        rate = f"{score / counted:.0%}" if counted else "-"
        print(f"{game_id:<12} {played:>7} {ties:>7} {rate:>7} {f'{low:.0%} – {high:.0%}':>15} {1 / players:>5.0%} {per:>8.1f}")
    print(f"total {time.monotonic() - began:.0f} s")


if __name__ == "__main__":
    main()
