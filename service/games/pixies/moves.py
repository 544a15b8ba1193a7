"""Every legal command of the seat to act: each market card with each placement choice."""

from __future__ import annotations

from service.games.interface import Command, State
from service.games.pixies.data import CARDS, CELLS
from service.games.pixies.rules import to_act


def legal_moves(state: State, seat: int) -> list[Command]:
    if seat is None or seat != to_act(state):
        return []
    area = state["areas"][seat]
    empty = [n for n in CELLS if area[n - 1]["up"] is None and area[n - 1]["down"] is None]
    moves: list[Command] = []
    for card in state["market"]:
        cell = area[CARDS[card]["number"] - 1]
        if cell["up"] is None:
            moves.append({"type": "take_card", "card": card})
        elif cell["down"] is None:
            moves += [{"type": "take_card", "card": card, "keep": keep} for keep in ("existing", "new")]
        else:
            moves += [{"type": "take_card", "card": card, "target_cell": n} for n in empty]
    return moves
