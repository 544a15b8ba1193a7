"""What each rules file's hidden-information section says the seats in `keep` cannot see, and a
hand-written way to move those hidden parts around (another world those seats cannot tell
from the real one). Shared by the redeal tests and the bots' no-peeking tests."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from service.games import get_game

State = dict[str, Any]


# --- what each rules file says is hidden from the seats in `keep` ------------------------

def _others(n: int, keep: frozenset[int]) -> list[int]:
    return [s for s in range(n) if s not in keep]


def _hidden_china(s: State, keep: frozenset[int]) -> list[list[str]]:
    """china.md 7: other hands (size public) and the deck."""
    return [s["deck"], *(s["hands"][p] for p in _others(s["players"], keep))]


def _hidden_khan(s: State, keep: frozenset[int]) -> list[list[str]]:
    """khan.md 7: other hands (size public) and the draw pile."""
    return [s["draw_pile"], *(s["hands"][p] for p in _others(s["players"], keep))]


def _hidden_gugong(s: State, keep: frozenset[int]) -> list[list[str]]:
    """gugong.md 6: other hands and discard piles, the gift draw pile, travel piles A/B."""
    others = _others(s["n"], keep)
    return [s["draw_pile"], *(s["players"][p]["hand"] for p in others),
            *(s["players"][p]["discard"] for p in others), s["pile_a"], s["pile_b"]]


def _hidden_hieroglyphs(s: State, keep: frozenset[int]) -> list[list[str]]:
    """hieroglyphs.md 7: the deck, other hands (unless the kept seat spies), the task deck."""
    spying = s["phase"] == "base" and s["active"] in keep and s["positions"][s["active"]] in _spy_cells()
    hands = [] if spying else [s["hands"][p] for p in _others(s["players"], keep)]
    return [s["deck"], *hands, s["task_deck"]]


def _spy_cells() -> set[Any]:
    from service.games.hieroglyphs.data import BASE_ROLE
    return {cell for cell, role in BASE_ROLE.items() if role == "SPY"}


def _hidden_pixies(s: State, keep: frozenset[int]) -> list[list[str]]:
    """pixies.md 6: only the deck's order, which the state does not hold (a set)."""
    return [s["deck"]]


HIDDEN: dict[str, Callable[[State, frozenset[int]], list[list[str]]]] = {
    "china": _hidden_china, "khan": _hidden_khan, "gugong": _hidden_gugong,
    "hieroglyphs": _hidden_hieroglyphs, "pixies": _hidden_pixies,
}


def scramble(game_id: str, s: State, keep: frozenset[int], rng: random.Random, content: bool = True) -> State:
    """Move hidden cards around by hand, sizes kept: another world the kept seats cannot tell apart.
    `content`: also imagine the unseen facts of cards (hieroglyphs' unread backs), which a bot
    must not read but a fork keeps."""
    if game_id == "china":
        pool = [c for place in _hidden_china(s, keep) for c in place]
        rng.shuffle(pool)
        hands = list(s["hands"])
        deck = pool[: len(s["deck"])]
        rest = pool[len(s["deck"]):]
        for p in _others(s["players"], keep):
            hands[p], rest = rest[: len(hands[p])], rest[len(hands[p]):]
        return {**s, "deck": deck, "hands": hands}
    if game_id == "khan":
        pool = [c for place in _hidden_khan(s, keep) for c in place]
        rng.shuffle(pool)
        hands = list(s["hands"])
        pile, rest = pool[: len(s["draw_pile"])], pool[len(s["draw_pile"]):]
        for p in _others(s["players"], keep):
            hands[p], rest = rest[: len(hands[p])], rest[len(hands[p]):]
        return {**s, "draw_pile": pile, "hands": hands}
    if game_id == "gugong":
        others = _others(s["n"], keep)
        pool = [*s["draw_pile"]] + [c for p in others for c in s["players"][p]["hand"] + s["players"][p]["discard"]]
        rng.shuffle(pool)
        players = list(s["players"])
        pile, rest = pool[: len(s["draw_pile"])], pool[len(s["draw_pile"]):]
        for p in others:
            h, d = len(players[p]["hand"]), len(players[p]["discard"])
            players[p] = {**players[p], "hand": rest[:h], "discard": rest[h:h + d]}
            rest = rest[h + d:]
        tokens = s["pile_a"] + s["pile_b"]
        rng.shuffle(tokens)
        return {**s, "draw_pile": pile, "players": players, "pile_a": tokens[: len(s["pile_a"])],
                "pile_b": tokens[len(s["pile_a"]):], "boxed_decrees": list(reversed(s["boxed_decrees"]))}
    if game_id == "hieroglyphs":
        # The engine's own redeal (or determinize, which moves the unseen content too) with
        # another rng is a world the kept seats cannot tell apart (its views are checked
        # unchanged in test_redeal); on top of it, reverse the task deck by hand.
        g = get_game("hieroglyphs")
        other = (g.determinize if content else g.redeal)(s, rng, keep)  # type: ignore[misc]
        return {**other, "task_deck": list(reversed(other["task_deck"]))}
    return {**s, "deck": list(reversed(s["deck"]))}
