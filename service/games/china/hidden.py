"""Re-dealing what seats cannot see (spec 7), for bots' determinization and for forks.

Hidden from the seats in `keep`: the other seats' hands (their sizes are public) and the
deck's order and cards. Those cards are pooled and dealt back at random into the same hand
sizes and deck size. The display, discard pile, removed cards and board are public and stay.
A finished game shows every hand, so nothing is dealt. Options that stack the deck or fix
the reshuffle are dropped: nobody at the table may know them.
"""

from __future__ import annotations

import random

from service.games.dealing import deal_pile_and_hands, hide_options
from service.games.interface import State


def redeal(state: State, rng: random.Random, keep: frozenset[int]) -> State:
    state = hide_options(state, drop=("deck_order", "reshuffle_order"))
    if state["phase"] == "finished":
        return state
    pile, hands = deal_pile_and_hands(rng, state["deck"], state["hands"], keep)
    return {**state, "deck": pile, "hands": hands}
