"""Building exact Chinese Squared positions for the tests.

`f2()` is the spec's fixture F2 (2 players, A = seat 0 first, target 3, default content,
canonical deck and task order) right after setup; `arrange` then sets the parts of a state a
scenario names, keeping the bank at 10 x players minus the coins held.
"""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from service.games.hieroglyphs import GAME
from service.games.hieroglyphs.data import DEFAULT_CONTENT
from service.games.interface import IllegalMove

A, B, C, D = 0, 1, 2, 3
CARD_IDS: list[str] = list(DEFAULT_CONTENT["card_ids"])
TASK_IDS: list[str] = list(DEFAULT_CONTENT["task_ids"])


def run(state: dict[str, Any], seat: int | None, command: dict[str, Any], seed: int = 0) -> dict[str, Any]:
    state, _ = run_events(state, seat, command, seed)
    return state


def run_events(state: dict[str, Any], seat: int | None, command: dict[str, Any],
               seed: int = 0) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    events = GAME.decide(state, seat, command, random.Random(seed))
    for event in events:
        state = GAME.evolve(state, event)
    return state, events


def rejected(state: dict[str, Any], seat: int | None, command: dict[str, Any], code: str,
             reason: str | None = None) -> IllegalMove:
    """The command is refused with `code` (and the path reason), and the state is untouched."""
    before = copy.deepcopy(state)
    with pytest.raises(IllegalMove) as err:
        GAME.decide(state, seat, command, random.Random(0))
    assert err.value.code == code, err.value
    if reason is not None:
        assert getattr(err.value, "reason", None) == reason, err.value
    assert err.value.message
    assert state == before
    return err.value


def started(players: int = 2, **options: Any) -> dict[str, Any]:
    opts = {"deck_order": CARD_IDS, "task_order": TASK_IDS, "first_player": 0, **options}
    return run(GAME.initial(opts, players), None, {"type": "start"})


def f2(**options: Any) -> dict[str, Any]:
    """F2 after setup as in S23: A starts on the General with T10, B on the Spy with T11."""
    s = started(2, **options)
    s = run(s, A, {"type": "choose_base", "base": "GENERAL"})
    s = run(s, B, {"type": "choose_base", "base": "SPY"})
    s = run(s, A, {"type": "pick_task", "task": "T10"})
    return run(s, B, {"type": "pick_task", "task": "T11"})


def arrange(state: dict[str, Any], **parts: Any) -> dict[str, Any]:
    """A copy of `state` with the named parts set. Per-seat parts take {seat: value};
    `turn` updates the turn record; `coins` also resets the bank to 10 x players minus coins."""
    s = copy.deepcopy(state)
    for key in ("hands", "positions", "tasks", "attached", "completed", "studied", "task_viewed"):
        for seat, value in parts.pop(key, {}).items():
            s[key][seat] = copy.deepcopy(value)
    if "coins" in parts:
        for seat, value in parts.pop("coins").items():
            s["coins"][seat] = value
        s["bank"] = 10 * s["players"] - sum(s["coins"])
    if "slots" in parts:
        s["slots"].update(parts.pop("slots"))
    if "turn" in parts:
        s["turn"].update(copy.deepcopy(parts.pop("turn")))
    for key, value in parts.items():
        assert key in s, key
        s[key] = copy.deepcopy(value)
    return s


def at_turn(state: dict[str, Any], seat: int, phase: str, cell: str, **parts: Any) -> dict[str, Any]:
    """`seat` is to act in `phase`, standing on `cell`, in round 2 unless told otherwise."""
    parts.setdefault("round", 2)
    positions = {seat: cell, **parts.pop("positions", {})}
    return arrange(state, active=seat, phase=phase, positions=positions, **parts)
