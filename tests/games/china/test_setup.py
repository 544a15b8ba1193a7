"""Spec 4 (setup) and the options that fix chance; spec 2 (card split)."""

from __future__ import annotations

import random

import pytest

from service.games import IllegalMove
from service.games.china import GAME
from service.games.china.data import CARD_COUNT, cards_in_play, removed_cards
from tests.games.china.helpers import assert_conserved


def started(players, options=None, seed=1):
    s = GAME.initial(dict(options or {}), players)
    events = GAME.decide(s, None, {"type": "start"}, random.Random(seed))
    assert [e["type"] for e in events] == ["game_started"]
    return events[0], GAME.evolve(s, events[0])


def test_card_split_per_colour():
    assert CARD_COUNT == {"red": 13, "green": 12, "yellow": 11, "orange": 11, "purple": 10}
    assert sum(CARD_COUNT.values()) == 57


@pytest.mark.parametrize("players,in_play,deck", [(3, 47, 34), (4, 52, 36), (5, 57, 38)])
def test_setup_table(players, in_play, deck):
    event, s = started(players)
    assert len(cards_in_play(players)) == in_play
    assert all(len(h) == 3 for h in s["hands"]) and len(s["display"]) == 4 and None not in s["display"]
    assert len(s["deck"]) == deck and s["discard"] == [] and s["generation"] == 1
    assert s["supply"] == [{"houses": 20, "emissaries": 8}] * players
    assert s["scores"] == [0] * players
    assert sorted(event["order"]) == sorted(cards_in_play(players))
    assert_conserved(s)


@pytest.mark.parametrize("players,per_colour", [(3, 2), (4, 1), (5, 0)])
def test_removed_cards_are_the_highest_of_each_colour(players, per_colour):
    removed = removed_cards(players)
    assert len(removed) == 5 * per_colour
    if per_colour:
        assert "red-13" in removed and "purple-10" in removed and "red-01" not in removed
    event, s = started(players)
    assert event["removed"] == removed and s["removed"] == removed
    assert not set(removed) & set(event["order"])


def test_deck_order_option_deals_hands_in_seat_order_then_the_display():
    order = list(reversed(cards_in_play(3)))
    event, s = started(3, {"deck_order": order, "start_player": 2})
    assert event["order"] == order
    assert s["hands"] == [order[0:3], order[3:6], order[6:9]]
    assert s["display"] == order[9:13] and s["deck"] == order[13:]
    assert s["emperor"] == 2 and s["active"] == 2


def test_chance_is_recorded_and_repeatable():
    e1, _ = started(4, seed=5)
    e2, _ = started(4, seed=5)
    e3, _ = started(4, seed=6)
    assert e1 == e2 and e1 != e3
    assert 0 <= e1["emperor"] < 4


@pytest.mark.parametrize(
    "players,options,side",
    [(3, {}, "A"), (4, {}, "A"), (4, {"board_side": "B"}, "B"), (4, {"board_side": "A"}, "A"), (5, {}, "B")],
)
def test_board_side_by_player_count(players, options, side):
    event, s = started(players, options)
    assert s["side"] == side and event["side"] == side


@pytest.mark.parametrize(
    "players,options",
    [
        (3, {"board_side": "B"}),
        (5, {"board_side": "A"}),
        (4, {"board_side": "C"}),
        (4, {"board_side": 1}),
        (3, {"start_player": 3}),
        (3, {"start_player": -1}),
        (3, {"start_player": True}),
        (3, {"start_player": "0"}),
        (3, {"deck_order": "shuffled"}),
        (3, {"deck_order": cards_in_play(4)}),
        (3, {"deck_order": cards_in_play(3)[:-1]}),
        (3, {"deck_order": [*cards_in_play(3)[:-1], "red-01"]}),
        (3, {"deck_order": [*cards_in_play(3)[:-1], 7]}),
        (3, {"reshuffle_order": cards_in_play(5)}),
        (3, {"fortifications": True}),
    ],
)
def test_bad_options(players, options):
    with pytest.raises(IllegalMove) as err:
        GAME.initial(options, players)
    assert err.value.code == "bad_options" and err.value.message


@pytest.mark.parametrize("players", [2, 6, 0, True, "3", None])
def test_bad_player_count(players):
    with pytest.raises(IllegalMove) as err:
        GAME.initial({}, players)
    assert err.value.code == "bad_player_count"


def test_before_start():
    s = GAME.initial({}, 3)
    assert GAME.status(s) == {"phase": "waiting", "to_act": [], "finished": False, "result": None}
    assert GAME.legal_moves(s, 0) == []
