"""How a bot judges a state: a reward per seat in [0, 1], from the result when the game is
over, otherwise from the game's optional evaluation hint (Game.evaluate): the seat's lead
over the best other seat, squashed. Generic: no game is named here."""

from __future__ import annotations

import math

from service.games.interface import Game, State

SQUASH_SHARE = 0.15  # a lead of this share of the mean absolute score is worth tanh(1) (at least 2 points)


def scores(game: Game, state: State, players: int) -> list[float]:
    status = game.status(state)
    if status["finished"] and status["result"] is not None:
        return [float(x) for x in status["result"]["scores"]]
    if game.evaluate is not None:
        return game.evaluate(state)
    return [0.0] * players


def rewards(game: Game, state: State, players: int) -> list[float]:
    """1 for a win, 0 for a loss (shared wins split), when the game is over; else a lead in
    score mapped into (0, 1), so that a sure win still beats a promising position."""
    status = game.status(state)
    if status["finished"] and status["result"] is not None:
        winners = status["result"]["winners"]
        return [1.0 / len(winners) if seat in winners else 0.0 for seat in range(players)]
    points = scores(game, state, players)
    return [0.05 + 0.9 * _squash(lead(points, seat), points) for seat in range(players)]


def lead(points: list[float], seat: int) -> float:
    others = [p for s, p in enumerate(points) if s != seat]
    return points[seat] - (max(others) if others else 0.0)


def _squash(value: float, points: list[float]) -> float:
    scale = max(2.0, SQUASH_SHARE * sum(abs(p) for p in points) / max(1, len(points)))
    return 0.5 + 0.5 * math.tanh(value / scale)
