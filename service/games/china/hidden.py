"""Re-dealing what seats cannot see (spec 7), for bots' determinization and for forks.

Hidden from the seats in `keep`: the other seats' hands (their sizes are public) and the
deck's order and cards. Those cards are pooled and dealt back at random into the same hand
sizes and deck size. The display, discard pile, removed cards and board are public and stay.
A finished game shows every hand, so nothing is dealt. Options that stack the deck or fix
the reshuffle are dropped: nobody at the table may know them.
"""

from __future__ import annotations

from functools import lru_cache

from service.games.china.data import (
    CARD_COLOUR,
    MIN_ROAD_CHAIN,
    PROVINCE_COLOUR,
    PROVINCE_SPACES,
    SPACES,
)
from service.games.china.scoring import alliance_results, province_points, road_groups
from service.games.dealing import deal_pile_and_hands, hide_options
from service.games.interface import Rng, State


def redeal(state: State, rng: Rng, keep: frozenset[int]) -> State:
    state = hide_options(state, drop=("deck_order", "reshuffle_order"))
    if state["phase"] == "finished":
        return state
    pile, hands = deal_pile_and_hands(rng, state["deck"], state["hands"], keep)
    return {**state, "deck": pile, "hands": hands}


# What the hint adds to the score-if-it-ended-now (spec 6.3), in points; both are zero once
# the game is over. A road group short of MIN_ROAD_CHAIN houses is worth ROAD_HOPE of the points
# it would score at that length, scaled by how near it is (2 of 4 houses: a quarter of 2 points)
# while a free space on the road can still extend it. A hand that can pay for two placements in
# one province next turn (spec 5.1: two cards of its colour, or one and a pair of another, into
# a province that already holds a house) is worth DOUBLE_HAND: the turn puts down two pieces.
ROAD_HOPE = 1.0
DOUBLE_HAND = 1.0


def evaluate(state: State) -> list[float]:
    """Bots' hint: the final score if the game ended now (spec 6.3): the running score, the
    unscored provinces by their houses, road chains and alliances. All public. Then what the
    rules will pay for later: road groups one or two houses short of a chain, and a hand
    that pays for a two-piece turn (the seat's own hand is all a bot sees of hands)."""
    n = state["players"]
    if state["phase"] in ("waiting", "finished"):
        return [float(x) for x in state["scores"]]
    board, open_colours, alliances = _public_points(state)
    points = [float(x) + b + a for x, b, a in zip(state["scores"], board, alliances, strict=True)]
    for p in range(n):
        if DOUBLE_HAND and _pays_twice(tuple(state["hands"][p]), open_colours):
            points[p] += DOUBLE_HAND
    return points


# The board's worth by the identity of the parts it is read from. A state is never changed in
# place (DESIGN: copy what changes, share the rest), so a state that shares its houses, scored
# provinces and emissaries with one already judged shares their worth: a bot's one-ply look
# meets the same board again and again (every card take, every exchange, every payment of the
# same placement), and building the keys of the caches below cost more than reading them.
PublicPoints = tuple[tuple[float, ...], tuple[str, ...], tuple[int, ...]]  # board, open colours, alliances
_SEEN: dict[tuple[int, ...], tuple[list[object], PublicPoints]] = {}
_SEEN_MOST = 4096


def _public_points(state: State) -> PublicPoints:
    parts = [state["houses"], state["scored"], state["emissaries"], state["side"], state["players"]]
    ident = tuple(map(id, parts))
    hit = _SEEN.get(ident)
    # The entry holds the parts, so their ids cannot be reused by other objects while it stands.
    if hit is not None and all(a is b for a, b in zip(hit[0], parts, strict=True)):
        return hit[1]
    houses, scored, emissaries, side, n = parts
    board, open_colours = _board_points(side, tuple([houses[s] for s in SPACES]),
                                        tuple([scored[p] for p in PROVINCE_SPACES]), n)
    value = (board, open_colours, _alliance_points(tuple([tuple(emissaries[q]) for q in PROVINCE_SPACES])))
    if len(_SEEN) >= _SEEN_MOST:
        _SEEN.clear()
    _SEEN[ident] = (parts, value)
    return value


@lru_cache(maxsize=1024)
def _alliance_points(emissaries: tuple[tuple[int, ...], ...]) -> tuple[int, ...]:
    """Each seat's alliance points (spec 6.2) for the emissaries by province (in
    PROVINCE_SPACES order), cached as the board is."""
    points = [0] * len(emissaries[0])
    for a in alliance_results(dict(zip(PROVINCE_SPACES, map(list, emissaries), strict=True))):
        for p in a["winners"]:
            points[p] += a["points"]
    return tuple(points)


@lru_cache(maxsize=4096)
def _board_points(side: str, owners: tuple[int | None, ...], scored: tuple[bool, ...],
                  n: int) -> tuple[tuple[float, ...], tuple[str, ...]]:
    """What the houses are worth to each seat (unscored provinces by their houses, road chains
    and near-chains), and the colours of the provinces that still take two pieces. A pure
    function of the board, cached by content where the identity cache above misses: every
    payment of one placement builds an equal board in a new object."""
    houses = dict(zip(SPACES, owners, strict=True))
    points = [0.0] * n
    open_provinces = []
    for (province, spaces), done in zip(PROVINCE_SPACES.items(), scored, strict=True):
        if done:
            continue
        counts = [0] * n
        free = 0
        for sp in spaces:
            owner = houses[sp]
            if owner is None:
                free += 1
            else:
                counts[owner] += 1
        if free == len(spaces):
            continue  # no house: scores nothing, and no second piece can go in
        for p, v in enumerate(province_points(counts)):
            points[p] += v
        if free >= 2:
            open_provinces.append(PROVINCE_COLOUR[province])
    for p in range(n):
        for group, extendable in road_groups(houses, side, p):
            if len(group) >= MIN_ROAD_CHAIN:
                points[p] += len(group)
            elif extendable and len(group) >= 2:
                points[p] += ROAD_HOPE * len(group) * len(group) / MIN_ROAD_CHAIN
    return tuple(points), tuple(open_provinces)


@lru_cache(maxsize=4096)
def _pays_twice(hand: tuple[str, ...], colours: tuple[str, ...]) -> bool:
    held: dict[str, int] = {}
    for card in hand:
        held[CARD_COLOUR[card]] = held.get(CARD_COLOUR[card], 0) + 1
    pair = any(k >= 2 for k in held.values())
    return any(held.get(c, 0) >= 2 or held.get(c, 0) == 1 and pair for c in colours)
