"""Spec 7: what each audience sees."""

from __future__ import annotations

import msgpack

from service.games.china import GAME
from service.games.china.data import cards_in_play
from tests.games.china.helpers import A, B, C, end_now, house, place, play, position, take


def packed(value):
    return msgpack.packb(value, use_bin_type=True)


def test_a_hand_is_seen_by_its_owner_only():
    s = position(hands={A: ["green-01", "red-01", "orange-01"]})
    mine, theirs, spectator = GAME.view(s, A), GAME.view(s, B), GAME.view(s, None)
    assert mine["hand"] == ["green-01", "red-01", "orange-01"]
    assert theirs["hand"] == s["hands"][B] and spectator["hand"] is None
    assert mine["hand_sizes"] == theirs["hand_sizes"] == [3, 3, 3]
    for card in s["hands"][A]:
        assert packed(card) not in packed(theirs) and packed(card) not in packed(spectator)


def test_the_deck_is_a_count_and_the_rest_is_public():
    s = position(houses={"han1": B}, emissaries={"han": [0, 0, 1]}, discard=["red-05"], deck_size=10)
    v = GAME.view(s, C)
    assert v["deck_size"] == 10 and "deck" not in v
    for card in s["deck"]:
        assert all(packed(card) not in packed(GAME.view(s, a)) for a in (A, B, C, None))
    assert v["display"] == s["display"] and v["discard"] == s["discard"] and v["discard"][-1] == "red-05"
    assert v["houses"]["han1"] == B and v["emissaries"]["han"] == [0, 0, 1]
    assert v["supply"][C] == {"houses": 20, "emissaries": 7}
    assert v["removed"] == s["removed"] and v["side"] == "A" and v["emperor"] == A


def test_options_that_fix_the_deck_are_never_shown():
    order = cards_in_play(3)
    s = GAME.initial({"deck_order": order, "reshuffle_order": order}, 3)
    s = GAME.evolve(s, GAME.decide(s, None, {"type": "start"}, __import__("random").Random(1))[0])
    for a in (A, B, C, None):
        assert "options" not in GAME.view(s, a)
        for card in s["deck"]:
            assert packed(card) not in packed(GAME.view(s, a))


def test_cards_to_take_during_the_refill():
    s = position(hands={A: ["green-01", "green-02", "red-01"]}, houses={"han1": B})
    _, s = play(s, A, place("han", house("green-01", "han2"), house("green-02", "han3")))
    assert GAME.view(s, B)["cards_to_take"] == 2 and GAME.view(s, B)["phase"] == "refill"
    _, s = play(s, A, take(0))
    assert GAME.view(s, A)["cards_to_take"] == 1


def test_hands_are_revealed_when_the_game_is_over():
    s = position(generation=2, deck_size=0)
    assert GAME.view(s, B)["hands"] is None
    _, s = end_now(s)
    assert GAME.view(s, None)["hands"] == s["hands"]
    assert GAME.secrets(s, A) == [] and GAME.secrets(s, None) == []
    assert GAME.view(s, None)["result"] == s["result"]


def test_secrets_name_hand_and_deck_cards():
    s = position(deck_size=5)
    assert GAME.secrets(s, A) == s["hands"][A]
    assert GAME.secrets(s, None) == s["deck"]
