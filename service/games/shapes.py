"""The plain-data shapes every game speaks, and the one exception its rules raise.

The bottom of service/games: it imports nothing of the project, so the interface, the shared
preamble, the kit and every engine can build on it without importing one another in a circle.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NotRequired, TypedDict

State = dict[str, Any]
Command = dict[str, Any]
Event = dict[str, Any]
View = dict[str, Any]
# The generator `decide` is handed: a game draws from it and never imports `random` itself.
Rng = random.Random


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
