"""Rules of the spec beyond the section-10 scenarios: setup, options, turn flow, deck
exhaustion, 2B removals, consent order, special-card checks, end of game, commands."""

from __future__ import annotations

import random

import pytest

from service.games.interface import IllegalMove, fold
from service.games.khan import GAME
from service.games.khan.data import CARD_IDS, CARDS, TILES
from service.games.khan.scoring import areas, score
from service.games.playout import playout

from .helpers import (
    BOARD,
    N,
    act,
    at,
    card,
    conquer,
    flight_for,
    position,
    rejects,
    ruler_at,
    specials,
    types,
)


def started(players=2, seed=3, **options):
    s = GAME.initial(options, players)
    return fold(GAME, GAME.decide(s, None, {"type": "start"}, random.Random(seed)), s)


# ---- setup (spec 4) ----


@pytest.mark.parametrize("players,expected", [
    (2, {"high_morale": 2, "protection": 2, "divine_support": 4}),
    (3, {"high_morale": 2, "protection": 1, "divine_support": 1}),
    (4, {"high_morale": 1, "protection": 1, "divine_support": 2}),
])
def test_setup_special_cards_per_player_count(players, expected):
    s = started(players)
    assert s["specials"] == [expected] * players


def test_setup_deal_in_seat_order_then_start_players_flight():
    order = list(CARD_IDS)
    s = started(3, deck_order=order, start_player=2)
    assert s["hands"][0] == [order[0], order[3], order[6], order[9]]
    assert s["hands"][2] == [order[2], order[5], order[8], order[11]]
    assert s["current"] == 2 and s["start_player"] == 2
    # the start player's forced flight turned over the next card
    assert s["discard"] == [order[12]]
    assert len(s["draw_pile"]) == 72 - 12 - 1
    assert s["supply"] == 20 and sum(s["camps"].values()) == 39
    assert all(s["tiles"][t] == TILES[t]["count"] for t in TILES)
    assert sum(s["tiles"].values()) == 38


def test_random_start_records_deck_and_start_player_in_the_event():
    s = GAME.initial({}, 4)
    events = GAME.decide(s, None, {"type": "start"}, random.Random(5))
    started_event = events[0]
    assert started_event["type"] == "game_started"
    assert sorted(started_event["deck_order"]) == sorted(CARD_IDS)
    assert 0 <= started_event["start_player"] < 4
    assert events == GAME.decide(s, None, {"type": "start"}, random.Random(5))


def test_status_before_start():
    assert GAME.status(GAME.initial({}, 2)) == {"phase": "waiting", "to_act": [], "finished": False, "result": None}


# ---- options ----


@pytest.mark.parametrize("options", [
    {"nope": 1},
    {"deck_order": CARD_IDS[:-1]},
    {"deck_order": [*CARD_IDS[:-1], CARD_IDS[0]]},
    {"deck_order": "abc"},
    {"start_player": 2},
    {"start_player": True},
    {"start_player": "0"},
    {"reshuffle": "sorted"},
    {"board": "moon"},
    {"board": 3},
])
def test_bad_options_are_refused(options):
    with pytest.raises(IllegalMove) as err:
        GAME.initial(options, 2)
    assert err.value.code == "bad_options"


@pytest.mark.parametrize("seats", [1, 5, 0, True, "2"])
def test_bad_player_count(seats):
    with pytest.raises(IllegalMove) as err:
        GAME.initial({}, seats)
    assert err.value.code == "bad_player_count"


def test_options_fix_every_random_outcome():
    order = list(reversed(CARD_IDS))
    a = started(2, seed=1, deck_order=order, start_player=1, reshuffle="in_order")
    b = started(2, seed=99, deck_order=order, start_player=1, reshuffle="in_order")
    assert a == b


# ---- step 1 and 2B details ----


def test_flight_is_not_optional_and_uses_the_camp():
    c = card("ruler_8", "NW", "KHAN")
    events, s = flight_for(position(top=[c]), 1)
    assert types(events)[-3:] == ["turn_started", "card_turned", "ruler_moved"]
    assert ruler_at(s, "ruler_8") == (10, 3)
    assert s["camps"]["ruler_8"] == 4 and s["supply"] == 20


def test_skipping_loop_reshuffles_when_the_pile_runs_out():
    gone = card("russian", "S", "K")
    used = card("ruler_5", "S", "M")
    s = position(removed=["russian"])
    s["draw_pile"] = [gone]
    s["discard"] = [used]
    events, s = flight_for(s, 1)
    assert types(events).count("deck_reshuffled") == 1
    reshuffle = [e for e in events if e["type"] == "deck_reshuffled"][0]
    assert sorted(reshuffle["order"]) == sorted([gone, used])
    assert ruler_at(s, "ruler_5") == (6, 5)


def test_refill_reshuffles_midway_and_continues():
    hand = [card("seljuk", "N", "OUTER")]
    s = position(hands=[hand, [card("ruler_7", c_dir, bg) for c_dir, bg in (("W", "M"), ("NW", "S"), ("N", "F"), ("NE", "T"))]])
    s["draw_pile"] = [card("ruler_3", "E", "M")]
    s["discard"] = [card("ruler_4", "SE", "M"), card("ruler_4", "S", "S"), card("ruler_4", "SW", "F")]
    events, s = act(s, 0, {"type": "pass"}, seed=4)
    drawn = [e for e in events if e["type"] == "cards_drawn"]
    assert [len(e["cards"]) for e in drawn] == [1, 2]
    assert types(events).index("deck_reshuffled") > types(events).index("cards_drawn")
    assert len(s["hands"][0]) == 4


def test_in_order_reshuffle_keeps_the_discard_order():
    s = position()
    s["options"] = {**s["options"], "reshuffle": "in_order"}
    discard = [card("ruler_4", "SE", "M"), card("ruler_4", "S", "S")]
    s["draw_pile"] = []
    s["discard"] = list(discard)
    events, s = flight_for(s, 1)
    assert [e for e in events if e["type"] == "deck_reshuffled"][0]["order"] == discard


def test_drive_out_never_uses_the_camp_even_with_one_yurt():
    c = card("seljuk", "NE", "M")
    s = position(top=[c], camps={"ruler_5": 1})
    events, s = act(s, 0, {"type": "drive_out", "ruler": "ruler_5"})
    assert ruler_at(s, "ruler_5") == (4, 6)
    assert s["camps"]["ruler_5"] == 1 and s["supply"] == 19


def test_drive_out_uses_a_removed_rulers_card_normally():
    c = card("russian", "NE", "S")
    s = position(top=[c], removed=["russian"])
    events, s = act(s, 0, {"type": "drive_out", "ruler": "ruler_5"})
    assert ruler_at(s, "ruler_5") == (4, 6)


def test_drive_out_stuck_ruler_is_removed_and_can_start_the_end_phase_mid_turn():
    c = card("ruler_3", "S", "F")
    occupied = {rc: 1 for rc in [(0, 1), (0, 2), (0, 3), (1, 1), (2, 2), (3, 3), (1, 0), (3, 0)]}
    occupied[(4, 4)] = 0
    occupied[(4, 5)] = N
    s = position(top=[c], rulers={"ruler_3": (0, 0)}, camps={"ruler_3": 3},
                 removed=["ruler_4", "ruler_6", "ruler_7", "ruler_8"], yurts=occupied)
    events, s = act(s, 0, {"type": "drive_out", "ruler": "ruler_3"})
    removed = [e for e in events if e["type"] == "ruler_removed"][0]
    assert removed["neutral_from"] == "supply" and removed["camp_to_supply"] == 3
    assert "end_phase_started" in types(events)
    assert s["end_phase"] and s["turn"]["actions_left"] == 1
    # russian, seljuk, ruler_5 replaced by neutral yurts; 1 from supply for ruler_3 and 3 for them;
    # camps (3 of ruler_3 + 5 + 5 + 5) went to the supply
    assert s["supply"] == 20 - 1 + 3 - 3 + 15
    assert at(s, 0, 0) == N and at(s, 2, 0) == N
    rejects(s, 0, {"type": "invade", "card": s["hands"][0][0], "cell": [6, 6]}, "end_phase_only_conquest")
    events, s = act(s, 0, conquer("D2", (4, 4), (4, 5)))
    assert s["current"] == 1 and "cards_drawn" not in types(events)


# ---- actions and steps ----


def test_passing_actions_then_step_4_is_offered_only_with_special_cards():
    s = position(specials=[specials(high_morale=1), specials()])
    events, s = act(s, 0, {"type": "pass"})
    assert GAME.status(s)["phase"] == "special" and s["current"] == 0
    assert {"type": "play_special", "card": "high_morale"} in GAME.legal_moves(s, 0)
    events, s = act(s, 0, {"type": "pass"})
    assert s["current"] == 1


def test_wrong_step_and_turn_errors():
    s = position(specials=[specials(high_morale=1), specials()])
    rejects(s, 0, {"type": "play_special", "card": "high_morale"}, "wrong_step")
    rejects(s, 0, {"type": "consent", "agree": True}, "wrong_step")
    rejects(s, 1, {"type": "pass"}, "not_your_turn")
    rejects(s, None, {"type": "pass"}, "unknown_command")  # the system sends only start
    rejects(s, None, {"type": "start"}, "already_started")


def test_high_morale_two_drive_outs_then_extra_drive_out_of_the_same_ruler():
    cards = [card("seljuk", "NE", "M"), card("seljuk", "E", "S"), card("seljuk", "SE", "F")]
    s = position(top=cards, specials=[specials(high_morale=1, protection=1), specials()])
    for _ in range(2):
        events, s = act(s, 0, {"type": "drive_out", "ruler": "ruler_5"})
    assert s["phase"] == "special"
    events, s = act(s, 0, {"type": "play_special", "card": "high_morale"})
    assert GAME.status(s)["phase"] == "extra_action"
    rejects(s, 0, {"type": "play_special", "card": "protection"}, "one_special_per_turn")
    events, s = act(s, 0, {"type": "drive_out", "ruler": "ruler_5"})
    assert s["current"] == 1 and s["supply"] == 17


def test_invade_of_choice_checks():
    hand = [card("seljuk", "N", "OUTER"), card("seljuk", "NE", "M")]
    s = position(hands=[hand, []])
    rejects(s, 0, {"type": "invade_of_choice", "cell": [6, 4], "discard": []}, "cell_not_land")
    rejects(s, 0, {"type": "invade_of_choice", "cell": [5, 5], "discard": []}, "cell_not_free")
    rejects(s, 0, {"type": "invade_of_choice", "cell": [6, 6], "discard": ["ruler_3-M"]}, "card_not_in_hand")
    rejects(s, 0, {"type": "invade_of_choice", "cell": [6, 6], "discard": [hand[0], hand[0]]}, "card_not_in_hand")
    events, s = act(s, 0, {"type": "invade_of_choice", "cell": [6, 6]})
    assert events[0]["discarded"] == [] and s["hands"][0][:2] == hand and at(s, 6, 6) == 0


def test_invade_with_the_khan_joker_and_card_checks():
    joker = card("seljuk", "NE", "KHAN")
    s = position(hands=[[joker], []])
    rejects(s, 0, {"type": "invade", "card": "ruler_3-M", "cell": [0, 0]}, "card_not_in_hand")
    rejects(s, 0, {"type": "invade", "card": joker, "cell": [13, 0]}, "cell_not_land")
    rejects(s, 0, {"type": "invade", "card": joker, "cell": [9, 0]}, "cell_not_land")
    covered = position(hands=[[joker], []], tiles=[("D2", [[0, 0], [0, 1]], [1])])
    rejects(covered, 0, {"type": "invade", "card": joker, "cell": [0, 1]}, "cell_not_free")
    events, s = act(s, 0, {"type": "invade", "card": joker, "cell": [12, 9]})
    assert at(s, 12, 9) == 0


def test_conquest_shape_and_void_checks():
    s = position(yurts={(1, 1): 0, (1, 2): 0})
    rejects(s, 0, conquer("D2", (1, 1), (1, 3)), "shape_mismatch")
    rejects(s, 0, conquer("D2", (1, 1), (1, 1)), "shape_mismatch")
    rejects(s, 0, conquer("I3", (1, 1), (1, 2)), "shape_mismatch")
    rejects(s, 0, {"type": "conquer", "tile": "X9", "cells": [[1, 1], [1, 2]]}, "tile_not_available")
    rejects(position(yurts={(9, 1): 0}), 0, conquer("D2", (9, 0), (9, 1)), "cell_not_land")
    rejects(position(yurts={(12, 4): 0}), 0, conquer("D2", (13, 4), (12, 4)), "cell_not_land")
    rejects(position(yurts={(1, 1): 0, (1, 2): 0}), 0, conquer("B-I3", (1, 1), (1, 2), (1, 3)), "bridge_not_over_river")


def test_conquest_returns_neutral_yurts_and_mirror_images_are_legal():
    # L3 mirrored: (0,1),(1,0),(1,1)
    s = position(yurts={(2, 6): 0, (3, 5): N, (3, 6): 1})
    events, s = act(s, 0, conquer("L3", (2, 6), (3, 5), (3, 6)))
    assert s["placed"][0]["owners"] == [0, 1] and s["supply"] == 21
    returned = [e for e in events if e["type"] == "conquered"][0]["yurts_returned"]
    assert {"cell": [3, 5], "owner": "neutral"} in returned


# ---- special cards (5.7) and consent (5.8) ----


def test_protection_only_when_nobody_else_has_one_active():
    s = position(3, phase="special", specials=[specials(protection=1, divine_support=1), specials(), specials()],
                 active=[{"seat": 1, "card": "protection", "region": None}, {"seat": 2, "card": "divine_support", "region": None}])
    rejects(s, 0, {"type": "play_special", "card": "protection"}, "protection_already_active")
    rejects(s, 0, {"type": "play_special", "card": "divine_support"}, "divine_already_active")
    rejects(s, 0, {"type": "play_special", "card": "high_morale"}, "special_card_not_held")
    assert GAME.legal_moves(s, 0) == [{"type": "pass"}]


def test_three_players_may_repeat_a_card_in_consecutive_turns():
    s = position(3, phase="special", specials=[specials(protection=2), specials(), specials()])
    s["last_special"] = ["protection", None, None]
    events, s = act(s, 0, {"type": "play_special", "card": "protection"})
    assert s["active"] == [{"seat": 0, "card": "protection", "region": None}]


def test_two_player_rule_tracks_real_turns_per_card_kind():
    s = position(phase="special", specials=[specials(protection=2, divine_support=2), specials()])
    events, s = act(s, 0, {"type": "play_special", "card": "protection"})
    assert s["last_special"] == ["protection", None]
    s["current"], s["phase"] = 0, "special"
    s["turn"] = {**s["turn"], "special_played": None}
    s["active"] = []
    events, after = act(s, 0, {"type": "play_special", "card": "divine_support"})
    assert after["last_special"][0] == "divine_support"
    events, after = act(s, 0, {"type": "pass"})
    assert after["last_special"][0] is None


def test_divine_support_region_is_required_only_with_four_players():
    four = position(4, phase="special", specials=[specials(divine_support=1)] + [specials()] * 3)
    rejects(four, 0, {"type": "play_special", "card": "divine_support"}, "bad_command")
    rejects(four, 0, {"type": "play_special", "card": "divine_support", "region": "R"}, "bad_command")
    two = position(2, phase="special", specials=[specials(divine_support=1), specials()])
    rejects(two, 0, {"type": "play_special", "card": "divine_support", "region": "T"}, "bad_command")


def test_own_protection_never_restricts_the_active_player():
    s = position(yurts={(3, 6): 0, (3, 7): N}, active=[{"seat": 0, "card": "divine_support", "region": None}])
    events, s = act(s, 0, conquer("D2", (3, 6), (3, 7)))
    assert s["placed"][0]["owners"] == [0]


def test_blocked_by_two_cards_reports_protected_yurt():
    s = position(3, yurts={(0, 0): 0, (0, 1): 0, (0, 2): 1, (0, 3): N},
                 active=[{"seat": 1, "card": "protection", "region": None},
                         {"seat": 2, "card": "divine_support", "region": None}])
    rejects(s, 0, conquer("I4", (0, 0), (0, 1), (0, 2), (0, 3)), "protected_yurt")
    only_divine = position(3, yurts={(0, 0): 0, (0, 1): N}, active=[{"seat": 2, "card": "divine_support", "region": None}])
    rejects(only_divine, 0, conquer("D2", (0, 0), (0, 1)), "protected_neutral")


def test_several_protectors_are_asked_in_seat_order_after_the_active_player():
    yurts = {(0, 0): 1, (0, 1): 2, (0, 2): 3, (0, 3): N}
    active = [{"seat": 1, "card": "divine_support", "region": "M"},
              {"seat": 3, "card": "protection", "region": None}]
    s = position(4, current=2, yurts={**yurts, (0, 0): 1, (0, 1): 2}, active=active)
    i4 = conquer("I4", (0, 0), (0, 1), (0, 2), (0, 3))
    events, s = act(s, 2, i4)
    assert events[0]["ask"] == [3, 1]
    rejects(s, 1, {"type": "consent", "agree": True}, "consent_pending")
    events, s = act(s, 3, {"type": "consent", "agree": True})
    assert GAME.status(s)["to_act"] == [1] and s["placed"] == []
    yes = act(s, 1, {"type": "consent", "agree": True})[1]
    assert yes["placed"][0]["owners"] == [1, 2, 3]
    no = act(s, 1, {"type": "consent", "agree": False})[1]
    assert no["placed"] == [] and no["pending"] is None and GAME.status(no)["to_act"] == [2]
    # the same protected yurts on another cell set may still be proposed
    assert any(m["type"] == "conquer" and m["tile"] == "I3" for m in GAME.legal_moves(no, 2))


def test_consent_request_and_answers_are_legal_moves():
    s = position(yurts={(9, 9): 0, (9, 10): 1, (9, 11): N},
                 active=[{"seat": 1, "card": "protection", "region": None}])
    i3 = conquer("I3", (9, 9), (9, 10), (9, 11))
    assert i3 in GAME.legal_moves(s, 0)
    blocked = position(yurts={(10, 9): 0, (10, 10): 0, (10, 11): 1},
                       active=[{"seat": 1, "card": "protection", "region": None}])
    assert conquer("I3", (10, 9), (10, 10), (10, 11)) not in GAME.legal_moves(blocked, 0)
    assert conquer("D2", (10, 10), (10, 11)) in GAME.legal_moves(blocked, 0)  # a 1-1 tie: consent
    events, asked = act(s, 0, i3)
    assert GAME.legal_moves(asked, 1) == [{"type": "consent", "agree": True}, {"type": "consent", "agree": False}]
    rejects(asked, 1, {"type": "consent", "agree": "yes"}, "bad_command")


def test_step_3_returns_the_card_and_the_yurt():
    s = position(active=[{"seat": 0, "card": "divine_support", "region": None}])
    events, s = act(s, 0, {"type": "pass"})
    assert [e for e in events if e["type"] == "special_card_returned"][0]["card"] == "divine_support"
    assert s["active"] == []


# ---- the end phase and the end of the game (5.9) ----


def test_end_rule_a_no_conquest_possible_ends_the_game_after_the_turn():
    s = position(end_phase=True, yurts={(5, 0): 0, (6, 0): N})
    events, s = act(s, 0, conquer("D2", (5, 0), (6, 0)))
    assert s["current"] == 0
    events, s = act(s, 0, {"type": "pass"})
    assert GAME.status(s)["finished"]
    assert events[-1]["type"] == "game_ended"


def test_end_rule_b_does_not_count_turns_with_an_active_protection():
    s = position(end_phase=True, yurts={(5, 0): 0, (6, 0): N},
                 active=[{"seat": 1, "card": "protection", "region": None}])
    events, s = act(s, 0, {"type": "pass"})
    assert s["quiet_turns"] == 0 and s["current"] == 1
    events, s = act(s, 1, {"type": "pass"})  # P2's card expires in his step 3
    assert s["active"] == [] and s["quiet_turns"] == 0
    events, s = act(s, 0, {"type": "pass"})
    assert s["quiet_turns"] == 1 and not GAME.status(s)["finished"]
    events, s = act(s, 1, {"type": "pass"})
    assert GAME.status(s)["finished"]


def test_end_rule_a_disregards_protections():
    # a conquest blocked only by a protection still keeps the game going
    s = position(end_phase=True, yurts={(5, 0): 0, (6, 0): 1},
                 active=[{"seat": 1, "card": "protection", "region": None}])
    events, s = act(s, 0, {"type": "pass"})
    assert not GAME.status(s)["finished"]


def test_end_phase_allows_two_conquests():
    s = position(end_phase=True, yurts={(5, 0): 0, (6, 0): N, (0, 5): 0, (0, 6): N, (11, 3): 1, (11, 4): N})
    events, s = act(s, 0, conquer("D2", (5, 0), (6, 0)))
    events, s = act(s, 0, conquer("D2", (0, 5), (0, 6)))
    assert s["current"] == 1 and len(s["placed"]) == 2


# ---- commands ----


@pytest.mark.parametrize("command,code", [
    ({}, "bad_command"),
    ({"type": 3}, "bad_command"),
    ({"type": "dance"}, "unknown_command"),
    ({"type": "invade", "card": {"x": 1}, "cell": [0, 0]}, "card_not_in_hand"),
    ({"type": "invade", "card": "seljuk-M", "cell": None}, "bad_command"),
    ({"type": "conquer", "tile": "D2", "cells": "??"}, "bad_command"),
    ({"type": "conquer", "tile": "D2", "cells": [[0, True], [0, 1]]}, "bad_command"),
    ({"type": "conquer", "tile": None, "cells": [[0, 0]]}, "tile_not_available"),
    ({"type": "drive_out", "ruler": -999}, "ruler_not_on_board"),
    ({"type": "invade_of_choice", "cell": [6, 6], "discard": "all"}, "bad_command"),
])
def test_malformed_commands(command, code):
    s = position(hands=[["seljuk-M"], []])
    rejects(s, 0, command, code)


def test_not_started_and_game_over():
    s = GAME.initial({}, 2)
    rejects(s, 0, {"type": "pass"}, "not_started")
    for step in playout(GAME, 2, "khan-over"):
        s = step.after
    assert GAME.status(s)["finished"]
    rejects(s, None, {"type": "start"}, "game_over")
    rejects(s, 0, {"type": "pass"}, "game_over")


def test_every_card_id_names_its_ruler_and_background():
    for cid, c in CARDS.items():
        assert cid == f"{c['ruler']}-{c['background']}"


# ---- scoring (spec 6) ----


def test_area_bonus_uses_standard_competition_ranking():
    s = position(4, end_phase=True, tiles=[
        ("O6", [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2]], [0]),
        ("I3", [[2, 0], [2, 1], [2, 2]], [0]),
        ("I5", [[0, 8], [0, 9], [0, 10], [0, 11], [0, 12]], [1]),
        ("I4", [[1, 9], [1, 10], [1, 11], [1, 12]], [1]),
        ("I4", [[3, 9], [3, 10], [3, 11], [3, 12]], [2]),
        ("I3", [[4, 10], [4, 11], [4, 12]], [2]),
        ("P5", [[9, 9], [9, 10], [10, 9], [10, 10], [11, 9]], [3]),
    ])
    result = score(s, BOARD)
    assert [(a["seat"], a["size"], a["bonus"]) for a in result["areas"]] == [(0, 9, 10), (1, 9, 10), (2, 7, 3), (3, 5, 0)]
    assert result["scores"] == [19, 19, 10, 5]
    assert result["winners"] == [0, 1] and result["ranking"] == [0, 1, 2, 3]


def test_a_bridge_joins_tiles_on_both_banks_into_one_area():
    s = position(end_phase=True, tiles=[
        ("B-I3", [[5, 10], [6, 10], [7, 10]], [0]),
        ("D2", [[8, 9], [8, 10]], [0]),
        ("D2", [[4, 10], [4, 11]], [0, 1]),
        ("D2", [[7, 0], [8, 0]], [0]),
    ])
    found = areas(s, BOARD)
    assert [(a["seat"], a["size"]) for a in found] == [(0, 7), (0, 2), (1, 2)]
