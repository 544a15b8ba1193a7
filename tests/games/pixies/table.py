"""Helpers to build exact Pixies positions from the spec's area notation (section 9).

Notation: nine cells in reading order, rows split by `|`: `.` empty, `B13` face up,
`Y02/G07` a pair (Y02 face up over face-down G07), `[R07]` a lone face-down card.
"""

from __future__ import annotations

import random
from typing import Any

from service.games.interface import Event, State
from service.games.pixies import GAME
from service.games.pixies.data import CARD_IDS
from service.games.pixies.rules import evolve, initial, pick_order


def area(notation: str) -> list[dict[str, str | None]]:
    body = notation.strip()
    assert body[0] == "[" and body[-1] == "]", notation
    tokens = body[1:-1].replace("|", " ").split()
    assert len(tokens) == 9, notation
    cells: list[dict[str, str | None]] = []
    for token in tokens:
        if token == ".":
            cells.append({"up": None, "down": None})
        elif token.startswith("["):
            cells.append({"up": None, "down": token.strip("[]")})
        elif "/" in token:
            up, down = token.split("/")
            cells.append({"up": up, "down": down})
        else:
            cells.append({"up": token, "down": None})
    return cells


def fold(state: State, events: list[Event]) -> State:
    for event in events:
        state = evolve(state, event)
    return state


def started(players: int, options: dict[str, Any] | None = None, seed: int = 0) -> State:
    state = initial(dict(options or {}), players)
    return fold(state, GAME.decide(state, None, {"type": "start"}, random.Random(seed)))


def table(
    players: int,
    *,
    market: list[str],
    first: int = 0,
    areas: dict[int, str] | None = None,
    picks_made: int = 0,
    round_no: int = 1,
    last_turn: bool = False,
) -> State:
    """A drafting position: `first` starts this turn, `picks_made` picks are done, the deck
    holds every card not in an area or the market."""
    state = started(players, {"first_player": first})
    grids = [area(areas[s]) if areas and s in areas else area("[. . . | . . . | . . .]") for s in range(players)]
    placed = [c for grid in grids for cell in grid for c in cell.values() if c is not None]
    used = set(market) | set(placed)
    assert len(used) == len(market) + len(placed), "a card appears twice in the position"
    order = pick_order(players, first)
    return {
        **state,
        "round": round_no,
        "turn": 1,
        "deck": [c for c in CARD_IDS if c not in used],
        "market": list(market),
        "areas": grids,
        "turn_first": first,
        "pick_order": order,
        "picks_made": picks_made,
        "last_turn": last_turn,
        "last_picker": order[picks_made - 1] if picks_made else None,
    }


def take(state: State, seat: int, card: str, seed: int = 0, **choice: Any) -> tuple[list[Event], State]:
    events = GAME.decide(state, seat, {"type": "take_card", "card": card, **choice}, random.Random(seed))
    return events, fold(state, events)


def types(events: list[Event]) -> list[str]:
    return [e["type"] for e in events]
