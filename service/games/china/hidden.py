"""Re-dealing what seats cannot see (spec 7), for bots' determinization and for forks.

Hidden from the seats in `keep`: the other seats' hands (their sizes are public) and the
deck's order and cards. Those cards are pooled and dealt back at random into the same hand
sizes and deck size. The display, discard pile, removed cards and board are public and stay.
A finished game shows every hand, so nothing is dealt. Options that stack the deck or fix
the reshuffle are dropped: nobody at the table may know them.
"""

from __future__ import annotations

import random

from service.games.china.data import PROVINCE_SPACES
from service.games.china.scoring import alliance_results, province_points, road_chains
from service.games.dealing import deal_pile_and_hands, hide_options
from service.games.interface import State


def redeal(state: State, rng: random.Random, keep: frozenset[int]) -> State:
    state = hide_options(state, drop=("deck_order", "reshuffle_order"))
    if state["phase"] == "finished":
        return state
    pile, hands = deal_pile_and_hands(rng, state["deck"], state["hands"], keep)
    return {**state, "deck": pile, "hands": hands}


def evaluate(state: State) -> list[float]:
    """Bots' hint: the final score if the game ended now (spec 6.3): the running score, the
    unscored provinces by their houses, road chains and alliances. All public."""
    n = state["players"]
    if state["phase"] in ("waiting", "finished"):
        return [float(x) for x in state["scores"]]
    points = [float(x) for x in state["scores"]]
    for province, spaces in PROVINCE_SPACES.items():
        if not state["scored"][province]:
            counts = [sum(1 for sp in spaces if state["houses"][sp] == p) for p in range(n)]
            for p, v in enumerate(province_points(counts)):
                points[p] += v
    for p in range(n):
        points[p] += sum(len(c) for c in road_chains(state["houses"], state["side"], p))
    for a in alliance_results(state["emissaries"]):
        for p in a["winners"]:
            points[p] += a["points"]
    return points
