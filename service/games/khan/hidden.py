"""Re-dealing what seats cannot see (spec 7), for bots' determinization and for forks.

Hidden from the seats in `keep`: the other seats' hands (sizes public) and the draw pile's
order. Those cards are pooled and dealt back at random into the same sizes. The discard
pile, special cards, board and supplies are public and stay. A stacked `deck_order` option
is blanked (the engine blanks it at the start anyway).
"""

from __future__ import annotations

import random

from service.games.dealing import deal_pile_and_hands, hide_options
from service.games.interface import State
from service.games.khan.data import BOARDS
from service.games.khan.scoring import score


def redeal(state: State, rng: random.Random, keep: frozenset[int]) -> State:
    state = hide_options(state, blank={"deck_order": None})
    pile, hands = deal_pile_and_hands(rng, state["draw_pile"], state["hands"], keep)
    return {**state, "draw_pile": pile, "hands": hands}


def evaluate(state: State) -> list[float]:
    """Bots' hint: the end-of-game score (tiles and area bonuses) of the board as it stands."""
    if state["phase"] == "waiting":
        return [0.0] * state["players"]
    return [float(x) for x in score(state, BOARDS[state["board"]])["scores"]]
