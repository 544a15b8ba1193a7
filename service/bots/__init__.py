"""Bots that play any registered game through the fixed interface, seeing only their seat's
information: random, greedy (one ply), and information-set MCTS at increasing budgets.

`play(game_id, state, seat, players, strength, seed)` is a pure function of its arguments
(picklable, so the server runs it in a worker process): strength 0 plays at random, 1 is
greedy, 2 and up search (dispatch.py: policy rollouts, or ISMCTS where a position lists
thousands of moves) with ISMCTS_ITERATIONS[strength] playouts, capped by
SECONDS_CAP[strength] of the worker's CPU time so that a slow engine never stalls a table (a
move that hits the cap is reproducible only with the iteration count it reached).
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass

from service.bots.dispatch import search
from service.bots.ismcts import Budget
from service.bots.simple import greedy_move, random_move
from service.games import get_game
from service.games.interface import Command, State

STRENGTHS = range(0, 6)
DEFAULT_STRENGTH = 3
ISMCTS_ITERATIONS = {2: 16, 3: 100, 4: 400, 5: 1500}
SECONDS_CAP = {2: 1.0, 3: 2.0, 4: 5.0, 5: 10.0}


@dataclass
class Played:
    command: Command
    iterations: int


def bot_rng(seed: str, *parts: object) -> random.Random:
    """The bot's own randomness: from its seed and where it plays (match seq, seat)."""
    digest = hashlib.sha256("/".join(["teahouse-bot", seed, *map(str, parts)]).encode()).digest()
    return random.Random(int.from_bytes(digest, "big"))


def play(game_id: str, state: State, seat: int, players: int, strength: int, seed: str,
         budget: Budget | None = None) -> Played:
    game = get_game(game_id)
    rng = bot_rng(seed, seat)
    if strength <= 0 or game.redeal is None:
        # A game that cannot re-deal its hidden parts gets only the bot that looks at nothing.
        return Played(random_move(game, state, seat, players, rng), 0)
    if strength == 1:
        return Played(greedy_move(game, state, seat, players, rng), 0)
    level = min(strength, max(STRENGTHS))
    choice = search(game, state, seat, players, rng,
                    budget or Budget(ISMCTS_ITERATIONS[level], SECONDS_CAP[level], cpu=True))
    return Played(choice.command, choice.iterations)
