"""Building exact Khan positions for tests.

A position is a plain state made from `initial` and then set up field by field, the way the
spec's scenarios describe them (cells `(row, col)`, `P1` = seat 0, `P2` = seat 1, ...).
"""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from service.games.interface import IllegalMove, fold
from service.games.khan import GAME
from service.games.khan.data import BOARDS, CARD_IDS, CARDS, RULERS, SPECIAL_KINDS, TILES

BOARD = BOARDS["standard"]
NEUTRAL = -1
N = "N"


def cell(r: int, c: int) -> int:
    return BOARD.index(r, c)


def card(ruler: str, direction: str, background: str) -> str:
    """The card `{ruler, dir, bg}` of a scenario; checks the direction against the deck data."""
    cid = f"{ruler}-{background}"
    assert CARDS[cid]["direction"] == direction, f"{cid} points {CARDS[cid]['direction']}, not {direction}"
    return cid


def position(
    players: int = 2,
    *,
    current: int = 0,
    phase: str = "actions",
    hands: list[list[str]] | None = None,
    top: tuple[str, ...] | list[str] = (),
    yurts: dict[tuple[int, int], Any] | None = None,
    rulers: dict[str, tuple[int, int] | None] | None = None,
    camps: dict[str, int] | None = None,
    removed: tuple[str, ...] | list[str] = (),
    tiles: tuple[tuple[str, list[list[int]], list[int]], ...] | list[Any] = (),
    supply: int = 20,
    specials: list[dict[str, int]] | None = None,
    active: list[dict[str, Any]] | None = None,
    end_phase: bool = False,
    actions_left: int = 2,
) -> dict[str, Any]:
    s = GAME.initial({}, players)
    used = set(top)
    for h in hands or []:
        used.update(h)
    pool = [c for c in CARD_IDS if c not in used]
    if hands is None:
        hands = [[pool.pop() for _ in range(4)] for _ in range(players)]
    s["hands"] = [list(h) for h in hands]
    s["draw_pile"] = list(top) + pool
    s["discard"] = []
    s["phase"] = phase
    s["current"] = current
    s["start_player"] = 0
    s["turn_no"] = 1
    s["turn"] = {"actions_left": actions_left, "actions_taken": 2 - actions_left, "special_played": None,
                 "refused": [], "tile_placed": False, "protected": bool(active)}
    for rid in removed:
        s["rulers"][rid] = None
        s["camps"][rid] = 0
    s["removed"] = list(removed)
    for rid, rc in (rulers or {}).items():
        s["rulers"][rid] = None if rc is None else cell(*rc)
    s["camps"].update(camps or {})
    for (r, c), owner in (yurts or {}).items():
        s["yurts"][cell(r, c)] = NEUTRAL if owner == N else owner
    for tile, cells, owners in tiles:
        number = len(s["placed"])
        s["placed"].append({"tile": tile, "cells": [list(x) for x in cells], "owners": list(owners)})
        for r, c in cells:
            s["tile_at"][cell(r, c)] = number
        s["tiles"][tile] -= 1
    s["supply"] = supply
    s["specials"] = specials or [{k: 0 for k in SPECIAL_KINDS} for _ in range(players)]
    s["active"] = active or []
    s["end_phase"] = end_phase
    if end_phase:
        s["rulers"] = {rid: None for rid in RULERS}
    return s


def specials(high_morale: int = 0, protection: int = 0, divine_support: int = 0) -> dict[str, int]:
    return {"high_morale": high_morale, "protection": protection, "divine_support": divine_support}


def act(state: dict[str, Any], seat: int | None, command: dict[str, Any], seed: int = 1) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Decide and fold; also checks decide left its input alone."""
    before = copy.deepcopy(state)
    events = GAME.decide(state, seat, command, random.Random(seed))
    assert state == before
    return events, fold(GAME, events, state)


def rejects(state: dict[str, Any], seat: int | None, command: dict[str, Any], code: str) -> None:
    """The command is refused with `code` and changes nothing."""
    before = copy.deepcopy(state)
    with pytest.raises(IllegalMove) as err:
        GAME.decide(state, seat, command, random.Random(1))
    assert err.value.code == code, err.value.message
    assert state == before


def flight_for(state: dict[str, Any], seat: int) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Run `seat`'s step 1: the seat before him passes a turn with a full hand and no
    special cards, so nothing is drawn and the next event is `seat`'s forced flight."""
    prev = (seat - 1) % state["players"]
    s = copy.deepcopy(state)
    s["current"] = prev
    s["phase"] = "actions"
    s["specials"][prev] = {k: 0 for k in SPECIAL_KINDS}
    assert len(s["hands"][prev]) == 4
    return act(s, prev, {"type": "pass"})


def at(state: dict[str, Any], r: int, c: int) -> Any:
    owner = state["yurts"][cell(r, c)]
    return N if owner == NEUTRAL else owner


def ruler_at(state: dict[str, Any], ruler: str) -> tuple[int, int] | None:
    i = state["rulers"][ruler]
    return None if i is None else (i // BOARD.width, i % BOARD.width)


def conquer(tile: str, *cells: tuple[int, int]) -> dict[str, Any]:
    assert tile in TILES
    return {"type": "conquer", "tile": tile, "cells": [list(c) for c in cells]}


def types(events: list[dict[str, Any]]) -> list[str]:
    return [e["type"] for e in events]
