"""The fixed game interface every rules engine implements (see ../shared/DESIGN.md).

A game is a *decider*: pure functions over plain data (dict, list, str, int, bool, None).
Nothing here does I/O or draws random numbers; the rng comes in as an argument to `decide`
and every random outcome is written into the events it returns.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, NotRequired, TypedDict

State = dict[str, Any]
Command = dict[str, Any]
Event = dict[str, Any]
View = dict[str, Any]


class Result(TypedDict):
    scores: list[int]
    ranking: list[int]   # seats, best first
    winners: list[int]
    ranks: NotRequired[list[int]]  # per seat, 1 = first; shared places repeat (1, 1, 3)


class Status(TypedDict):
    phase: str
    to_act: list[int]
    finished: bool
    result: Result | None


class IllegalMove(Exception):
    """A command the rules refuse. `code` is stable and machine-readable (snake_case);
    `message` is a sentence a person understands."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


@dataclass(frozen=True)
class Commands:
    """Every command a game takes and the fields each may carry besides `type`.

    `player` are the commands a seat sends; `system` those only the server sends (seat None),
    always including `start`."""

    player: Mapping[str, frozenset[str]] = field(default_factory=dict)
    system: Mapping[str, frozenset[str]] = field(default_factory=lambda: {"start": frozenset()})

    def fields(self, seat: int | None, kind: str) -> frozenset[str] | None:
        table = self.system if seat is None else self.player
        return table.get(kind)


@dataclass(frozen=True)
class Game:
    """One registered game: its facts and its pure functions."""

    id: str
    name: str
    min_players: int
    max_players: int
    rules_version: int
    initial: Callable[[dict[str, Any], int], State]
    decide: Callable[[State, int | None, Command, random.Random], list[Event]]
    evolve: Callable[[State, Event], State]
    view: Callable[[State, int | None], View]
    legal_moves: Callable[[State, int], list[Command]]
    status: Callable[[State], Status]
    # Strings that only `seat` may see right now (seat None: strings nobody may see, such
    # as the order of a face-down deck). Each must be a whole string value somewhere in the
    # state, unique enough that finding its msgpack encoding in another audience's bytes
    # proves a leak. The conformance suite and the end-to-end canary tests use it.
    secrets: Callable[[State, int | None], list[str]]
    # The public, unchanging facts a client needs to draw this game for these options and
    # seat count: board geometry, card faces, tile shapes. Never anything hidden.
    reference: Callable[[dict[str, Any], int], dict[str, Any]] = lambda options, players: {}
    # Every command and the fields it takes. `decide` runs behind the shared preamble
    # (service.games.preamble): the same situation gets the same code in every game, and a
    # field no command takes is refused before the engine sees it.
    commands: Commands = field(default_factory=Commands)
    # Options that fix what the rules keep hidden (a deck's order, a draw pile, the answers):
    # while a match is live the lobby names them but never shows their values.
    secret_options: frozenset[str] = frozenset()

    # Optional (games/<id>/hidden.py): a state in which everything the seats in `keep` cannot
    # see is dealt again at random, and everything they can see is kept. It depends only on
    # what `keep` sees and on the multiset of hidden items, so a bot that determinizes with
    # it (keep={its seat}) cannot peek, and a fork made with it carries no secret.
    redeal: Callable[[State, random.Random, frozenset[int]], State] | None = None
    # Optional hint for bots (service/bots): each seat's score if the game were judged now,
    # from public facts only (running score, points already certain). Higher is better.
    evaluate: Callable[[State], list[float]] | None = None

    def __post_init__(self) -> None:
        from service.games.preamble import guarded  # the preamble imports this module

        object.__setattr__(self, "decide", guarded(self.decide, self.commands, self.status))


def fold(game: Game, events: list[Event], state: State) -> State:
    """Apply events in order; the only way a state is ever rebuilt."""
    for event in events:
        state = game.evolve(state, event)
    return state
