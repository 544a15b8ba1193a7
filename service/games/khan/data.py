"""Khan's components, read from data/*.json, and the geometry derived from them.

Everything the spec marks as reconstructed (board map, start cells, tile sheet, deck split,
Divine Support counts, area bonus values) lives in the JSON files next to this module, so the
real values can be dropped in without touching the rules. This module only *derives* facts
from them once at import: which cells are land, river, banks, which border the river or the
outer area, and every placement of every tile on the board (rotations and mirror images,
deduplicated), indexed by cell so that conquest enumeration touches only nearby tiles.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

_DIR = Path(__file__).with_name("data")


def _load(name: str) -> Any:
    return json.loads((_DIR / name).read_text(encoding="utf-8"))


_RULERS = _load("rulers.json")
_DECK = _load("deck.json")
_TILES = _load("tiles.json")
_SETUP = _load("setup.json")

# ---- rulers and directions ----
RULERS: list[str] = [r["id"] for r in _RULERS["rulers"]]
RULER_INFO: dict[str, dict[str, Any]] = {r["id"]: r for r in _RULERS["rulers"]}
CLOCKWISE: list[str] = list(_RULERS["clockwise"])
DIRECTION_VECTORS: dict[str, tuple[int, int]] = {
    d: (v[0], v[1]) for d, v in _RULERS["directions"].items()
}

# ---- the ruler deck ----
CARDS: dict[str, dict[str, str]] = {c["id"]: c for c in _DECK["cards"]}
CARD_IDS: list[str] = [c["id"] for c in _DECK["cards"]]
BACKGROUND_KIND: dict[str, str] = dict(_DECK["backgrounds"])  # region / river / outer_area / joker

# ---- tiles ----
TILES: dict[str, dict[str, Any]] = {t["id"]: t for t in _TILES["tiles"]}
TILE_IDS: list[str] = [t["id"] for t in _TILES["tiles"]]

# ---- setup numbers ----
HAND_SIZE: int = _SETUP["hand_size"]
GENERAL_SUPPLY: int = _SETUP["general_supply"]
ACTIONS_PER_TURN: int = _SETUP["actions_per_turn"]
REMOVALS_TO_END: int = _SETUP["removals_to_end"]
END_PHASE_CONQUESTS: int = _SETUP["end_phase_conquests"]
SPECIAL_KINDS: list[str] = list(_SETUP["special_cards"])
DIVINE_REGIONS: list[str] = list(_SETUP["divine_support_regions"])
AREA_BONUS_BY_RANK: list[int] = list(_SETUP["area_bonus_by_rank"])


def special_cards_for(players: int) -> dict[str, int]:
    return {kind: counts[str(players)] for kind, counts in _SETUP["special_cards"].items()}


def orientations(cells: list[list[int]]) -> list[tuple[tuple[int, int], ...]]:
    """The distinct shapes a polyomino takes under the 8 rotations/reflections, each
    normalised (top-left at 0,0) and sorted."""
    seen: set[tuple[tuple[int, int], ...]] = set()
    out = []
    for flip in (False, True):
        pts = [(r, -c) if flip else (r, c) for r, c in cells]
        for _ in range(4):
            pts = [(c, -r) for r, c in pts]
            shape = normalise(pts)
            if shape not in seen:
                seen.add(shape)
                out.append(shape)
    return sorted(out)


def normalise(points: Any) -> tuple[tuple[int, int], ...]:
    pts = [(int(r), int(c)) for r, c in points]
    r0 = min(r for r, _ in pts)
    c0 = min(c for _, c in pts)
    return tuple(sorted((r - r0, c - c0) for r, c in pts))


TILE_SHAPES: dict[str, frozenset[tuple[tuple[int, int], ...]]] = {
    tid: frozenset(orientations(t["cells"])) for tid, t in TILES.items()
}


class Placement:
    """One position of one tile type on the board (precomputed; never in state)."""

    __slots__ = ("tile", "cells", "land", "river", "key", "land_mask")

    def __init__(self, tile: str, cells: tuple[int, ...], land: tuple[int, ...], river: tuple[int, ...]):
        self.tile = tile
        self.cells = cells
        self.land = land
        self.river = river
        self.key = (tile, cells)
        # the land cells as bits of one int: "every land cell holds a yurt" is one AND
        self.land_mask = sum(1 << i for i in land)


class Board:
    """A board map and everything derived from it. Cells are indexed `row * width + col`."""

    def __init__(self, name: str, spec: dict[str, Any]) -> None:
        rows: list[str] = spec["rows"]
        self.spec = spec  # as given: what clients are sent to draw the board
        self.name = name
        self.height = len(rows)
        self.width = max(len(r) for r in rows)
        river_letter = spec.get("river", "R")
        void_letter = spec.get("void", ".")
        self.region_names: dict[str, str] = dict(spec["regions"])
        borders = spec["borders"]
        size = self.height * self.width
        self.letter: list[str] = []
        for row in rows:
            self.letter.extend(row.ljust(self.width, void_letter))
        self.is_cell = [ch != void_letter for ch in self.letter]
        self.is_river = [ch == river_letter for ch in self.letter]
        self.is_land = [ch in self.region_names for ch in self.letter]
        self.start_cells: dict[str, int] = {
            rid: self.index(rc[0], rc[1]) for rid, rc in spec["ruler_start_cells"].items()
        }
        # side neighbours (None where the side is the grid edge); void is kept distinct
        self.sides: list[list[tuple[str, int | None]]] = []
        for i in range(size):
            r, c = divmod(i, self.width)
            out: list[tuple[str, int | None]] = []
            for edge, dr, dc in (("north", -1, 0), ("south", 1, 0), ("west", 0, -1), ("east", 0, 1)):
                rr, cc = r + dr, c + dc
                if 0 <= rr < self.height and 0 <= cc < self.width:
                    out.append((edge, rr * self.width + cc))
                else:
                    out.append((edge, None))
            self.sides.append(out)
        self.borders_outer = [False] * size
        self.borders_river = [False] * size
        for i in range(size):
            if not self.is_land[i]:
                continue
            for edge, j in self.sides[i]:
                if j is None:
                    if borders.get(edge) == "outer_area":
                        self.borders_outer[i] = True
                elif not self.is_cell[j]:
                    if borders.get("void") == "outer_area":
                        self.borders_outer[i] = True
                elif self.is_river[j]:
                    self.borders_river[i] = True
        self.neighbours: list[list[int]] = [
            [j for _, j in self.sides[i] if j is not None and self.is_cell[j]] for i in range(size)
        ]
        # banks: land components once the river is taken away
        self.bank: list[int | None] = [None] * size
        bank_no = 0
        for i in range(size):
            if self.is_land[i] and self.bank[i] is None:
                stack = [i]
                self.bank[i] = bank_no
                while stack:
                    k = stack.pop()
                    for j in self.neighbours[k]:
                        if self.is_land[j] and self.bank[j] is None:
                            self.bank[j] = bank_no
                            stack.append(j)
                bank_no += 1
        self.placements: dict[str, list[Placement]] = {}
        self.by_cell: list[list[Placement]] = [[] for _ in range(size)]
        for tid in TILE_IDS:
            found = [p for p in self._placements_of(tid)]
            self.placements[tid] = found
            for p in found:
                for cell in p.land:
                    self.by_cell[cell].append(p)

    def index(self, r: int, c: int) -> int:
        return r * self.width + c

    def rc(self, i: int) -> list[int]:
        return [i // self.width, i % self.width]

    def on_grid(self, r: int, c: int) -> bool:
        return 0 <= r < self.height and 0 <= c < self.width

    def region(self, i: int) -> str | None:
        return self.letter[i] if self.is_land[i] else None

    def _placements_of(self, tid: str) -> list[Placement]:
        """Every position where the tile is structurally possible on an empty board: a
        conquest tile on land only; a bridge over 1..max_river_cells river cells with land on
        at least two banks. Occupancy (yurts, rulers, tiles) is judged at play time."""
        tile = TILES[tid]
        out = []
        for shape in sorted(TILE_SHAPES[tid]):
            max_r = max(r for r, _ in shape)
            max_c = max(c for _, c in shape)
            for r0 in range(self.height - max_r):
                for c0 in range(self.width - max_c):
                    cells = tuple(sorted(self.index(r0 + r, c0 + c) for r, c in shape))
                    if not all(self.is_cell[i] for i in cells):
                        continue
                    land = tuple(i for i in cells if self.is_land[i])
                    river = tuple(i for i in cells if self.is_river[i])
                    if tile["kind"] == "conquest":
                        if river:
                            continue
                    else:
                        if not 1 <= len(river) <= tile["max_river_cells"]:
                            continue
                        if len({self.bank[i] for i in land}) < 2:
                            continue
                    out.append(Placement(tid, cells, land, river))
        return out


BOARDS: dict[str, Board] = {"standard": Board("standard", _load("board.json"))}


def register_board(name: str, spec: dict[str, Any]) -> Board:
    """Make another map available under the `board` option (used by tests and by a real
    board file when one is known). The map needs the same ruler ids as the deck."""
    board = Board(name, spec)
    BOARDS[name] = board
    return board
