"""What each audience may not see, written from each rules spec's hidden-information section
(/work/shared/rules/<game>.md), never from the engine's own `secrets()`.

`forbidden(game, state, audience)` lists the strings (card, token, task ids) that must not be
in any byte sent to `audience` (a seat, or None for spectators) while the state is current. The
tests look for each string's msgpack encoding in the exact bytes of views and frames, so the
engine's declaration of its secrets is checked rather than trusted.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

State = dict[str, Any]
Rule = Callable[[State, "int | None"], list[str]]


def _others(hands: list[list[str]], audience: int | None, exempt: Callable[[int], bool] = lambda s: False) -> list[str]:
    """Every card in a hand that is not the audience's (spectators: every hand)."""
    return [c for seat, hand in enumerate(hands) if seat != audience and not exempt(seat) for c in hand]


def _pixies(state: State, audience: int | None) -> list[str]:
    # pixies.md 6: the deck is hidden from everyone (only its size is public), and face-down cards
    # show their backs in every view.
    face_down = [cell["down"] for area in state["areas"] for cell in area
                 if cell.get("down") is not None and cell.get("up") is not None]
    return [*state["deck"], *face_down]


def _china(state: State, audience: int | None) -> list[str]:
    # china.md 7: each hand to its owner only; the deck's order and cards to nobody.
    return [*_others(state["hands"], audience), *state["deck"]]


def _gugong(state: State, audience: int | None) -> list[str]:
    # gugong.md 6: hands and gift discard piles to their owner only; the draw pile, the travel
    # piles A/B and the decrees left in the box to nobody.
    players = state["players"]
    own: list[str] = []
    for seat, p in enumerate(players):
        if seat != audience:
            own += p["hand"] + p["discard"]
    return [*own, *state["draw_pile"], *state["pile_a"], *state["pile_b"], *state["boxed_decrees"]]


def _khan(state: State, audience: int | None) -> list[str]:
    # khan.md 7: hands to their owner only; the draw pile to nobody.
    return [*_others(state["hands"], audience), *state["draw_pile"]]


def _hieroglyphs(state: State, audience: int | None) -> list[str]:
    # hieroglyphs.md 7: hand fronts to their owner only (the active player on the Spy in phase
    # `base` sees every hand); deck and task deck to nobody; the Minister pool to the acting player.
    spy_peek = (state["phase"] == "base" and audience is not None and audience == state.get("active")
                and state["positions"][audience] == _spy_cell())
    hidden = [] if spy_peek else _others(state["hands"], audience)
    turn = state.get("turn") or {}
    if audience != state.get("active"):
        hidden += list(turn.get("pool") or [])
    # Public wherever they then lie (under a deck, or in a Minister pool drawn from the bottom):
    # the card just played, and a declared task with its declared cards.
    public = {turn.get("played"), *state.get("revealed_tasks", ())}
    for d in turn.get("declarations") or ():
        public |= {d["task"], *d["order"]}
    return [c for c in (*hidden, *state["deck"], *state["task_deck"]) if c not in public]


def _spy_cell() -> str:
    from service.games.hieroglyphs import data  # the board (hieroglyphs.md 2), not a rule

    return str(data.BOARD["bases"]["SPY"])


RULES: dict[str, Rule] = {
    "pixies": _pixies,
    "china": _china,
    "gugong": _gugong,
    "khan": _khan,
    "hieroglyphs": _hieroglyphs,
}


def forbidden(game_id: str, state: State, audience: int | None) -> list[str]:
    """Nothing is dealt before the start; every spec lets everything be shown after the end."""
    from service.games import get_game

    if state.get("phase") == "waiting" or get_game(game_id).status(state)["finished"]:
        return []
    return RULES[game_id](state, audience)
