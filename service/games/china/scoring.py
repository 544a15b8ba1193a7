"""China's scoring formulas (spec 5.3, 5.4, 6.2, 6.5), as pure functions of counts.

They know nothing of events or turns, so each can be checked with hand-computed numbers and
swapped alone (e.g. the per-road reading of road chains, spec A5).
"""

from __future__ import annotations

from service.games.china.data import ALLIANCES, MIN_ROAD_CHAIN, ROAD_NEIGHBOURS


def province_points(houses: list[int]) -> list[int]:
    """The majority chain: the largest group scores all houses present, every lower group the
    house count of the group directly above it; ties share the full points (spec 5.3)."""
    total = sum(houses)
    levels = sorted({c for c in houses if c > 0}, reverse=True)
    above = {level: (total if i == 0 else levels[i - 1]) for i, level in enumerate(levels)}
    return [above[c] if c > 0 else 0 for c in houses]


def road_chains(owner: dict[str, int | None], side: str, seat: int) -> list[list[str]]:
    """The seat's scoring chains: connected groups of 4+ of its houses along the roads of the
    side. A branched group is one chain, each house counted once (spec 5.4, decision A5)."""
    return [group for group, _ in road_groups(owner, side, seat) if len(group) >= MIN_ROAD_CHAIN]


def road_groups(owner: dict[str, int | None], side: str, seat: int) -> list[tuple[list[str], bool]]:
    """Every connected group of the seat's houses along the roads of the side (sorted), and
    whether a free space on a road touches it (the group can still grow)."""
    graph = ROAD_NEIGHBOURS[side]
    mine = sorted(space for space, who in owner.items() if who == seat)
    seen: set[str] = set()
    groups = []
    for start in mine:
        if start in seen:
            continue
        group = []
        extendable = False
        stack = [start]
        seen.add(start)
        while stack:
            space = stack.pop()
            group.append(space)
            for nxt in graph[space]:
                who = owner.get(nxt)
                if who is None:
                    extendable = True
                elif nxt not in seen and who == seat:
                    seen.add(nxt)
                    stack.append(nxt)
        groups.append((sorted(group), extendable))
    return groups


def alliance_results(emissaries: dict[str, list[int]]) -> list[dict]:
    """Every alliance number that scores: players holding the most emissaries on both sides
    of the border (ties included) each score all emissaries of both provinces (spec 6.2)."""
    results = []
    for number, x, y in ALLIANCES:
        ex, ey = emissaries[x], emissaries[y]
        mx, my = max(ex), max(ey)
        if mx == 0 or my == 0:
            continue
        winners = [p for p in range(len(ex)) if ex[p] == mx and ey[p] == my]
        if winners:
            results.append(
                {"number": number, "between": [x, y], "winners": winners, "points": sum(ex) + sum(ey)}
            )
    return results


def ranking(scores: list[int], pieces_left: list[int]) -> tuple[list[int], list[int], list[int]]:
    """Seats best first by score, then pieces left in supply; equal on both share a place
    ("1, 1, 3"). Returns (ranking, places, winners) (spec 6.5)."""
    seats = range(len(scores))
    order = sorted(seats, key=lambda p: (-scores[p], -pieces_left[p], p))
    places = [0] * len(scores)
    for i, p in enumerate(order):
        prev = order[i - 1] if i else None
        same = prev is not None and (scores[p], pieces_left[p]) == (scores[prev], pieces_left[prev])
        places[p] = places[prev] if same and prev is not None else i + 1
    winners = [p for p in order if places[p] == 1]
    return order, places, winners
