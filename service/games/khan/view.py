"""What each audience sees (spec 7): everything is public except the hands (the owner sees
his cards, the others only their number) and the order of the draw pile (size only)."""

from __future__ import annotations

from typing import Any

from service.games.interface import State, View
from service.games.khan.data import BOARDS, CARDS
from service.games.khan.rules import NEUTRAL, status
from service.games.sharing import Shared, SharedN, copied_dict, copied_list, sizes


def view(state: State, seat: int | None) -> View:
    players = state["players"]
    turn = state["turn"]
    v: dict[str, Any] = {
        "players": players,
        "you": seat,
        "board": state["board"],
        "status": status(state),
        "current": state["current"],
        "start_player": state["start_player"],
        "turn_no": state["turn_no"],
        "end_phase": state["end_phase"],
        "turn": None if turn is None else _turn(turn),
        "rulers": _rulers(state["board"], state["rulers"]),
        "camps": copied_dict(state["camps"]),
        "removed_rulers": copied_list(state["removed"]),
        "general_supply": state["supply"],
        "neutral_yurts": _neutral(state["board"], state["yurts"]),
        "player_yurts": _own(state["board"], state["yurts"], players),
        "tiles_placed": state["placed"],
        "tile_supply": copied_dict(state["tiles"]),
        "special_cards": state["specials"],
        "active_special_cards": state["active"],
        "last_special_card": state["last_special"],
        "pending_consent": state["pending"],
        "quiet_turns": state["quiet_turns"],
        "draw_pile_size": len(state["draw_pile"]),
        "discard_pile": copied_list(state["discard"]),
        "discard_top": CARDS[state["discard"][-1]] if state["discard"] else None,
        "hand_sizes": sizes(state["hands"]),
        "hand": _cards(state["hands"][seat]) if seat is not None else None,
        "result": state["result"],
    }
    return v


# Built once per state part: an unchanged part is the same object in the next view
# (service/games/sharing.py).
_rulers = SharedN(lambda board, rulers: {rid: (None if cell is None else BOARDS[board].rc(cell)) for rid, cell in rulers.items()})
_neutral = SharedN(lambda board, yurts: [BOARDS[board].rc(i) for i in range(len(yurts)) if yurts[i] == NEUTRAL])
_own = SharedN(lambda board, yurts, players: [[BOARDS[board].rc(i) for i in range(len(yurts)) if yurts[i] == s]
                                            for s in range(players)])
_cards = Shared(lambda ids: [CARDS[c] for c in ids])
_turn = Shared(lambda turn: {k: turn[k] for k in ("actions_left", "actions_taken", "special_played", "refused", "tile_placed")})


def secrets(state: State, seat: int | None) -> list[str]:
    if seat is None:
        return list(state["draw_pile"])
    return list(state["hands"][seat])
