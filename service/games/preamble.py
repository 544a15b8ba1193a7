"""The checks every game makes before its own rules, written once.

A command that is not a map, comes after the end, names a command the game does not have,
carries a field its command does not take, or comes before the start gets the same code in
every game (protocol/SPEC.md 7.2). The registry runs these checks in front of each engine's
`decide` (see `Game.__post_init__` in interface.py), so an engine only ever sees a well-formed
command of a known type while the game is running, and the log can store exactly the declared fields.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import Any

from service.games.shapes import Command, Commands, Event, IllegalMove, Rng, State, Status

Decide = Callable[[State, "int | None", Command, Rng], list[Event]]

# The one code for each situation (SPEC 7.2); engines never raise these themselves.
BAD_COMMAND = "bad_command"
GAME_OVER = "game_over"
UNKNOWN_COMMAND = "unknown_command"
SYSTEM_ONLY = "system_only"
UNKNOWN_FIELD = "unknown_field"
NOT_STARTED = "not_started"
ALREADY_STARTED = "already_started"

# The phase every game reports before its `start` (DESIGN: the runtime sends `start` once the
# seats are filled).
WAITING = "waiting"


def refuse_unknown_fields(value: Mapping[Any, Any], allowed: Collection[str], what: str) -> None:
    """Refuse keys of `value` (a command, or a map inside one) other than `allowed` and a
    command's `type`: a mistyped or padded field is never ignored, and never reaches the log."""
    extra = sorted(str(k) for k in value if k not in allowed)
    if extra:
        takes = ", ".join(sorted(set(allowed) - {"type"})) or "no field"
        raise IllegalMove(UNKNOWN_FIELD, f"{what} has no field {', '.join(map(repr, extra))}; it takes {takes}.")


def check(commands: Commands, status: Status, seat: int | None, command: Any) -> str:
    """Refuse what no game accepts; return the command's type."""
    if not isinstance(command, dict) or not isinstance(command.get("type"), str):
        raise IllegalMove(BAD_COMMAND, "A command is a map with a string field 'type'.")
    kind: str = command["type"]
    if status["finished"]:
        raise IllegalMove(GAME_OVER, "The game is over; no command is accepted.")
    allowed = commands.fields(seat, kind)
    if allowed is None:
        if seat is not None and kind in commands.system:
            raise IllegalMove(SYSTEM_ONLY, f"Only the server sends {kind!r}.")
        known = ", ".join(sorted(commands.system if seat is None else commands.player))
        raise IllegalMove(UNKNOWN_COMMAND, f"There is no command {kind!r} here; known: {known}.")
    refuse_unknown_fields(command, allowed | {"type"}, f"Command {kind!r}")
    waiting = status["phase"] == WAITING
    if kind == "start" and seat is None:
        if not waiting:
            raise IllegalMove(ALREADY_STARTED, "The game has already started.")
    elif waiting:
        raise IllegalMove(NOT_STARTED, "The game has not started yet.")
    return kind


def normalized(commands: Commands, seat: int | None, command: Command) -> Command:
    """The command as the log keeps it: `type` and the declared fields, nothing a client added."""
    allowed = commands.fields(seat, command["type"]) or frozenset()
    return {"type": command["type"], **{k: v for k, v in command.items() if k in allowed}}


def guarded(decide: Decide, commands: Commands, status: Callable[[State], Status]) -> Decide:
    """`decide` behind the shared checks."""

    def decide_checked(state: State, seat: int | None, command: Command, rng: Rng) -> list[Event]:
        check(commands, status(state), seat, command)
        return decide(state, seat, command, rng)

    decide_checked.__wrapped__ = decide  # type: ignore[attr-defined]
    return decide_checked
