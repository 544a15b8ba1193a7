"""A fork's redeal as a system command of every game with a `redeal` (protocol/SPEC.md 11).

A fork copies the origin's commits, and the origin's log is public once it is finished: every
shuffle in it can be read. So a fork's own first commit is the system command `redeal`: the
game's `redeal` with every seat kept (each seat keeps what it saw, its own hand included) deals
again everything no seat can see, with the rng of that commit (the fork's committed seed).
Randomness lives in events: the outcome is written into one `redealt` event carrying the
top-level parts of the state that changed, so the log folds to the same state under any
later redeal code, and a verifier re-deciding the commit from the revealed seed gets the same
event back (SPEC 10).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from service.games.shapes import Event, Rng, State

Redeal = Callable[[State, Rng, frozenset[int]], State]

REDEAL = "redeal"     # the system command
REDEALT = "redealt"   # its one event: {"type": "redealt", "state": {top-level key: new value}}


def redealt_event(redeal: Redeal, state: State, rng: Rng, seats: int) -> Event:
    """The event of a redeal that keeps what every seat (0..seats-1) sees."""
    new = redeal(state, rng, frozenset(range(seats)))
    if set(new) != set(state):
        raise ValueError("a redeal must keep the state's top-level keys")  # the event only sets keys
    return {"type": REDEALT, "state": {k: v for k, v in new.items() if state[k] != v}}


def deciding(decide: Callable[..., list[Event]], redeal: Redeal, max_players: int) -> Callable[..., list[Event]]:
    """`decide` that also answers the system command `redeal` (behind the shared preamble, which
    refuses it from a seat, before the start and after the end). Keeping seats beyond the table
    keeps nothing more, so the game's largest seat count stands for "every seat"."""

    def decide_or_redeal(state: State, seat: int | None, command: dict[str, Any], rng: Rng) -> list[Event]:
        if seat is None and command.get("type") == REDEAL:
            return [redealt_event(redeal, state, rng, max_players)]
        return decide(state, seat, command, rng)

    return decide_or_redeal


def evolving(evolve: Callable[[State, Event], State]) -> Callable[[State, Event], State]:
    """`evolve` that applies a `redealt` event itself: the game's own rules never see one."""

    def evolve_or_redealt(state: State, event: Event) -> State:
        if event.get("type") == REDEALT:
            return {**state, **event["state"]}
        return evolve(state, event)

    evolve_or_redealt.__wrapped__ = evolve  # type: ignore[attr-defined]
    return evolve_or_redealt
