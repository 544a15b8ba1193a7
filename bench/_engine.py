"""What the per-game engine benchmarks share: timing random matches and folds."""

from __future__ import annotations

import time

from service.games import Game, fold
from service.games.playout import playout


def random_match(game: Game, players: int, seed: str) -> tuple[list[dict], int, float]:
    """Play one match by random legal moves: its events, commits and wall time."""
    start = time.perf_counter()
    events: list[dict] = []
    commits = 0
    for step in playout(game, players, seed):
        events += step.events
        commits += 1
    return events, commits, time.perf_counter() - start


def fold_speed(game: Game, players: int, events: list[dict], budget: float = 1.0) -> float:
    """Events per second when re-folding the whole log from the initial state."""
    initial = game.initial({}, players)
    folds, start = 0, time.perf_counter()
    while time.perf_counter() - start < budget:
        fold(game, events, initial)
        folds += 1
    return folds * len(events) / (time.perf_counter() - start)
