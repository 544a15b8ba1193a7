"""The Pixies deck as data: the 70 cards of the spec's section 2.4, one line each.

Nothing here is reconstructed: every value was checked against the published card data
(number, colour, spirals, crosses, condition colour). Ids follow the spec (B01..J06).
"""

from __future__ import annotations

from typing import Any, TypedDict

COLOURS: list[str] = ["blue", "green", "yellow", "red"]
MULTICOLOUR = "multicolour"


class Card(TypedDict):
    id: str
    number: int
    colour: str          # blue / green / yellow / red / multicolour
    colours: list[str]   # the colour set used for zones and condition counting
    spirals: int
    crosses: int
    # None, or a condition card's rule: +1 per visible card whose colour set holds `colour`
    condition: dict[str, Any] | None


def _card(card_id: str, number: int, colour: str, *, spirals: int, crosses: int, condition: str | None) -> Card:
    return {
        "id": card_id,
        "number": number,
        "colour": colour,
        "colours": list(COLOURS) if colour == MULTICOLOUR else [colour],
        "spirals": spirals,
        "crosses": crosses,
        "condition": None if condition is None else {"type": "spiral_per_visible_card_of_colour", "colour": condition},
    }


DECK: list[Card] = [
    _card("B01", 1, "blue", spirals=6, crosses=0, condition=None),
    _card("B02", 2, "blue", spirals=4, crosses=0, condition=None),
    _card("B03", 3, "blue", spirals=3, crosses=0, condition=None),
    _card("B04", 3, "blue", spirals=1, crosses=0, condition=None),
    _card("B05", 4, "blue", spirals=1, crosses=0, condition=None),
    _card("B06", 4, "blue", spirals=0, crosses=0, condition='blue'),
    _card("B07", 4, "blue", spirals=0, crosses=0, condition=None),
    _card("B08", 5, "blue", spirals=0, crosses=0, condition=None),
    _card("B09", 5, "blue", spirals=0, crosses=2, condition=None),
    _card("B10", 5, "blue", spirals=0, crosses=0, condition='blue'),
    _card("B11", 6, "blue", spirals=1, crosses=0, condition=None),
    _card("B12", 6, "blue", spirals=0, crosses=1, condition=None),
    _card("B13", 7, "blue", spirals=0, crosses=3, condition=None),
    _card("B14", 8, "blue", spirals=0, crosses=3, condition=None),
    _card("B15", 9, "blue", spirals=0, crosses=6, condition=None),
    _card("B16", 9, "blue", spirals=0, crosses=1, condition=None),
    _card("G01", 1, "green", spirals=5, crosses=0, condition=None),
    _card("G02", 2, "green", spirals=3, crosses=0, condition=None),
    _card("G03", 3, "green", spirals=2, crosses=0, condition=None),
    _card("G04", 3, "green", spirals=0, crosses=0, condition='green'),
    _card("G05", 4, "green", spirals=4, crosses=0, condition=None),
    _card("G06", 4, "green", spirals=0, crosses=1, condition=None),
    _card("G07", 5, "green", spirals=0, crosses=0, condition=None),
    _card("G08", 5, "green", spirals=0, crosses=1, condition=None),
    _card("G09", 5, "green", spirals=0, crosses=0, condition='green'),
    _card("G10", 6, "green", spirals=0, crosses=4, condition=None),
    _card("G11", 6, "green", spirals=0, crosses=1, condition=None),
    _card("G12", 6, "green", spirals=1, crosses=0, condition=None),
    _card("G13", 7, "green", spirals=0, crosses=2, condition=None),
    _card("G14", 7, "green", spirals=0, crosses=0, condition=None),
    _card("G15", 8, "green", spirals=0, crosses=2, condition=None),
    _card("G16", 9, "green", spirals=0, crosses=4, condition=None),
    _card("Y01", 1, "yellow", spirals=4, crosses=0, condition=None),
    _card("Y02", 2, "yellow", spirals=2, crosses=0, condition=None),
    _card("Y03", 2, "yellow", spirals=0, crosses=0, condition='yellow'),
    _card("Y04", 3, "yellow", spirals=5, crosses=0, condition=None),
    _card("Y05", 3, "yellow", spirals=0, crosses=0, condition=None),
    _card("Y06", 4, "yellow", spirals=3, crosses=0, condition=None),
    _card("Y07", 4, "yellow", spirals=0, crosses=1, condition=None),
    _card("Y08", 5, "yellow", spirals=0, crosses=2, condition=None),
    _card("Y09", 5, "yellow", spirals=0, crosses=0, condition=None),
    _card("Y10", 5, "yellow", spirals=0, crosses=0, condition='yellow'),
    _card("Y11", 6, "yellow", spirals=0, crosses=3, condition=None),
    _card("Y12", 6, "yellow", spirals=0, crosses=0, condition=None),
    _card("Y13", 7, "yellow", spirals=0, crosses=5, condition=None),
    _card("Y14", 7, "yellow", spirals=1, crosses=0, condition=None),
    _card("Y15", 8, "yellow", spirals=0, crosses=1, condition=None),
    _card("Y16", 9, "yellow", spirals=0, crosses=2, condition=None),
    _card("R01", 1, "red", spirals=3, crosses=0, condition=None),
    _card("R02", 1, "red", spirals=0, crosses=0, condition='red'),
    _card("R03", 2, "red", spirals=5, crosses=0, condition=None),
    _card("R04", 3, "red", spirals=4, crosses=0, condition=None),
    _card("R05", 4, "red", spirals=2, crosses=0, condition=None),
    _card("R06", 4, "red", spirals=0, crosses=0, condition=None),
    _card("R07", 5, "red", spirals=0, crosses=1, condition=None),
    _card("R08", 5, "red", spirals=0, crosses=0, condition='red'),
    _card("R09", 5, "red", spirals=0, crosses=0, condition=None),
    _card("R10", 6, "red", spirals=0, crosses=2, condition=None),
    _card("R11", 6, "red", spirals=0, crosses=0, condition=None),
    _card("R12", 7, "red", spirals=0, crosses=4, condition=None),
    _card("R13", 7, "red", spirals=0, crosses=1, condition=None),
    _card("R14", 8, "red", spirals=0, crosses=5, condition=None),
    _card("R15", 8, "red", spirals=0, crosses=0, condition=None),
    _card("R16", 9, "red", spirals=0, crosses=0, condition=None),
    _card("J01", 2, "multicolour", spirals=0, crosses=0, condition=None),
    _card("J02", 3, "multicolour", spirals=0, crosses=0, condition=None),
    _card("J03", 4, "multicolour", spirals=0, crosses=0, condition=None),
    _card("J04", 6, "multicolour", spirals=0, crosses=1, condition=None),
    _card("J05", 7, "multicolour", spirals=0, crosses=1, condition=None),
    _card("J06", 8, "multicolour", spirals=0, crosses=1, condition=None),
]

CARDS: dict[str, Card] = {card["id"]: card for card in DECK}
CARD_IDS: list[str] = sorted(CARDS)

# Cells of the 3x3 area, numbered as printed; diagonals are never neighbours.
CELLS: list[int] = [1, 2, 3, 4, 5, 6, 7, 8, 9]
NEIGHBOURS: dict[int, list[int]] = {
    1: [2, 4], 2: [1, 3, 5], 3: [2, 6],
    4: [1, 5, 7], 5: [2, 4, 6, 8], 6: [3, 5, 9],
    7: [4, 8], 8: [5, 7, 9], 9: [6, 8],
}

# Cards revealed per turn, by player count (2 players pick twice each, alternating).
MARKET_SIZE: dict[int, int] = {2: 4, 3: 3, 4: 4, 5: 5}
ROUNDS = 3
ZONE_MULTIPLIER: dict[int, int] = {1: 2, 2: 3, 3: 4}
