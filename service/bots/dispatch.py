"""The bot's search: which of the two Monte Carlo searches over sampled worlds plays a position.

Both see only the seat's information (each world is `Game.redeal` with keep={seat}) and both
judge by the game's evaluation hint alone; neither names a game. What decides is the branching
of the position in front of the bot:

- up to ROLLOUT_MOST_MOVES legal moves: policy rollouts (rollouts.py). Each candidate is
  played out by greedy play for every seat, which costs a one-ply look at every move of every
  ply, affordable where move lists are short, and it judges a move against sensible answers;
- more: ISMCTS (ismcts.py), whose progressive widening lets a few of thousands of moves in at
  a time and whose random rollouts cost nothing per move listed (Khan's ~2,000 placements).

Why the split: against the greedy bot (bench/bots_strength.py; bench/notes/bots.md, "Policy
rollouts") this choice wins more than ISMCTS alone in China and Chinese Squared and as much in
Pixies and Gùgōng, while in Khan a greedy ply sees only a sample of its thousands of placements
and rollouts lose to ISMCTS there, so ISMCTS keeps the wide positions.
"""

from __future__ import annotations

import random

from service.bots import ismcts, rollouts
from service.bots.ismcts import Budget, Choice
from service.games.interface import Game, State

ROLLOUT_MOST_MOVES = 500


def search(game: Game, state: State, seat: int, players: int, rng: random.Random, budget: Budget) -> Choice:
    if len(game.legal_moves(state, seat)) <= ROLLOUT_MOST_MOVES:
        return rollouts.search(game, state, seat, players, rng, budget)
    return ismcts.search(game, state, seat, players, rng, budget)
