"""Helpers to build exact Gùgōng positions for the spec's scenarios (§9).

Scenarios write cards as `value/action`; `Cards.make` registers such fixture cards in the
data table for one test (pytest's monkeypatch undoes it), so positions use exactly the cards
the scenario names. Positions are built on a started game by setting state fields directly.
"""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from service.games.gugong import GAME, data, rules
from service.games.gugong.rules import evolve
from service.games.interface import Command, Event, IllegalMove, State
from service.games.kit import Turn

A, B, C, D, E = 0, 1, 2, 3, 4


class Cards:
    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self._mp = monkeypatch
        self._n = 0

    def make(self, value: int, action: str = "NONE") -> str:
        self._n += 1
        cid = f"X{self._n:02d}v{value}{action}"
        self._mp.setitem(data.CARDS, cid, {"id": cid, "value": value, "action": action, "kind": "fixture"})
        return cid


def fold(state: State, events: list[Event]) -> State:
    """Apply events, checking on the way that evolve never changes the state it is given."""
    for e in events:
        before = copy.deepcopy(state)
        after = evolve(state, e)
        assert state == before, f"evolve mutated its input on {e['type']}"
        state = after
    return state


def started(players: int = 2, seed: int = 0, **options: Any) -> State:
    opts = {"start_player": 0, **options}
    s = rules.setup.initial(opts, players)
    return fold(s, GAME.decide(s, None, {"type": "start"}, random.Random(seed)))


def at_turn(s: State, seat: int) -> State:
    """The Day phase with `seat` on turn, nothing done yet, nothing else waiting."""
    s["phase"] = "day"
    s["turn"] = {"seat": seat, "exchanged": False, "forfeited": False, "location": None, "card_action": None,
                 "card_done": False, "location_done": False}
    s["stack"] = [{"kind": "turn", "seat": seat}]
    return s


def after_exchange(s: State, seat: int, location: str, card_action: str = "NONE") -> State:
    """`seat` on turn, having just made a free exchange at `location` with a card of this action."""
    at_turn(s, seat)
    s["turn"].update(exchanged=True, location=location, card_action=card_action)
    return s


def empty_hands(s: State) -> State:
    for p in s["players"]:
        p["hand"] = []
        p["discard"] = []
    return s


def play(s: State, seat: int, cmd: Command, seed: int = 0) -> State:
    return fold(s, GAME.decide(s, seat, cmd, random.Random(seed)))


def events(s: State, seat: int, cmd: Command, seed: int = 0) -> tuple[State, list[Event]]:
    evs = GAME.decide(s, seat, cmd, random.Random(seed))
    return fold(s, evs), evs


def kinds(evs: list[Event]) -> list[str]:
    return [e["type"] for e in evs if e["type"] not in ("pending_pushed", "pending_popped")]


def refused(s: State, seat: int | None, cmd: Command) -> str:
    with pytest.raises(IllegalMove) as err:
        GAME.decide(s, seat, cmd, random.Random(0))
    return err.value.code


def run(s: State, *frames: dict[str, Any], seed: int = 0) -> tuple[State, list[Event]]:
    """Put frames on the control stack (first runs first) and let the game carry on."""
    s = {**s, "stack": s["stack"] + list(reversed(frames))}
    ctx = Turn(s, random.Random(seed), evolve)
    rules.advance(ctx)
    assert fold(s, ctx.events) == ctx.state
    return ctx.state, ctx.events


def to_act(s: State) -> list[int]:
    return rules.status(s)["to_act"]


def top(s: State) -> dict[str, Any]:
    return s["stack"][-1]


def tokens_of(kind: str) -> list[str]:
    return sorted(t for t, k in data.TOKENS.items() if k == kind)
