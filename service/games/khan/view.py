"""What each audience sees (spec 7): everything is public except the hands (the owner sees
his cards, the others only their number) and the order of the draw pile (size only)."""

from __future__ import annotations

from typing import Any

from service.games.interface import State, View
from service.games.khan.data import BOARDS, CARDS
from service.games.khan.rules import NEUTRAL, status


def view(state: State, seat: int | None) -> View:
    board = BOARDS[state["board"]]
    players = state["players"]
    yurts = state["yurts"]
    neutral = [board.rc(i) for i in range(len(yurts)) if yurts[i] == NEUTRAL]
    own = [[board.rc(i) for i in range(len(yurts)) if yurts[i] == s] for s in range(players)]
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
        "turn": None if turn is None else {k: turn[k] for k in ("actions_left", "actions_taken", "special_played", "refused", "tile_placed")},
        "rulers": {rid: (None if cell is None else board.rc(cell)) for rid, cell in state["rulers"].items()},
        "camps": dict(state["camps"]),
        "removed_rulers": list(state["removed"]),
        "general_supply": state["supply"],
        "neutral_yurts": neutral,
        "player_yurts": own,
        "tiles_placed": state["placed"],
        "tile_supply": dict(state["tiles"]),
        "special_cards": state["specials"],
        "active_special_cards": state["active"],
        "last_special_card": state["last_special"],
        "pending_consent": state["pending"],
        "quiet_turns": state["quiet_turns"],
        "draw_pile_size": len(state["draw_pile"]),
        "discard_pile": list(state["discard"]),
        "discard_top": CARDS[state["discard"][-1]] if state["discard"] else None,
        "hand_sizes": [len(h) for h in state["hands"]],
        "hand": [CARDS[c] for c in state["hands"][seat]] if seat is not None else None,
        "result": state["result"],
    }
    return v


def secrets(state: State, seat: int | None) -> list[str]:
    if seat is None:
        return list(state["draw_pile"])
    return list(state["hands"][seat])
