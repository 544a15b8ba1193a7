"""China's components as data: the deck, the map of both board sides, the supplies.

The board geometry (house spaces per province, roads per side, the pairs of provinces at
the 15 alliance numbers, four province names) is a reconstruction (spec section 3.1). It
lives in ``data/map.json`` and nowhere else, so the real board can be dropped in later
without touching the rules; everything below is derived from that file.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

MAP_FILE = Path(__file__).resolve().parent / "data" / "map.json"

HAND_SIZE = 3
DISPLAY_SIZE = 4
HOUSES_PER_PLAYER = 20
# 9 emissaries each, one of them marks the score: 8 can go on the board (spec 2, 4.2).
EMISSARIES_PER_PLAYER = 8
# Cards of each colour taken out of the game before the shuffle, by player count (spec 4.3).
REMOVED_PER_COLOUR = {3: 2, 4: 1, 5: 0}
MIN_ROAD_CHAIN = 4


def _load(path: Path) -> dict[str, Any]:
    with path.open(encoding="utf-8") as f:
        data: dict[str, Any] = json.load(f)
    return data


MAP: dict[str, Any] = _load(MAP_FILE)
MAP_VERSION: int = MAP["version"]
MAP_STATUS: str = MAP["status"]

COLOURS: list[str] = list(MAP["colours"])
PROVINCES: list[str] = [p["id"] for p in MAP["provinces"]]
PROVINCE_NAME: dict[str, str] = {p["id"]: p["name"] for p in MAP["provinces"]}
PROVINCE_COLOUR: dict[str, str] = {p["id"]: p["colour"] for p in MAP["provinces"]}
PROVINCE_SPACES: dict[str, list[str]] = {p["id"]: list(p["house_spaces"]) for p in MAP["provinces"]}
SPACE_PROVINCE: dict[str, str] = {s: pid for pid, spaces in PROVINCE_SPACES.items() for s in spaces}
SPACES: list[str] = [s for pid in PROVINCES for s in PROVINCE_SPACES[pid]]

# Card ids are "<colour>-<nn>", nn from 01; cards of one colour are interchangeable.
CARD_COUNT: dict[str, int] = {c: MAP["cards"][c]["count"] for c in COLOURS}
CARD_PROVINCES: dict[str, list[str]] = {c: list(MAP["cards"][c]["provinces"]) for c in COLOURS}
CARD_COLOUR: dict[str, str] = {
    f"{colour}-{n:02d}": colour for colour in COLOURS for n in range(1, CARD_COUNT[colour] + 1)
}
ALL_CARDS: list[str] = list(CARD_COLOUR)

# The 15 alliance numbers: (number, province X, province Y).
ALLIANCES: list[tuple[int, str, str]] = [
    (a["number"], a["between"][0], a["between"][1]) for a in MAP["alliance_positions"]
]

SIDES: list[str] = sorted(MAP["sides"])


def _road_links(side: dict[str, Any]) -> list[tuple[str, str]]:
    links: list[tuple[str, str]] = []
    for road in side["roads"]:
        path = road["path"]
        links.extend(zip(path, path[1:], strict=False))
    links.extend((a, b) for a, b in side["links"])
    return links


# Road graph per side: space -> sorted neighbouring spaces.
ROAD_NEIGHBOURS: dict[str, dict[str, list[str]]] = {}
for _side_id, _side in MAP["sides"].items():
    _adj: dict[str, set[str]] = {s: set() for s in SPACES}
    for _a, _b in _road_links(_side):
        _adj[_a].add(_b)
        _adj[_b].add(_a)
    ROAD_NEIGHBOURS[_side_id] = {s: sorted(n) for s, n in _adj.items()}


def road_links(side: str) -> list[tuple[str, str]]:
    """Every road link of one board side (polyline steps and extra links)."""
    return _road_links(MAP["sides"][side])


def sides_for(players: int) -> list[str]:
    """The board sides a table of this size may use; the first is the default (spec 4.1)."""
    return [s for s in SIDES if players in MAP["sides"][s]["use_for_player_counts"]]


def cards_in_play(players: int) -> list[str]:
    """The deck for this table: the highest-numbered cards of each colour are removed (spec 4.3)."""
    keep = {c: CARD_COUNT[c] - REMOVED_PER_COLOUR[players] for c in COLOURS}
    return [card for card in ALL_CARDS if int(card.split("-")[1]) <= keep[CARD_COLOUR[card]]]


def removed_cards(players: int) -> list[str]:
    kept = set(cards_in_play(players))
    return [card for card in ALL_CARDS if card not in kept]
