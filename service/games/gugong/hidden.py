"""Re-dealing what seats cannot see (§6), for bots' determinization and for forks.

Hidden from the seats in `keep`: the other seats' hands and gift discard piles (counts
public), the gift draw pile, the two face-down travel-token piles and the boxed decrees.
Gift cards are pooled across the draw pile and the other seats' hands and discards and dealt
back into the same sizes; the travel tokens of piles A and B are pooled (they came from one
shuffle) and split back into the same sizes; the boxed decrees are only put in order (which
ones are boxed follows from the public decrees in play). Options that fix future chance
(dice, stacked piles, decrees) are dropped; the start player and location cards are public
once the game runs.
"""

from __future__ import annotations

from service.games.dealing import deal, hide_options
from service.games.gugong import data
from service.games.interface import Rng, State

_CHANCE_OPTIONS = ("dice", "draw_pile", "travel_tokens", "decrees")


def redeal(state: State, rng: Rng, keep: frozenset[int]) -> State:
    state = hide_options(state, drop=_CHANCE_OPTIONS)
    others = [seat for seat in range(state["n"]) if seat not in keep]
    seats = state["players"]
    gifts = deal(rng, [state["draw_pile"],
                       *(seats[seat]["hand"] for seat in others),
                       *(seats[seat]["discard"] for seat in others)])
    players = list(seats)
    for k, seat in enumerate(others):
        players[seat] = {**seats[seat], "hand": gifts[1 + k], "discard": gifts[1 + len(others) + k]}
    pile_a, pile_b = deal(rng, [state["pile_a"], state["pile_b"]])
    return {**state, "draw_pile": gifts[0], "players": players, "pile_a": pile_a, "pile_b": pile_b,
            "boxed_decrees": sorted(state["boxed_decrees"])}


def evaluate(state: State) -> list[float]:
    """Bots' hint: victory points, which count only for an Envoy in the Palace (§1.1 hard
    gate); before that, the Envoy's progress weighs most. Continuous at the arrival."""
    arrival = data.BOARD["palace"]["arrival"]
    return [p["vp"] + 2.5 * arrival if p["envoy"] >= arrival else 0.3 * p["vp"] + 2.5 * p["envoy"]
            for p in state["players"]]
