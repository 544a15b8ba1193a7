"""Gùgōng's contents, read from the JSON files in data/.

Every list the rules spec marks as reconstructed ([R]) lives in those files: the gift cards,
travel-token counts, decrees, jade-house costs, arrival slots, day-tracker gains, the second
canal route, the travel map and the dice faces. The rules only ever read the names below, so
the real contents can replace the files without touching rule logic.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

_DIR = Path(__file__).resolve().parent / "data"


def _load(name: str) -> dict[str, Any]:
    with open(_DIR / name, encoding="utf-8") as f:
        return json.load(f)


_cards = _load("cards.json")
_tokens = _load("tokens.json")
_decrees = _load("decrees.json")
_map = _load("map.json")
BOARD: dict[str, Any] = _load("board.json")

# --- gift cards -------------------------------------------------------------------------
CARDS: dict[str, dict[str, Any]] = {c["id"]: c for c in _cards["gift_cards"]}
START_CARDS: list[str] = [c["id"] for c in _cards["gift_cards"] if c["kind"] == "start"]
LOCATION_CARDS: list[str] = [c["id"] for c in _cards["gift_cards"] if c["kind"] == "location"]
DRAW_CARDS: list[str] = [c["id"] for c in _cards["gift_cards"] if c["kind"] == "draw"]
START_SETS: dict[int, list[str]] = {}
for _c in _cards["gift_cards"]:
    if _c["kind"] == "start":
        START_SETS.setdefault(_c["set"], []).append(_c["id"])

LOCATIONS: list[str] = list(BOARD["locations"])
CARD_ACTIONS: set[str] = {*LOCATIONS, "SERVANT1", "SERVANT2", "EXCHANGE", "NONE"}

# --- travel tokens: one id per physical token, numbered in data order --------------------
TOKEN_TYPES: dict[str, dict[str, Any]] = {t["type"]: t for t in _tokens["travel_tokens"]}
TOKENS: dict[str, str] = {}
for _t in _tokens["travel_tokens"]:
    for _ in range(_t["count"]):
        TOKENS[f"tk{len(TOKENS) + 1:02d}"] = _t["type"]
TOKEN_EXCHANGE: list[dict[str, Any]] = list(_tokens["exchange_table"])
TOKEN_LIMIT: int = _tokens["holding_limit"]

# --- decrees -------------------------------------------------------------------------------
DECREES: dict[str, dict[str, Any]] = {d["id"]: d for d in _decrees["decrees"]}
DECREE_LEVELS: list[int] = sorted({d["level"] for d in _decrees["decrees"]})
DECREES_IN_PLAY_PER_LEVEL: int = _decrees["in_play_per_level"]

# --- travel map ------------------------------------------------------------------------------
CITIES: list[str] = sorted(c["id"] for c in _map["cities"])
NEIGHBOURS: dict[str, list[str]] = {c: [] for c in CITIES}
for _a, _b in _map["roads"]:
    NEIGHBOURS[_a].append(_b)
    NEIGHBOURS[_b].append(_a)
for _c2 in NEIGHBOURS:
    NEIGHBOURS[_c2].sort()

# --- board -----------------------------------------------------------------------------------
DICE: list[list[int]] = [list(d) for d in BOARD["dice"]]
ROUTES: dict[str, list[dict[str, Any]]] = BOARD["canal"]["routes"]
REWARD_KINDS: list[str] = [k for k in BOARD["reward_slots"] if not k.startswith("_")]


def side_for(players: int) -> str:
    return BOARD["sides"][str(players)]


def routes_for(side: str) -> list[str]:
    return list(BOARD["canal"]["routes_by_side"][side])


def port_rewards(route: str, port: int) -> list[str]:
    """The rewards a full boat may claim at this port (Hangzhou's CHOICE is any of them)."""
    reward = ROUTES[route][port - 1]["reward"]
    if reward is None:
        return []
    if reward == "CHOICE":
        return list(BOARD["canal"]["choice_of"])
    return [reward]


def wall_threshold(players: int) -> int:
    return BOARD["wall"]["threshold"][str(players)]


def jade_costs(side: str) -> list[int]:
    return list(BOARD["jade_houses"][side])


def arrival_slots(side: str) -> list[int]:
    return list(BOARD["palace"]["arrival_slots_vp"][side])


def tracker_gain(day: int) -> int:
    return BOARD["day_tracker_gain"].get(str(day), 0)


def jade_vp(jade: int) -> int:
    table = BOARD["jade_scoring"]["table"]
    if jade < len(table):
        return table[jade]
    return table[-1] + (jade - len(table) + 1) * BOARD["jade_scoring"]["each_beyond"]
