"""Every legal command of the seat to act, enumerated in full.

A hand holds at most 3 cards and a province at most 8 spaces, so all Place actions (every
payment by card id, every piece and space, both orders of two pieces) fit in a list of a few
hundred; the same rules as `rules.check_place` decide which are legal, piece by piece. The rules
build on this module (a pass is allowed only when no placement or exchange is), so it imports
nothing from them.
"""

from __future__ import annotations

from typing import Any

from service.games.china.data import CARD_COLOUR, DISPLAY_SIZE, PROVINCE_COLOUR, PROVINCE_SPACES, PROVINCES
from service.games.interface import Command, State

Piece = tuple[str, "str | None"]


def legal_moves(state: State, seat: int) -> list[Command]:
    if state["phase"] not in ("play", "refill") or seat != state["active"]:
        return []
    if state["phase"] == "refill":
        return [{"type": "take", **source} for source in _sources(state)]
    moves = place_moves(state, seat)
    if has_exchange(state, seat):
        moves.extend(
            {"type": "exchange", "card": card, **source}
            for card in state["hands"][seat]
            for source in _sources(state)
        )
    return moves or [{"type": "pass"}]


def has_exchange(state: State, seat: int) -> bool:
    """Whether the seat may exchange (spec 5.6): it holds a card and a card is left to take."""
    return bool(state["hands"][seat]) and cards_to_take(state)


def cards_to_take(state: State) -> bool:
    return bool(state["deck"]) or any(c is not None for c in state["display"])


def _sources(state: State) -> list[dict[str, Any]]:
    sources: list[dict[str, Any]] = [{"source": "deck"}] if state["deck"] else []
    sources.extend(
        {"source": "display", "slot": i} for i in range(DISPLAY_SIZE) if state["display"][i] is not None
    )
    return sources


def place_moves(state: State, seat: int) -> list[Command]:
    hand = state["hands"][seat]
    houses = state["houses"]
    supply = state["supply"][seat]
    moves: list[Command] = []
    for province in PROVINCES:
        colour = PROVINCE_COLOUR[province]
        payments = [[c] for c in hand if CARD_COLOUR[c] == colour]
        payments.extend(
            [a, b]
            for i, a in enumerate(hand)
            for b in hand[i + 1 :]
            if CARD_COLOUR[a] == CARD_COLOUR[b] != colour
        )
        if not payments:
            continue
        spaces = PROVINCE_SPACES[province]
        free = [s for s in spaces if houses[s] is None]
        counts = [0] * state["players"]
        for s in spaces:
            if houses[s] is not None:
                counts[houses[s]] += 1
        envoys = sum(state["emissaries"][province])
        first = _pieces(free, max(counts), envoys, supply["houses"], supply["emissaries"])
        for pay in payments:
            moves.extend(_place(province, [(pay, piece)]) for piece in first)
        if not any(counts):
            continue  # only one piece goes into an empty province
        for pay1 in payments:
            for pay2 in payments:
                if set(pay1) & set(pay2):
                    continue
                for piece1 in first:
                    kind, space = piece1
                    if kind == "house":
                        after = counts.copy()
                        after[seat] += 1
                        second = _pieces(
                            [s for s in free if s != space],
                            max(after),
                            envoys,
                            supply["houses"] - 1,
                            supply["emissaries"],
                        )
                    else:
                        second = _pieces(
                            free, max(counts), envoys + 1, supply["houses"], supply["emissaries"] - 1
                        )
                    moves.extend(_place(province, [(pay1, piece1), (pay2, piece2)]) for piece2 in second)
    return moves


def _pieces(free: list[str], top: int, envoys: int, houses_left: int, emissaries_left: int) -> list[Piece]:
    """The pieces one placement may put down: a house on any free space, or an emissary while
    the total stays within the most houses one player has there."""
    out: list[Piece] = [("house", s) for s in free] if houses_left else []
    if emissaries_left and envoys + 1 <= top:
        out.append(("emissary", None))
    return out


def _place(province: str, placements: list[tuple[list[str], Piece]]) -> Command:
    listed = []
    for cards, (kind, space) in placements:
        p: dict[str, Any] = {"cards": list(cards), "piece": kind}
        if space is not None:
            p["space"] = space
        listed.append(p)
    return {"type": "place", "province": province, "placements": listed}
