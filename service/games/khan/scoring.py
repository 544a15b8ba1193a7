"""Scoring at the end of the game (spec 6): tile points, bonuses for the largest connected
areas (values from data), and the winner with the area tie-break."""

from __future__ import annotations

from typing import Any

from service.games.khan.data import AREA_BONUS_BY_RANK, TILES, Board


def areas(state: dict[str, Any], board: Board) -> list[dict[str, Any]]:
    """Every player's connected areas: his tiles grouped by side contact. A shared tile
    belongs to an area of each of its owners; river cells under a bridge count."""
    placed = state["placed"]
    tile_at = state["tile_at"]
    out = []
    for seat in range(state["players"]):
        mine = [k for k, p in enumerate(placed) if seat in p["owners"]]
        seen: set[int] = set()
        for start in mine:
            if start in seen:
                continue
            group = []
            stack = [start]
            seen.add(start)
            while stack:
                k = stack.pop()
                group.append(k)
                for r, c in placed[k]["cells"]:
                    for j in board.neighbours[board.index(r, c)]:
                        other = tile_at[j]
                        if other is not None and other not in seen and seat in placed[other]["owners"]:
                            seen.add(other)
                            stack.append(other)
            group.sort()
            out.append({"seat": seat, "tiles": group, "size": sum(len(placed[k]["cells"]) for k in group)})
    return out


def score(state: dict[str, Any], board: Board) -> dict[str, Any]:
    players = state["players"]
    tile_points = [0] * players
    for p in state["placed"]:
        for seat in p["owners"]:
            tile_points[seat] += TILES[p["tile"]]["value"]  # a shared tile scores in full for each owner
    found = areas(state, board)
    sizes = [a["size"] for a in found]
    bonus = [0] * players
    for a in found:
        rank = 1 + sum(1 for s in sizes if s > a["size"])  # standard competition ranking
        a["bonus"] = AREA_BONUS_BY_RANK[rank - 1] if rank <= len(AREA_BONUS_BY_RANK) else 0
        bonus[a["seat"]] += a["bonus"]
    scores = [tile_points[s] + bonus[s] for s in range(players)]
    largest = [max([a["size"] for a in found if a["seat"] == s], default=0) for s in range(players)]
    ranking = sorted(range(players), key=lambda s: (-scores[s], -largest[s], s))
    best = ranking[0]
    winners = [s for s in ranking if (scores[s], largest[s]) == (scores[best], largest[best])]
    return {
        "scores": scores,
        "tile_points": tile_points,
        "area_bonus": bonus,
        "largest_area": largest,
        "areas": sorted(found, key=lambda a: (-a["size"], a["seat"], a["tiles"])),
        "ranking": ranking,
        "winners": winners,
    }
