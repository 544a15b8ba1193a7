"""Random play by legal moves: used by bots, property tests and benchmarks.

A playout is the pure core of a match: the `start` system command, then, while the match is
not finished, one seat that the status names picks one of its legal moves. Each commit gets
the rng the server would give it (`commit_rng(seed, seq)`).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from service.games.chance import commit_rng
from service.games.interface import Command, Event, Game, State

START: Command = {"type": "start"}


@dataclass
class Step:
    seq: int
    seat: int | None
    command: Command
    events: list[Event]
    before: State
    after: State


class StuckPlayout(AssertionError):
    pass


def playout(
    game: Game,
    players: int,
    seed: str,
    options: dict[str, Any] | None = None,
    *,
    max_commits: int = 20_000,
    chooser: random.Random | None = None,
) -> Iterator[Step]:
    """Yield every commit of one random match, the start included."""
    pick = chooser or random.Random(seed)
    state = game.initial(dict(options or {}), players)
    seq = 1
    events = game.decide(state, None, START, commit_rng(seed, seq))
    after = _fold(game, state, events)
    yield Step(seq, None, START, events, state, after)
    state = after
    while True:
        status = game.status(state)
        if status["finished"]:
            return
        if seq >= max_commits:
            raise StuckPlayout(f"{game.id}: no end after {max_commits} commits")
        if not status["to_act"]:
            raise StuckPlayout(f"{game.id}: not finished but nobody is to act (phase {status['phase']})")
        seat = pick.choice(status["to_act"])
        moves = game.legal_moves(state, seat)
        if not moves:
            raise StuckPlayout(f"{game.id}: seat {seat} is to act but has no legal move (phase {status['phase']})")
        command = pick.choice(moves)
        seq += 1
        events = game.decide(state, seat, command, commit_rng(seed, seq))
        after = _fold(game, state, events)
        yield Step(seq, seat, command, events, state, after)
        state = after


def _fold(game: Game, state: State, events: list[Event]) -> State:
    for event in events:
        state = game.evolve(state, event)
    return state
