"""The benchmark game handcards (bench/games/handcards): playable only when enabled, never
listed, and dealing exactly what the rig's JS reference deals (bench/peers/game/handcards.js)."""

from __future__ import annotations

import random

import pytest

import service.games as games
from service.games.playout import playout

# JS: require("bench/peers/game/handcards.js").makeDeck(1).map(c => c.id), and makeDeck(2**32-1)
DECK_1 = ["c57", "c39", "c25", "c46", "c13", "c14", "c53", "c48", "c19", "c29", "c36", "c52", "c58", "c40",
          "c59", "c9", "c26", "c42", "c4", "c8", "c32", "c3", "c17", "c28", "c24", "c34", "c12", "c20", "c5",
          "c49", "c41", "c35", "c44", "c10", "c27", "c43", "c56", "c1", "c7", "c45", "c31", "c16", "c2", "c21",
          "c47", "c11", "c18", "c6", "c23", "c51", "c50", "c22", "c38", "c33", "c15", "c54", "c55", "c30",
          "c0", "c37"]
DECK_MAX_HEAD = ["c28", "c27", "c19", "c45", "c20", "c57", "c2", "c18"]


@pytest.fixture(scope="module")
def handcards():
    assert "handcards" in games.enable_bench_games() or games.playable("handcards")
    return games.get_game("handcards")


def test_it_is_never_listed(handcards):
    assert "handcards" not in games.GAMES and games.playable("handcards")


def test_the_deal_is_the_js_reference_deal(handcards):
    state = handcards.initial({"seed": 1}, 4)
    (dealt,) = handcards.decide(state, None, {"type": "start"}, random.Random(0))
    assert dealt["deck"] == DECK_1
    state = handcards.evolve(state, dealt)
    assert [c["id"] for c in handcards.view(state, 1)["hand"]] == DECK_1[5:10]
    assert handcards.view(state, None)["hand"] is None and handcards.view(state, None)["deckCount"] == 40
    other = handcards.decide(handcards.initial({"seed": 2**32 - 1}, 4), None, {"type": "start"}, random.Random(0))
    assert other[0]["deck"][:8] == DECK_MAX_HEAD


def test_a_match_is_sixty_moves_and_the_pile_holds_every_card(handcards):
    steps = list(playout(handcards, 4, "hc", {"seed": 7}))
    assert len(steps) == 61 and handcards.status(steps[-1].after)["finished"]
    final = handcards.view(steps[-1].after, None)
    assert sorted(c["id"] for c in final["pile"]) == sorted(f"c{i}" for i in range(60))
    assert sum(final["scores"]) == sum(i % 10 + 1 for i in range(60)) and final["over"] is True


def test_views_share_unchanged_parts_with_the_previous_state(handcards):
    steps = list(playout(handcards, 4, "hc", {"seed": 7}))
    before, after = steps[5].before, steps[5].after
    mover = steps[5].seat
    others = [s for s in range(4) if s != mover]
    assert all(handcards.view(before, s)["hand"] is handcards.view(after, s)["hand"] for s in others)
