"""What each audience sees (spec 7): the whole board, display, discard pile, supplies and
scores are public; a hand only to its owner (others see its size) until the game ends; the
deck only as a count. Options are never shown, since deck_order and reshuffle_order would
reveal the deck.
"""

from __future__ import annotations

from service.games.china.data import HAND_SIZE, MAP_STATUS, MAP_VERSION, PROVINCES
from service.games.interface import State, View
from service.games.sharing import Shared, copied_dict, copied_list, sizes


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
        "hand": copied_list(hands[seat]) if seat is not None else None,
        "hand_sizes": sizes(hands),
        "hands": [copied_list(h) for h in hands] if finished else None,
        "cards_to_take": HAND_SIZE - len(hands[state["active"]]) if state["phase"] == "refill" else 0,
        "display": copied_list(state["display"]),
        "deck_size": len(state["deck"]),
        "generation": state["generation"],
        "end_triggered": state["end_triggered"],
        "discard": copied_list(state["discard"]),
        "removed": copied_list(state["removed"]),
        "houses": copied_dict(state["houses"]),
        "emissaries": _emissaries(state["emissaries"]),
        "scored": copied_dict(state["scored"]),
        "supply": _supply(state["supply"]),
        "scores": copied_list(state["scores"]),
        "final_scoring": state["final_scoring"],
        "result": state["result"],
    }


# Built once per state part: an unchanged part is the same object in the next view
# (service/games/sharing.py).
_supply = Shared(lambda supply: [copied_dict(s) for s in supply])
_emissaries = Shared(lambda by_province: {pid: copied_list(by_province[pid]) for pid in PROVINCES})


def secrets(state: State, seat: int | None) -> list[str]:
    """Card ids hidden from everyone but `seat`: its hand; for None, the face-down deck."""
    if state["phase"] == "finished":
        return []
    if seat is None:
        return list(state["deck"])
    return list(state["hands"][seat])
