"""Positions for China's rule tests, built directly as states (spec 10 conventions).

Players A, B, C, D are seats 0, 1, 2, 3; A is the Emperor unless stated; side A unless
stated. Cards not named in a test fill hands (3 each), the display (4), then the deck, and
whatever is left lies on the discard pile, so the 47 / 52 / 57 cards are always conserved.
"""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from service.games import IllegalMove
from service.games.china import GAME
from service.games.china.data import (
    EMISSARIES_PER_PLAYER,
    HOUSES_PER_PLAYER,
    PROVINCES,
    cards_in_play,
    removed_cards,
)

A, B, C, D = 0, 1, 2, 3


def position(
    players: int = 3,
    *,
    options: dict[str, Any] | None = None,
    emperor: int = A,
    active: int = A,
    phase: str = "play",
    hands: dict[int, list[str]] | None = None,
    display: list[str | None] | None = None,
    deck_top: list[str] | None = None,
    deck_size: int | None = None,
    discard: list[str] | None = None,
    houses: dict[str, int] | None = None,
    emissaries: dict[str, list[int]] | None = None,
    scored: tuple[str, ...] = (),
    supply: dict[int, dict[str, int]] | None = None,
    scores: list[int] | None = None,
    generation: int = 1,
    end_triggered: bool = False,
) -> dict[str, Any]:
    state = GAME.initial(dict(options or {}), players)
    hands = {p: list(h) for p, h in (hands or {}).items()}
    named = [c for h in hands.values() for c in h]
    named += [c for c in (display or []) if c is not None] + list(deck_top or []) + list(discard or [])
    assert len(named) == len(set(named)), "a card is named twice"
    pool = [c for c in cards_in_play(players) if c not in set(named)]
    for p in range(players):
        if p not in hands:
            hands[p], pool = pool[:3], pool[3:]
    if display is None:
        display, pool = pool[:4], pool[4:]
    k = len(pool) if deck_size is None else deck_size - len(deck_top or [])
    deck = list(deck_top or []) + pool[:k]
    pile = pool[k:] + list(discard or [])  # a named discard pile lies on top, its last card uppermost
    board = {space: None for space in state["houses"]}
    board.update(houses or {})
    envoys = {pid: [0] * players for pid in PROVINCES}
    for pid, counts in (emissaries or {}).items():
        envoys[pid] = list(counts)
    stock = []
    for p in range(players):
        built = sum(1 for who in board.values() if who == p)
        sent = sum(envoys[pid][p] for pid in PROVINCES)
        stock.append({"houses": HOUSES_PER_PLAYER - built, "emissaries": EMISSARIES_PER_PLAYER - sent})
    for p, s in (supply or {}).items():
        stock[p] = dict(s)
    state.update(
        {
            "phase": phase,
            "emperor": emperor,
            "active": active,
            "turn": 1,
            "hands": [hands[p] for p in range(players)],
            "display": list(display),
            "deck": deck,
            "discard": pile,
            "removed": removed_cards(players),
            "generation": generation,
            "end_triggered": end_triggered,
            "houses": board,
            "emissaries": envoys,
            "scored": {pid: pid in scored for pid in PROVINCES},
            "supply": stock,
            "scores": list(scores or [0] * players),
        }
    )
    assert_conserved(state)
    return state


def assert_conserved(state: dict[str, Any]) -> None:
    """Hands + display + deck + discard hold exactly the cards in play (spec 5.8)."""
    held = [c for h in state["hands"] for c in h] + [c for c in state["display"] if c is not None]
    held += state["deck"] + state["discard"]
    assert sorted(held) == sorted(cards_in_play(state["players"]))


def house(cards: str | list[str], space: str) -> dict[str, Any]:
    return {"cards": [cards] if isinstance(cards, str) else list(cards), "piece": "house", "space": space}


def emissary(cards: str | list[str]) -> dict[str, Any]:
    return {"cards": [cards] if isinstance(cards, str) else list(cards), "piece": "emissary"}


def place(province: str, *placements: dict[str, Any]) -> dict[str, Any]:
    return {"type": "place", "province": province, "placements": list(placements)}


def take(slot: int | None = None) -> dict[str, Any]:
    return (
        {"type": "take", "source": "deck"}
        if slot is None
        else {"type": "take", "source": "display", "slot": slot}
    )


def exchange(card: str, slot: int | None = None) -> dict[str, Any]:
    source: dict[str, Any] = {"source": "deck"} if slot is None else {"source": "display", "slot": slot}
    return {"type": "exchange", "card": card, **source}


def play(state: dict[str, Any], seat: int, command: dict[str, Any], seed: int = 1):
    """Decide and apply one command; returns (events, new state)."""
    events = GAME.decide(state, seat, command, random.Random(seed))
    after = state
    for e in events:
        after = GAME.evolve(after, e)
    assert_conserved(after)
    return events, after


def rejects(state: dict[str, Any], seat: int | None, command: dict[str, Any], code: str) -> None:
    """The command is refused with `code` and the state is left as it was."""
    before = copy.deepcopy(state)
    with pytest.raises(IllegalMove) as err:
        GAME.decide(state, seat, command, random.Random(1))
    assert err.value.code == code, err.value.message
    assert err.value.message
    assert state == before


def types(events: list[dict[str, Any]]) -> list[str]:
    return [e["type"] for e in events]


def event(events: list[dict[str, Any]], kind: str) -> dict[str, Any]:
    found = [e for e in events if e["type"] == kind]
    assert len(found) == 1, f"expected one {kind}, got {types(events)}"
    return found[0]


def end_now(state: dict[str, Any]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Play the last turn of the game: the seat before the Emperor, with the end already
    triggered, exchanges a card for display slot 0; the final scoring follows."""
    seat = (state["emperor"] - 1) % state["players"]
    state = {**state, "active": seat, "end_triggered": True}
    events, after = play(state, seat, exchange(state["hands"][seat][0], 0))
    assert after["phase"] == "finished"
    return events, after
