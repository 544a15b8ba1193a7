"""China in words: every event type (docs/games/china.md, Events) and every command, with the
scores of the spec's scenarios (section 10) driven through the engine where they come from it.
Province names come from the map data (Han, Wei, Yan, Zhao...)."""

from __future__ import annotations

from service.games.china.narrate import card_name, describe_commit, describe_move
from tests.games.china.helpers import A, B, C, emissary, exchange, house, place, play, position, take

NAMES = ["Ann", "Ben", "Cy"]


def words(events, seat=A, command=None):
    return describe_commit(seat, command or {"type": "place"}, events, NAMES)


def test_card_names():
    assert card_name("red-06") == "red 6" and card_name("purple-10") == "purple 10"


def test_game_started_names_the_emperor_and_never_the_deal():
    said = words([{"type": "game_started", "players": 3, "side": "A", "emperor": 1,
                   "removed": ["red-12", "red-13"], "order": ["green-03", "red-01", "yellow-05"]}], seat=None)
    assert said == ["The game starts with 3 players on the A side of the board; Ben holds the Emperor and plays first."]


def test_scenario_14_a_house_fills_han_and_it_is_scored():
    # Han: A han1, han2; B han3; C han4; B builds han5 -> A 2, B 2, C 1 -> A +5, B +5, C +2.
    s = position(active=B, hands={B: ["green-01", "red-01", "orange-01"]},
                 houses={"han1": A, "han2": A, "han3": B, "han4": C})
    events, _ = play(s, B, place("han", house("green-01", "han5")))
    said = words(events, seat=B)
    assert said[0] == "Ben builds a house in Han on space 5, paying green 1."
    assert said[1] == "Han is scored (Ann 2 houses, Ben 2 houses and Cy 1 house): Ann +5, Ben +5, Cy +2."
    assert said[2] == "Ben refills their hand to 3 cards."
    assert len(said) == 3


def test_scenario_10_an_emissary_and_a_joker_pair():
    s = position(active=B, hands={B: ["orange-01", "yellow-01", "yellow-02"]}, houses={"qi1": A, "qi2": A})
    events, _ = play(s, B, place("qi", emissary("orange-01")))
    assert words(events, seat=B)[0] == "Ben sends an emissary to Qi, paying orange 1."
    s = position(hands={A: ["green-01", "yellow-01", "yellow-02"]}, houses={"han1": B})
    events, _ = play(s, A, place("han", house("green-01", "han2"), house(["yellow-01", "yellow-02"], "han3")))
    assert words(events)[:2] == ["Ann builds a house in Han on space 2, paying green 1.",
                                 "Ann builds a house in Han on space 3, paying yellow 1 + yellow 2."]


def test_scenario_24_a_display_card_is_named_a_deck_card_is_not():
    s = position(phase="refill", hands={A: ["green-01"]},
                 display=["green-05", "red-07", "yellow-03", "orange-04"], deck_top=["red-08", "purple-04", "green-09"])
    events, s = play(s, A, take(1))
    assert words(events) == ["Ann takes red 7 from the display."]
    events, s = play(s, A, take())
    said = words(events)
    assert said[0] == "Ann draws a card from the deck."
    assert "Purple 4 is laid out in the display." in said  # the slot refills only after the refill
    assert not any("red 8" in line for line in said), "the blind-drawn card stays in Ann's hand"


def test_exchange_from_the_deck_and_from_the_display():
    s = position(hands={A: ["purple-01", "red-01", "red-02"]},
                 display=["green-05", "red-07", "yellow-03", "orange-04"], deck_top=["red-08", "purple-04"])
    events, _ = play(s, A, exchange("purple-01"))
    said = words(events)
    assert said == ["Ann discards purple 1 and draws a card from the deck."]
    events, _ = play(s, A, exchange("purple-01", 2))
    assert words(events) == ["Ann discards purple 1 and takes yellow 3 from the display.",
                             "Red 8 is laid out in the display."]


def test_pass_turn_end_deck_events():
    assert words([{"type": "turn_passed", "seat": 2}, {"type": "turn_ended", "seat": 2, "next": 0}], seat=C) \
        == ["Cy passes."]
    assert words([{"type": "deck_reshuffled", "order": ["red-01", "green-02", "purple-03"]}]) \
        == ["The deck is used up: the discard pile is shuffled into a new deck of 3 cards."]
    assert words([{"type": "deck_reshuffled", "order": []}]) \
        == ["The deck is used up and the discard pile is empty: nothing to reshuffle."]
    assert words([{"type": "game_end_triggered"}]) \
        == ["The last deck is used up: the game ends just before the Emperor's next turn."]


def test_final_scoring_roads_alliances_and_the_end():
    # Scenario 17: A +4 for one chain of 4, B +0 for a chain of 3.
    assert words([{"type": "roads_scored", "chains": [[["qin3", "qin4", "han1", "han2"]], []],
                   "points": [4, 0, 0]}]) == ["Roads score: Ann +4."]
    assert words([{"type": "roads_scored", "chains": [[], [], []], "points": [0, 0, 0]}]) \
        == ["Roads score: nobody scores."]
    # Scenario 22: Zhao-Yan, A and B tie on both sides: A +4, B +4.
    assert words([{"type": "alliances_scored", "points": [4, 4, 0],
                   "alliances": [{"number": 2, "between": ["zhao", "yan"], "winners": [0, 1], "points": 4}]}]) \
        == ["Alliances score: Ann +4, Ben +4 (Zhao–Yan to Ann and Ben (+4))."]
    # Scenario 23: nobody scores anywhere.
    assert words([{"type": "alliances_scored", "points": [0, 0, 0], "alliances": []}]) \
        == ["Alliances: no border has a player leading on both sides; nobody scores."]
    assert words([{"type": "province_scored", "province": "yan", "houses": [4, 0, 0], "points": [4, 0, 0],
                   "final": True}]) == ["Yan is scored at the end of the game (Ann 4 houses): Ann +4."]
    said = words([{"type": "game_ended", "scores": [30, 25, 31], "pieces_left": [3, 4, 2],
                   "ranking": [2, 0, 1], "places": [2, 3, 1], "winners": [2]}], seat=None)
    assert said == ["Game over (the deck ran out twice and every player had the same number of turns): "
                    "Cy wins with 31 (Ann 30, Ben 25)."]


def test_move_labels():
    view = {"display": ["green-05", None, "yellow-03", "orange-04"]}
    assert describe_move(place("qin", house("red-06", "qin2"), house("red-07", "qin5")), view, A, NAMES) \
        == "Place in Qin: house on space 2 for red 6; house on space 5 for red 7"
    assert describe_move(place("han", emissary(["yellow-01", "yellow-02"])), view, A, NAMES) \
        == "Place in Han: emissary for yellow 1 + yellow 2"
    assert describe_move(take(), view, A, NAMES) == "Take the top card of the deck"
    assert describe_move(take(2), view, A, NAMES) == "Take yellow 3 from the display"
    assert describe_move(exchange("purple-01", 0), view, A, NAMES) == "Exchange purple 1 for green 5 from the display"
    assert describe_move(exchange("purple-01"), view, A, NAMES) == "Exchange purple 1 for the top card of the deck"
    assert describe_move({"type": "pass"}, view, A, NAMES).startswith("Pass")
