"""The test scenarios of the spec, section 10 (T01-T25), one test each (some with parts).

P1 is seat 0, P2 seat 1, P3 seat 2. Rulers not mentioned stand on their start cells.
"""

from __future__ import annotations

from service.games.khan import GAME
from service.games.khan.scoring import score

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


def test_t01_simple_forced_flight():
    c = card("seljuk", "N", "OUTER")
    events, s = flight_for(position(top=[c]), 1)
    assert ruler_at(s, "seljuk") == (7, 10)
    assert at(s, 8, 10) == N
    assert s["camps"]["seljuk"] == 4
    assert s["discard"] == [c]
    assert s["removed"] == []
    assert s["current"] == 1 and s["phase"] == "actions"


def test_t02_jumping_occupied_cells():
    c = card("ruler_3", "E", "M")
    events, s = flight_for(position(top=[c], yurts={(1, 7): 0, (1, 8): N}), 1)
    assert ruler_at(s, "ruler_3") == (1, 9)
    assert at(s, 1, 6) == N
    assert s["camps"]["ruler_3"] == 4


def test_t03_jumping_the_river():
    c = card("seljuk", "S", "T")
    events, s = flight_for(position(top=[c], rulers={"seljuk": (5, 10)}, camps={"seljuk": 4}), 1)
    assert ruler_at(s, "seljuk") == (7, 10)
    assert at(s, 5, 10) == N
    assert s["camps"]["seljuk"] == 3


def test_t04_blocked_direction_clockwise_fallback_across_the_river():
    c = card("seljuk", "S", "T")
    start = position(top=[c], rulers={"seljuk": (5, 10)}, camps={"seljuk": 4}, yurts={(7, 10): N, (8, 10): N})
    events, s = flight_for(start, 1)
    assert ruler_at(s, "seljuk") == (8, 7)
    moved = [e for e in events if e["type"] == "ruler_moved"][0]
    assert moved["direction"] == "SW"
    assert at(s, 5, 10) == N
    assert s["camps"]["seljuk"] == 3


def _t05(card_id):
    start = position(
        top=[card_id],
        removed=["ruler_6"],
        yurts={(7, 3): N, (5, 4): 1},
        tiles=[("D2", [[8, 2], [8, 3]], [0])],
    )
    return flight_for(start, 0)


def test_t05a_two_blocked_directions():
    events, s = _t05(card("ruler_5", "SW", "S"))
    assert ruler_at(s, "ruler_5") == (4, 4)
    assert at(s, 5, 5) == N
    assert s["camps"]["ruler_5"] == 4


def test_t05b_same_position_north():
    events, s = _t05(card("ruler_5", "N", "K"))
    assert ruler_at(s, "ruler_5") == (4, 5)


def test_t06_board_edge():
    c = card("russian", "W", "RIVER")
    events, s = flight_for(position(top=[c]), 1)
    assert ruler_at(s, "russian") == (1, 0)
    assert at(s, 2, 0) == N
    assert s["camps"]["russian"] == 4


def test_t07_last_camp_yurt():
    c = card("ruler_4", "E", "OUTER")
    start = position(top=[c], camps={"ruler_4": 1}, removed=["russian", "seljuk"])
    events, s = flight_for(start, 1)
    assert ruler_at(s, "ruler_4") is None
    assert at(s, 2, 11) == N
    assert s["camps"]["ruler_4"] == 0
    assert len(s["removed"]) == 3
    assert s["supply"] == 20
    assert "ruler_moved" not in types(events)


def test_t08_stuck_ruler():
    c = card("ruler_3", "S", "F")
    occupied = {rc: 1 for rc in [(0, 1), (0, 2), (0, 3), (1, 1), (2, 2), (3, 3), (1, 0), (3, 0)]}
    start = position(top=[c], rulers={"ruler_3": (0, 0)}, camps={"ruler_3": 3}, yurts=occupied)
    assert ruler_at(start, "russian") == (2, 0)
    events, s = flight_for(start, 1)
    assert ruler_at(s, "ruler_3") is None
    assert at(s, 0, 0) == N
    assert s["supply"] == 22
    assert s["camps"]["ruler_3"] == 0
    assert s["removed"] == ["ruler_3"]


def test_t09_card_of_a_removed_ruler_is_skipped():
    skipped = card("russian", "S", "K")
    used = card("ruler_5", "S", "M")
    start = position(top=[skipped, used], removed=["russian"])
    events, s = flight_for(start, 1)
    assert s["discard"] == [skipped, used]
    assert ruler_at(s, "ruler_5") == (6, 5)
    assert at(s, 5, 5) == N
    assert s["camps"]["ruler_5"] == 4
    turned = [e for e in events if e["type"] == "card_turned"]
    assert [e["ruler_on_board"] for e in turned] == [False, True]


def test_t10_action_2b_drive_out():
    c = card("seljuk", "NE", "M")
    start = position(top=[c])
    events, s = act(start, 0, {"type": "drive_out", "ruler": "ruler_5"})
    assert ruler_at(s, "ruler_5") == (4, 6)
    assert ruler_at(s, "seljuk") == (8, 10)
    assert at(s, 5, 5) == N
    assert s["supply"] == 19
    assert s["camps"]["ruler_5"] == 5
    assert s["discard"] == [c]
    assert s["turn"]["actions_left"] == 1
    removed = position(removed=["ruler_5"])
    rejects(removed, 0, {"type": "drive_out", "ruler": "ruler_5"}, "ruler_not_on_board")


def test_t11_2a_with_a_landscape_card():
    sand = card("ruler_7", "NW", "S")
    mountain = card("ruler_7", "W", "M")
    start = position(hands=[[sand, mountain], []])
    events, s = act(start, 0, {"type": "invade", "card": sand, "cell": [3, 6]})
    assert at(s, 3, 6) == 0
    assert s["discard"] == [sand] and s["hands"][0] == [mountain]
    rejects(start, 0, {"type": "invade", "card": sand, "cell": [3, 9]}, "wrong_region")
    rejects(start, 0, {"type": "invade", "card": sand, "cell": [1, 6]}, "cell_not_free")
    rejects(start, 0, {"type": "invade", "card": mountain, "cell": [4, 0]}, "cell_not_land")


def test_t12_2a_with_a_river_card():
    river = card("seljuk", "NW", "RIVER")
    start = position(hands=[[river], []])
    events, s = act(start, 0, {"type": "invade", "card": river, "cell": [5, 9]})
    assert at(s, 5, 9) == 0
    rejects(start, 0, {"type": "invade", "card": river, "cell": [5, 7]}, "not_adjacent_to_river")


def test_t13_2a_with_an_outer_area_card():
    outer = card("seljuk", "N", "OUTER")
    start = position(hands=[[outer], []])
    rejects(start, 0, {"type": "invade", "card": outer, "cell": [0, 5]}, "not_adjacent_to_outer_area")
    for rc in ([0, 0], [11, 3]):
        events, s = act(start, 0, {"type": "invade", "card": outer, "cell": rc})
        assert at(s, *rc) == 0
    rejects(start, 0, {"type": "invade", "card": outer, "cell": [8, 1]}, "not_adjacent_to_outer_area")


def test_t14_conquest_over_neutral_yurts():
    start = position(yurts={(1, 1): 0, (1, 2): N, (1, 3): N})
    events, s = act(start, 0, conquer("I3", (1, 1), (1, 2), (1, 3)))
    for c in (1, 2, 3):
        assert at(s, 1, c) is None
    assert s["supply"] == 22
    assert s["placed"] == [{"tile": "I3", "cells": [[1, 1], [1, 2], [1, 3]], "owners": [0]}]
    assert s["tiles"]["I3"] == 2


def test_t15_conquest_without_majority():
    neutral_only = position(yurts={(4, 6): N, (4, 7): N})
    rejects(neutral_only, 0, conquer("D2", (4, 6), (4, 7)), "no_own_yurt")
    rejects(position(current=1, yurts={(4, 6): N, (4, 7): N}), 1, conquer("D2", (4, 6), (4, 7)), "no_own_yurt")
    mixed = {(2, 5): 0, (2, 6): 1, (3, 6): 1}
    l3 = conquer("L3", (2, 5), (2, 6), (3, 6))
    rejects(position(yurts=mixed), 0, l3, "not_majority")
    events, s = act(position(current=1, yurts=mixed), 1, l3)
    assert at(s, 2, 5) is None
    assert s["placed"][0]["owners"] == [1]


def test_t16_shared_majority():
    start = position(yurts={(9, 2): 0, (9, 3): 1, (10, 2): N, (10, 3): N})
    events, s = act(start, 0, conquer("O4", (9, 2), (9, 3), (10, 2), (10, 3)))
    assert all(at(s, r, c) is None for r, c in [(9, 2), (9, 3), (10, 2), (10, 3)])
    assert s["placed"][0]["owners"] == [0, 1]


def test_t17_structural_errors():
    rejects(position(yurts={(5, 6): 0}), 0, conquer("D2", (5, 5), (5, 6)), "covers_ruler")
    rejects(position(yurts={(5, 6): 0}), 0, conquer("D2", (5, 6), (5, 7)), "cell_without_yurt")
    rejects(position(yurts={(5, 9): 0, (7, 9): 0}), 0, conquer("I3", (5, 9), (6, 9), (7, 9)), "tile_on_river")
    no_o4 = position(yurts={(1, 1): 0, (1, 2): 0, (2, 1): 0, (2, 2): 0})
    no_o4["tiles"]["O4"] = 0
    rejects(no_o4, 0, conquer("O4", (1, 1), (1, 2), (2, 1), (2, 2)), "tile_not_available")
    covered = position(yurts={(1, 2): 0}, tiles=[("O4", [[0, 0], [0, 1], [1, 0], [1, 1]], [1])])
    rejects(covered, 0, conquer("D2", (1, 1), (1, 2)), "covers_tile")


def test_t18_straight_bridge():
    start = position(yurts={(5, 10): 0, (7, 10): N})
    events, s = act(start, 0, conquer("B-I3", (5, 10), (6, 10), (7, 10)))
    assert s["placed"][0] == {"tile": "B-I3", "cells": [[5, 10], [6, 10], [7, 10]], "owners": [0]}
    assert s["tiles"]["B-I3"] == 2
    one_bank = position(yurts={(4, 10): 0, (5, 10): 0})
    rejects(one_bank, 0, conquer("B-I3", (4, 10), (5, 10), (6, 10)), "bridge_needs_both_banks")
    bend = position(yurts={(3, 1): 0, (6, 1): N})
    rejects(bend, 0, conquer("B-I4", (3, 1), (4, 1), (5, 1), (6, 1)), "bridge_too_many_river_cells")


def test_t19_l_bridge_in_a_bend():
    start = position(yurts={(5, 8): 0, (7, 9): N})
    events, s = act(start, 0, conquer("B-L4", (5, 8), (6, 8), (7, 8), (7, 9)))
    assert s["placed"][0]["owners"] == [0]
    assert s["tiles"]["B-L4"] == 1


def test_t20_double_action_and_high_morale():
    hand = [card("seljuk", "N", "OUTER"), card("seljuk", "NE", "M"), card("ruler_3", "E", "M"), card("ruler_5", "S", "M")]
    start = position(hands=[hand, []], specials=[specials(high_morale=1), specials()], yurts={(6, 7): N})
    # (a) 2D as the first action uses both actions
    events, s = act(start, 0, {"type": "invade_of_choice", "cell": [6, 6], "discard": hand[:2]})
    assert at(s, 6, 6) == 0
    assert s["hands"][0] == hand[2:]
    assert s["phase"] == "special"
    rejects(s, 0, {"type": "invade", "card": hand[2], "cell": [0, 0]}, "no_actions_left")
    # (b) High Morale: one more action, not a double one
    events, s = act(s, 0, {"type": "play_special", "card": "high_morale"})
    assert s["specials"][0]["high_morale"] == 0
    rejects(s, 0, {"type": "invade_of_choice", "cell": [0, 0], "discard": []}, "double_action_not_allowed")
    rejects(s, 0, {"type": "play_special", "card": "high_morale"}, "special_card_not_held")
    pile = len(s["draw_pile"])
    events, s = act(s, 0, conquer("D2", (6, 6), (6, 7)))
    assert s["placed"][0]["owners"] == [0]
    # (c) step 5 refills the hand to 4
    drawn = [e for e in events if e["type"] == "cards_drawn"]
    assert drawn[0]["seat"] == 0 and len(drawn[0]["cards"]) == 2
    assert len(s["hands"][0]) == 4
    assert len(s["draw_pile"]) == pile - 2 - 1  # two refill cards, then P2's flight card
    assert s["current"] == 1
    # (d) 2D is only the first action
    later = position(hands=[hand, []])
    events, s = act(later, 0, {"type": "invade", "card": hand[1], "cell": [0, 0]})
    rejects(s, 0, {"type": "invade_of_choice", "cell": [0, 1], "discard": []}, "double_action_not_allowed")


def _protected_by_p2(yurts):
    return position(yurts=yurts, active=[{"seat": 1, "card": "protection", "region": None}],
                    specials=[specials(), specials(protection=1)])


def test_t21a_protection_blocks_when_protector_not_in_majority():
    s = _protected_by_p2({(10, 9): 0, (10, 10): 0, (10, 11): 1})
    rejects(s, 0, conquer("I3", (10, 9), (10, 10), (10, 11)), "protected_yurt")


def test_t21b_protection_consent_refused():
    s = _protected_by_p2({(9, 9): 0, (9, 10): 1, (9, 11): N})
    i3 = conquer("I3", (9, 9), (9, 10), (9, 11))
    events, asked = act(s, 0, i3)
    assert types(events) == ["consent_requested"]
    assert GAME.status(asked)["to_act"] == [1] and GAME.status(asked)["phase"] == "consent"
    rejects(asked, 0, {"type": "pass"}, "consent_pending")
    assert GAME.legal_moves(asked, 0) == []
    events, after = act(asked, 1, {"type": "consent", "agree": False})
    assert after["placed"] == [] and at(after, 9, 9) == 0
    assert after["turn"]["actions_left"] == 2
    assert GAME.status(after)["to_act"] == [0]
    rejects(after, 0, i3, "placement_already_refused")
    assert i3 not in GAME.legal_moves(after, 0)


def test_t21c_protection_consent_given():
    s = _protected_by_p2({(9, 9): 0, (9, 10): 1, (9, 11): N})
    events, asked = act(s, 0, conquer("I3", (9, 9), (9, 10), (9, 11)))
    events, after = act(asked, 1, {"type": "consent", "agree": True})
    assert after["placed"][0]["owners"] == [0, 1]
    assert after["turn"]["actions_left"] == 1 and after["pending"] is None


def test_t21d_protection_returned_then_not_twice_in_a_row():
    s = position(current=1, active=[{"seat": 1, "card": "protection", "region": None}],
                 specials=[specials(), specials(protection=1)])
    s["last_special"] = [None, "protection"]
    events, s = act(s, 1, {"type": "pass"})
    assert "special_card_returned" in types(events)
    assert s["active"] == [] and s["phase"] == "special"
    rejects(s, 1, {"type": "play_special", "card": "protection"}, "not_twice_in_a_row")


def test_t22_divine_support_two_players():
    p1_divine = [{"seat": 0, "card": "divine_support", "region": None}]
    p2_turn = position(current=1, yurts={(3, 6): 1, (3, 7): N}, active=p1_divine)
    rejects(p2_turn, 1, conquer("D2", (3, 6), (3, 7)), "protected_neutral")
    p1_turn = position(current=0, active=p1_divine, specials=[specials(protection=2, divine_support=3), specials()])
    p1_turn["last_special"] = ["divine_support", None]
    events, s = act(p1_turn, 0, {"type": "pass"})
    assert s["active"] == []
    rejects(s, 0, {"type": "play_special", "card": "divine_support"}, "not_twice_in_a_row")
    events, s = act(s, 0, {"type": "play_special", "card": "protection"})
    assert s["active"] == [{"seat": 0, "card": "protection", "region": None}]


def test_t23_divine_support_four_players():
    flights = [card("ruler_4", "SE", "M"), card("ruler_4", "S", "S")]
    start = position(4, phase="special", top=flights,
                     specials=[specials(divine_support=2), specials(divine_support=2), specials(), specials()])
    events, s = act(start, 0, {"type": "play_special", "card": "divine_support", "region": "T"})
    assert s["current"] == 1
    events, s = act(s, 1, {"type": "pass"})
    rejects(s, 1, {"type": "play_special", "card": "divine_support", "region": "T"}, "region_already_protected")
    events, s = act(s, 1, {"type": "play_special", "card": "divine_support", "region": "K"})
    assert [a["region"] for a in s["active"]] == ["T", "K"]
    assert s["current"] == 2
    tundra = dict(s, yurts=list(s["yurts"]))
    tundra["yurts"][BOARD.index(7, 0)] = 2
    tundra["yurts"][BOARD.index(7, 1)] = -1
    rejects(tundra, 2, conquer("D2", (7, 0), (7, 1)), "protected_neutral")
    sand = dict(s, yurts=list(s["yurts"]))
    sand["yurts"][BOARD.index(0, 5)] = 2
    sand["yurts"][BOARD.index(0, 6)] = -1
    events, after = act(sand, 2, conquer("D2", (0, 5), (0, 6)))
    assert after["placed"][-1]["owners"] == [2]


def test_t24_end_phase_trigger():
    flight = card("ruler_5", "N", "K")
    hand = [card("seljuk", "N", "OUTER"), card("seljuk", "NE", "M"), card("ruler_3", "E", "M")]
    start = position(
        top=[flight],
        hands=[hand, [card("ruler_7", "W", "M"), card("ruler_7", "NW", "S"), card("ruler_8", "N", "S"), card("ruler_8", "NW", "M")]],
        removed=["russian", "ruler_3", "ruler_4", "ruler_6"],
        camps={"ruler_5": 1},
        rulers={"ruler_7": (11, 8), "ruler_8": (11, 4)},
        # P2 keeps a possible conquest on (0,5)-(0,6), so the game goes on after P1's turn
        yurts={(5, 6): 0, (0, 5): 1, (0, 6): N},
        specials=[specials(high_morale=1), specials()],
    )
    events, s = flight_for(start, 0)
    assert "end_phase_started" in types(events)
    assert s["end_phase"] and len(s["removed"]) == 5
    for rc in [(5, 5), (8, 10), (11, 8), (11, 4)]:
        assert at(s, *rc) == N
    assert all(v is None for v in s["rulers"].values())
    assert GAME.status(s)["phase"] == "end_phase"
    rejects(s, 0, {"type": "invade", "card": hand[0], "cell": [0, 0]}, "end_phase_only_conquest")
    rejects(s, 0, {"type": "drive_out", "ruler": "seljuk"}, "end_phase_only_conquest")
    rejects(s, 0, {"type": "play_special", "card": "high_morale"}, "special_cards_disabled")
    events, s = act(s, 0, conquer("D2", (5, 5), (5, 6)))
    assert s["placed"][0]["owners"] == [0]
    pile = len(s["draw_pile"])
    rejects(s, 0, {"type": "play_special", "card": "high_morale"}, "special_cards_disabled")
    events, s = act(s, 0, {"type": "pass"})
    assert "cards_drawn" not in types(events)
    assert len(s["draw_pile"]) == pile and len(s["hands"][0]) == 3
    assert s["current"] == 1 and "card_turned" not in types(events)


def _t25_position():
    return position(
        end_phase=True,
        yurts={(5, 0): 0, (6, 0): N},
        tiles=[
            ("O4", [[0, 0], [0, 1], [1, 0], [1, 1]], [0]),
            ("I3", [[2, 0], [2, 1], [2, 2]], [0]),
            ("D2", [[0, 8], [0, 9]], [0, 1]),
            ("L4", [[1, 8], [2, 8], [3, 8], [3, 9]], [1]),
        ],
    )


def test_t25_game_end_and_scoring():
    s = _t25_position()
    assert {"type": "conquer", "tile": "D2", "cells": [[5, 0], [6, 0]]} in GAME.legal_moves(s, 0)
    events, s = act(s, 0, {"type": "pass"})
    assert not GAME.status(s)["finished"] and s["current"] == 1
    events, s = act(s, 1, {"type": "pass"})
    st = GAME.status(s)
    assert st["finished"] and st["to_act"] == []
    assert st["result"] == {"scores": [22, 12], "ranking": [0, 1], "winners": [0]}
    ended = events[-1]
    assert ended["tile_points"] == [9, 6]
    assert ended["area_bonus"] == [13, 6]
    assert [(a["seat"], a["size"], a["bonus"]) for a in ended["areas"]] == [(0, 7, 10), (1, 6, 6), (0, 2, 3)]
    rejects(s, 0, {"type": "pass"}, "game_over")


def test_t25_tie_break_by_largest_area():
    # P1: one L4 (4 points, area 4: 1st, +10) = 14.
    # P2: I3 and a separate D2 (5 points; areas 3 and 2: 2nd +6, 3rd +3) = 14.
    s = position(end_phase=True, tiles=[
        ("L4", [[0, 0], [1, 0], [2, 0], [2, 1]], [0]),
        ("I3", [[0, 8], [0, 9], [0, 10]], [1]),
        ("D2", [[5, 11], [5, 12]], [1]),
    ])
    result = score(s, BOARD)
    assert result["scores"] == [14, 14]
    assert result["largest_area"] == [4, 3]
    assert result["ranking"] == [0, 1] and result["winners"] == [0]


def test_t25_tie_break_equal_again_is_a_shared_win():
    # P1: two adjacent D2 (one area of 4) = 4 + 10; P2: O4 (area 4, tied 1st) = 4 + 10.
    s = position(end_phase=True, tiles=[
        ("D2", [[0, 0], [0, 1]], [0]),
        ("D2", [[1, 0], [1, 1]], [0]),
        ("O4", [[0, 8], [0, 9], [1, 8], [1, 9]], [1]),
    ])
    result = score(s, BOARD)
    assert result["scores"] == [14, 14]
    assert result["winners"] == [0, 1]
