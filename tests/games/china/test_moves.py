"""legal_moves is complete: it lists exactly the commands decide accepts."""

from __future__ import annotations

import itertools
import random

from service.games import IllegalMove
from service.games.china import GAME
from service.games.china.data import PROVINCE_SPACES, PROVINCES
from tests.games.china.helpers import A, B, C, emissary, house, place, position


def brute_force_places(state, seat):
    """Every Place command of up to 2 placements built from the hand, kept if decide accepts it."""
    hand = state["hands"][seat]
    payments = [[c] for c in hand] + [list(p) for p in itertools.combinations(hand, 2)]
    accepted = []
    for province in PROVINCES:
        pieces = [lambda cards, sp=sp: house(cards, sp) for sp in PROVINCE_SPACES[province]] + [emissary]
        singles = [mk(pay) for pay in payments for mk in pieces]
        # pairs sharing a card fail as duplicate_card; skipping them keeps the test quick
        doubles = [[a, b] for a in singles for b in singles if not set(a["cards"]) & set(b["cards"])]
        for placements in [[a] for a in singles] + doubles:
            cmd = place(province, *placements)
            try:
                GAME.decide(state, seat, cmd, random.Random(1))
            except IllegalMove:
                continue
            accepted.append(cmd)
    return accepted


def key(cmd):
    return repr(cmd)


def check_complete(state, seat):
    listed = [m for m in GAME.legal_moves(state, seat) if m["type"] == "place"]
    assert sorted(map(key, listed)) == sorted(map(key, brute_force_places(state, seat)))
    assert len(set(map(key, listed))) == len(listed)


def test_place_moves_are_complete_in_a_busy_position():
    s = position(
        hands={A: ["red-01", "red-02", "green-01"]},
        houses={"wei1": A, "wei2": B, "wei3": B, "qin1": C, "han1": A, "han2": A, "han3": B, "han4": C},
        emissaries={"wei": [0, 1, 0], "han": [1, 0, 0]},
    )
    check_complete(s, A)


def test_place_moves_are_complete_with_pairs_and_a_nearly_empty_supply():
    s = position(
        hands={A: ["yellow-01", "yellow-02", "yellow-03"]},
        houses={"yan1": B, "yan2": B, "shu1": A, "chu1": A},
        emissaries={"yan": [1, 0, 0]},
        supply={A: {"houses": 1, "emissaries": 1}},
    )
    check_complete(s, A)


def test_exchange_and_take_moves():
    s = position(hands={A: ["orange-01", "orange-02", "purple-01"]})
    exchanges = [m for m in GAME.legal_moves(s, A) if m["type"] == "exchange"]
    assert len(exchanges) == 3 * 5
    assert GAME.legal_moves(s, B) == []
    s = position(hands={A: ["green-01", "red-01", "orange-01"]}, houses={"han1": B})
    _, s = __import__("tests.games.china.helpers", fromlist=["play"]).play(
        s, A, place("han", house("green-01", "han2"))
    )
    assert GAME.legal_moves(s, A) == [
        {"type": "take", "source": "deck"},
        *({"type": "take", "source": "display", "slot": i} for i in range(4)),
    ]
