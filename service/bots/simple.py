"""The two baseline bots: random (any legal move) and greedy (the move that most improves the
seat's lead after one ply, judged in a world re-dealt from what the seat sees)."""

from __future__ import annotations

import random

from service.bots.evaluation import lead, scores
from service.games.chance import lazy_rng
from service.games.interface import Command, Game, IllegalMove, State, fold

GREEDY_SAMPLE = 120  # moves looked at, at most: Khan offers ~2,000 placements


def random_move(game: Game, state: State, seat: int, players: int, rng: random.Random) -> Command:
    return rng.choice(game.legal_moves(state, seat))


def greedy_move(game: Game, state: State, seat: int, players: int, rng: random.Random) -> Command:
    moves = game.legal_moves(state, seat)
    if len(moves) > GREEDY_SAMPLE:
        moves = rng.sample(moves, GREEDY_SAMPLE)
    world = determinize(game, state, seat, rng)
    best: list[Command] = []
    best_value = -float("inf")
    for move in moves:
        try:
            after = fold(game, game.decide(world, seat, move, lazy_rng(rng.random())), world)
        except IllegalMove:
            continue
        value = lead(scores(game, after, players), seat)
        if value > best_value:
            best, best_value = [move], value
        elif value == best_value:
            best.append(move)
    return rng.choice(best or moves)


def determinize(game: Game, state: State, seat: int, rng: random.Random) -> State:
    """A world consistent with what `seat` sees: its hidden parts dealt again at random."""
    if game.redeal is None:
        raise TypeError(f"{game.id} has no redeal: a bot cannot play it without peeking")
    return (game.determinize or game.redeal)(state, rng, frozenset({seat}))
