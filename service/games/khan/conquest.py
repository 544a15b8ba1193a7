"""Action 2C, conquest: judging one placement (with the spec's exact check order) and
enumerating every legal placement fast.

Both paths share `majority` and `protection`, so what legal_moves lists is what decide
accepts. A yurt never shares a cell with a ruler or a tile (yurts go only on free cells and
are taken back when a tile covers them), so "every land cell holds a yurt" already implies
"no ruler, no tile" on land; only a bridge's river cells need their own tile check.
"""

from __future__ import annotations

from typing import Any

from service.games.interface import IllegalMove
from service.games.khan.data import TILE_SHAPES, TILES, Board, Placement, normalise

NEUTRAL = -1


def majority(yurts: list[Any], land: tuple[int, ...] | list[int], players: int) -> tuple[list[int], list[int]]:
    """Player yurt counts under the tile (neutral yurts ignored) and the seats holding the
    maximum (empty when nobody has a yurt there)."""
    counts = [0] * players
    for cell in land:
        owner = yurts[cell]
        if owner is not None and owner != NEUTRAL:
            counts[owner] += 1
    top = max(counts)
    holders = [s for s in range(players) if counts[s] == top] if top > 0 else []
    return counts, holders


def protection(state: dict[str, Any], board: Board, actor: int, land: Any, holders: list[int]) -> tuple[str | None, list[int]]:
    """Apply 5.8: returns (error code, []) when a protecting player outside the majority
    blocks, else (None, seats to ask in seat order after the actor)."""
    yurts = state["yurts"]
    players = state["players"]
    blocked: list[str] = []
    ask: set[int] = set()
    for card in state["active"]:
        owner = card["seat"]
        if owner == actor:
            continue  # the active player's own protections never restrict himself
        if card["card"] == "protection":
            concerned = any(yurts[c] == owner for c in land)
        elif card["region"] is None:
            concerned = any(yurts[c] == NEUTRAL for c in land)
        else:
            concerned = any(yurts[c] == NEUTRAL and board.letter[c] == card["region"] for c in land)
        if not concerned:
            continue
        if owner in holders:
            ask.add(owner)
        else:
            blocked.append(card["card"])
    if blocked:
        return ("protected_yurt" if "protection" in blocked else "protected_neutral"), []
    return None, sorted(ask, key=lambda s: (s - actor) % players)


def judge(state: dict[str, Any], board: Board, actor: int, tile: Any, cells: Any) -> dict[str, Any]:
    """Check a proposed conquest in the order of spec 5.11 and return what it does:
    {"tile", "cells" (sorted [r, c]), "land", "owners", "ask"}. Raises IllegalMove."""
    if not isinstance(tile, str) or tile not in TILES or state["tiles"].get(tile, 0) <= 0:
        raise IllegalMove("tile_not_available", f"There is no {tile!r} tile left in the supply.")
    points = _cell_list(cells)
    if len(set(points)) != len(points) or normalise(points) not in TILE_SHAPES[tile]:
        raise IllegalMove("shape_mismatch", f"These cells do not form the {tile} tile in any rotation or mirror image.")
    for r, c in points:
        if not board.on_grid(r, c) or not board.is_cell[board.index(r, c)]:
            raise IllegalMove("cell_not_land", f"({r},{c}) is not on the playing field.")
    index = sorted(board.index(r, c) for r, c in points)
    if any(state["tile_at"][i] is not None for i in index):
        raise IllegalMove("covers_tile", "A tile may not cover another tile.")
    ruler_cells = {cell for cell in state["rulers"].values() if cell is not None}
    if any(i in ruler_cells for i in index):
        raise IllegalMove("covers_ruler", "Rulers cannot be covered.")
    land = [i for i in index if board.is_land[i]]
    river = [i for i in index if board.is_river[i]]
    spec = TILES[tile]
    if spec["kind"] == "conquest":
        if river:
            raise IllegalMove("tile_on_river", "Only a bridge may be laid over the river.")
    else:
        if not river:
            raise IllegalMove("bridge_not_over_river", "A bridge must cross the river.")
        if len(river) > spec["max_river_cells"]:
            raise IllegalMove("bridge_too_many_river_cells",
                              f"The {tile} bridge may cover at most {spec['max_river_cells']} river cell(s).")
        if len({board.bank[i] for i in land}) < 2:
            raise IllegalMove("bridge_needs_both_banks", "A bridge needs yurts on both banks of the river.")
    yurts = state["yurts"]
    if any(yurts[i] is None for i in land):
        raise IllegalMove("cell_without_yurt", "Every land cell under the tile must hold a yurt.")
    counts, holders = majority(yurts, land, state["players"])
    if counts[actor] == 0:
        raise IllegalMove("no_own_yurt", "You need at least one of your own yurts under the tile.")
    if actor not in holders:
        raise IllegalMove("not_majority", "Another player has more yurts under this tile than you.")
    key = [tile, [board.rc(i) for i in index]]
    if key in state["turn"]["refused"]:
        raise IllegalMove("placement_already_refused", "This placement was refused this turn; choose another action.")
    code, ask = protection(state, board, actor, land, holders)
    if code == "protected_yurt":
        raise IllegalMove(code, "A Protection of the Great Khan covers yurts under this tile.")
    if code == "protected_neutral":
        raise IllegalMove(code, "A Divine Support protects neutral yurts under this tile.")
    return {"tile": tile, "cells": key[1], "land": land, "owners": holders, "ask": ask}


def legal_conquests(state: dict[str, Any], board: Board, actor: int) -> list[dict[str, Any]]:
    """Every conquer command the actor may give now (protected placements that only need
    consent are included; blocked and refused ones are not)."""
    out = []
    refused = state["turn"]["refused"]
    for p in _candidates(state, board, actor):
        _, holders = majority(state["yurts"], p.land, state["players"])
        if actor not in holders:
            continue
        if state["active"]:
            code, _ = protection(state, board, actor, p.land, holders)
            if code is not None:
                continue
        cells = [board.rc(i) for i in p.cells]
        if refused and [p.tile, cells] in refused:
            continue
        out.append({"type": "conquer", "tile": p.tile, "cells": cells})
    return out


def anyone_can_conquer(state: dict[str, Any], board: Board) -> bool:
    """End rule (a) of 5.9: is there a placement somebody could make, protections
    disregarded? The seat with the most yurts under a fully covered tile always holds the
    majority, so a covered placement with any player yurt is enough."""
    yurts = state["yurts"]
    occupied = _occupied(yurts)
    for cell in range(len(yurts)):
        owner = yurts[cell]
        if owner is None or owner == NEUTRAL:
            continue
        for p in board.by_cell[cell]:
            if _fits(state, occupied, p):
                return True
    return False


def _candidates(state: dict[str, Any], board: Board, actor: int) -> list[Placement]:
    yurts = state["yurts"]
    occupied = _occupied(yurts)
    seen: set[tuple[str, tuple[int, ...]]] = set()
    found = []
    for cell in range(len(yurts)):
        if yurts[cell] != actor:
            continue
        for p in board.by_cell[cell]:
            if p.key not in seen and _fits(state, occupied, p):
                seen.add(p.key)
                found.append(p)
    found.sort(key=lambda p: (p.tile, p.cells))
    return found


def _occupied(yurts: list[Any]) -> int:
    """The cells holding a yurt, as bits (Placement.land_mask)."""
    bits = 0
    for cell, owner in enumerate(yurts):
        if owner is not None:
            bits |= 1 << cell
    return bits


def _fits(state: dict[str, Any], occupied: int, p: Placement) -> bool:
    if state["tiles"][p.tile] <= 0:
        return False
    if p.land_mask & occupied != p.land_mask:
        return False
    tile_at = state["tile_at"]
    for cell in p.river:
        if tile_at[cell] is not None:
            return False
    return True


def _cell_list(cells: Any) -> list[tuple[int, int]]:
    if not isinstance(cells, list) or not cells or len(cells) > 16:
        raise IllegalMove("bad_command", "cells must be a non-empty list of [row, col] pairs.")
    return [_cell(c) for c in cells]


def _cell(value: Any) -> tuple[int, int]:
    if (
        not isinstance(value, list)
        or len(value) != 2
        or not all(isinstance(x, int) and not isinstance(x, bool) for x in value)
    ):
        raise IllegalMove("bad_command", "A cell is written [row, col] with two integers.")
    return value[0], value[1]
