"""What each audience sees (spec 7): the whole board, display, discard pile, supplies and
scores are public; a hand only to its owner (others see its size) until the game ends; the
deck only as a count. Options are never shown, since deck_order and reshuffle_order would
reveal the deck.
"""

from __future__ import annotations

from service.games.china.data import HAND_SIZE, MAP_STATUS, MAP_VERSION, PROVINCES
from service.games.interface import State, View


def view(state: State, seat: int | None) -> View:
    finished = state["phase"] == "finished"
    hands = state["hands"]
    return {
        "map_version": MAP_VERSION,
        "map_status": MAP_STATUS,
        "side": state["side"],
        "players": state["players"],
        "phase": state["phase"],
        "turn": state["turn"],
        "emperor": state["emperor"],
        "active": state["active"],
        "you": seat,
        "hand": list(hands[seat]) if seat is not None else None,
        "hand_sizes": [len(h) for h in hands],
        "hands": [list(h) for h in hands] if finished else None,
        "cards_to_take": HAND_SIZE - len(hands[state["active"]]) if state["phase"] == "refill" else 0,
        "display": list(state["display"]),
        "deck_size": len(state["deck"]),
        "generation": state["generation"],
        "end_triggered": state["end_triggered"],
        "discard": list(state["discard"]),
        "removed": list(state["removed"]),
        "houses": dict(state["houses"]),
        "emissaries": {pid: list(state["emissaries"][pid]) for pid in PROVINCES},
        "scored": dict(state["scored"]),
        "supply": [dict(s) for s in state["supply"]],
        "scores": list(state["scores"]),
        "final_scoring": state["final_scoring"],
        "result": state["result"],
    }


def secrets(state: State, seat: int | None) -> list[str]:
    """Card ids hidden from everyone but `seat`: its hand; for None, the face-down deck."""
    if state["phase"] == "finished":
        return []
    if seat is None:
        return list(state["deck"])
    return list(state["hands"][seat])
