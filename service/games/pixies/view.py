"""What each audience sees (spec section 6), built at this one place.

Pixies has no hands: every seat and every spectator sees the same table. Two things are
hidden from everyone: the undrawn deck (only its count is shown) and the identity of
face-down cards in the areas, which every view renders as backs. Face-down ids stay in the
server state and in the event history (spec 6: they were public a moment before), but no
live view carries them.
"""

from __future__ import annotations

from service.games.interface import State, View
from service.games.pixies.rules import status, to_act
from service.games.sharing import Shared, copied_list


def view(state: State, seat: int | None) -> View:
    """The same table for every audience: `seat` changes nothing, by the rules."""
    return {
        "phase": state["phase"],
        "players": state["players"],
        "round": state["round"],
        "turn": state["turn"],
        "first_player": state["first_player"],
        "turn_first_player": state["turn_first"],
        "pick_order": copied_list(state["pick_order"]),
        "picks_made": state["picks_made"],
        "to_act": to_act(state),
        "last_turn": state["last_turn"],
        "deck_count": len(state["deck"]),
        "market": copied_list(state["market"]),
        "areas": _areas(state["areas"]),
        "totals": copied_list(state["totals"]),
        "round_scores": _round_scores(state["round_scores"]),
        "result": status(state)["result"],
    }


def _cell(cell: dict[str, str | None]) -> dict[str, object]:
    """A cell as seen from the table: a face-down card is a back, never its id.
    A cell with both a card and a face-down card is a validated pair."""
    return {"card": cell["up"], "face_down": cell["down"] is not None}


# Built once per state part: an unchanged part is the same object in the next view
# (service/games/sharing.py).
_area = Shared(lambda area: [_cell(cell) for cell in area])
_areas = Shared(lambda areas: [_area(area) for area in areas])
_scores = Shared(lambda scores: [dict(score) for score in scores])
_round_scores = Shared(lambda rounds: [_scores(scores) for scores in rounds])


def secrets(state: State, seat: int | None) -> list[str]:
    """Ids nobody may see in a live view: the undrawn deck and every face-down card.
    No seat owns a secret (there are no hands)."""
    if seat is not None:
        return []
    face_down = [str(cell["down"]) for area in state["areas"] for cell in area if cell["down"] is not None]
    return sorted([*state["deck"], *face_down])
