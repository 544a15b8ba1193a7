"""Spec 10, scenarios 1-13: placement validation (spec 5.1), with the error codes in the
spec's order of checks."""

from __future__ import annotations

from tests.games.china.helpers import A, B, C, emissary, house, place, play, position, rejects, take, types


def test_scenario_01_single_card_house():
    s = position_han_b(hand=["green-01", "red-01", "orange-01"])
    events, after = play(s, A, place("han", house("green-01", "han2")))
    assert types(events) == ["house_built", "refill_began"]
    assert after["houses"]["han1"] == B and after["houses"]["han2"] == A
    assert after["supply"][A]["houses"] == 19
    assert after["discard"][-1] == "green-01"
    assert after["phase"] == "refill"
    # A must take exactly 1 card: the first take ends the turn.
    events, after = play(after, A, take())
    assert types(events)[-1] == "turn_ended"
    assert len(after["hands"][A]) == 3 and after["active"] == B


def test_scenario_02_joker_pair_plus_single():
    s = position_han_b(hand=["green-01", "yellow-01", "yellow-02"])
    _, after = play(s, A, place("han", house("green-01", "han2"), house(["yellow-01", "yellow-02"], "han3")))
    assert after["houses"]["han2"] == A and after["houses"]["han3"] == A
    assert after["discard"][-3:] == ["green-01", "yellow-01", "yellow-02"]
    assert after["hands"][A] == []
    for _ in range(2):
        events, after = play(after, A, take())
        assert after["phase"] == "refill" and "turn_ended" not in types(events)
    events, after = play(after, A, take())
    assert types(events)[-1] == "turn_ended" and len(after["hands"][A]) == 3


def test_scenario_03_joker_pair_of_mixed_colours():
    s = position_han_b(hand=["yellow-01", "orange-01", "green-01"])
    rejects(s, A, place("han", house(["yellow-01", "orange-01"], "han2")), "pair_colours_differ")


def test_scenario_04_joker_pair_of_the_targets_colour():
    s = position_han_b(hand=["green-01", "green-02", "red-01"])
    rejects(s, A, place("han", house(["green-01", "green-02"], "han2")), "pair_same_as_target")
    _, after = play(s, A, place("han", house("green-01", "han2"), house("green-02", "han3")))
    assert after["houses"]["han2"] == A and after["houses"]["han3"] == A


def test_scenario_05_wrong_colour():
    s = position_han_b(hand=["orange-01", "red-01", "green-01"])
    rejects(s, A, place("han", house("orange-01", "han2")), "card_colour_mismatch")


def test_scenario_06_two_pieces_into_an_empty_province():
    s = position(hands={A: ["yellow-01", "yellow-02", "red-01"]})
    rejects(
        s, A, place("shu", house("yellow-01", "shu1"), house("yellow-02", "shu2")), "empty_province_one_piece"
    )
    _, after = play(s, A, place("shu", house("yellow-01", "shu1")))
    assert after["houses"]["shu1"] == A


def test_scenario_07_three_pieces():
    s = position_han_b(hand=["green-01", "green-02", "green-03"])
    cmd = place("han", house("green-01", "han2"), house("green-02", "han3"), house("green-03", "han4"))
    rejects(s, A, cmd, "too_many_pieces")


def test_scenario_08_emissary_into_an_empty_province():
    s = position(hands={A: ["orange-01", "red-01", "green-01"]})
    rejects(s, A, place("zhao", emissary("orange-01")), "emissary_limit_exceeded")


def test_scenario_09_emissary_cap_and_order_inside_one_action():
    s = position(
        hands={A: ["red-01", "red-02", "orange-01"]},
        houses={"wei1": A, "wei2": A, "wei3": B},
        emissaries={"wei": [0, 1, 1]},
    )
    # (a) a third emissary against a cap of 2
    rejects(s, A, place("wei", emissary("red-01")), "emissary_limit_exceeded")
    # (b) the house first raises the cap to 3
    events, after = play(s, A, place("wei", house("red-01", "wei4"), emissary("red-02")))
    assert after["emissaries"]["wei"] == [1, 1, 1]
    assert after["houses"]["wei5"] is None and after["houses"]["wei6"] is None
    assert not after["scored"]["wei"] and "province_scored" not in types(events)
    # (c) the emissary first is checked against the old cap
    rejects(s, A, place("wei", emissary("red-01"), house("red-02", "wei4")), "emissary_limit_exceeded")


def test_scenario_10_emissary_without_own_house():
    s = position(active=B, hands={B: ["orange-01", "red-01", "green-01"]}, houses={"qi1": A, "qi2": A})
    _, after = play(s, B, place("qi", emissary("orange-01")))
    assert after["emissaries"]["qi"] == [0, 1, 0]


def test_scenario_11_scored_province():
    s = position(
        active=B,
        hands={B: ["yellow-01", "red-01", "green-01"], C: ["yellow-02", "red-02", "green-02"]},
        houses={"yan1": A, "yan2": A, "yan3": A, "yan4": B},
        emissaries={"yan": [1, 0, 1]},
        scored=("yan",),
        scores=[4, 3, 0],
    )
    rejects(s, B, place("yan", house("yellow-01", "yan2")), "space_occupied")
    events, after = play(s, B, place("yan", emissary("yellow-01")))
    assert after["emissaries"]["yan"] == [1, 1, 1]
    assert "province_scored" not in types(events) and after["scores"] == [4, 3, 0]
    _, after = play(after, B, take())
    assert after["active"] == C
    rejects(after, C, place("yan", emissary("yellow-02")), "emissary_limit_exceeded")


def test_scenario_12_one_province_per_turn():
    s = position_han_b(hand=["green-01", "green-02", "red-01"])
    rejects(s, A, place("han", house("green-01", "han2"), house("green-02", "wei1")), "space_not_in_province")


def test_scenario_13_empty_supply():
    s = position(
        hands={A: ["green-01", "red-01", "orange-01"]},
        houses={"han1": B, "han2": B},
        supply={A: {"houses": 0, "emissaries": 8}},
    )
    rejects(s, A, place("han", house("green-01", "han3")), "no_piece_in_supply")
    _, after = play(s, A, place("han", emissary("green-01")))
    assert after["emissaries"]["han"] == [1, 0, 0]


# --- The rest of spec 5.1: every check and its place in the order -----------------------------


def test_card_not_in_hand_and_duplicate_card_come_first():
    s = position_han_b(hand=["green-01", "red-01", "orange-01"])
    rejects(s, A, place("han", house("green-02", "han2")), "card_not_in_hand")
    rejects(s, A, place("nowhere", house("green-02", "han2")), "card_not_in_hand")
    rejects(s, A, place("han", house("green-01", "han2"), house("green-01", "han3")), "duplicate_card")
    rejects(s, A, place("han", house(["red-01", "red-01"], "han2")), "duplicate_card")


def test_unknown_province_then_piece_count():
    s = position_han_b(hand=["green-01", "red-01", "orange-01"])
    rejects(s, A, place("tibet", house("green-01", "han2")), "unknown_province")
    rejects(s, A, place("han"), "no_placements")
    # the count is checked before the payments
    rejects(
        s, A, place("shu", house("green-01", "shu1"), house("red-01", "shu2")), "empty_province_one_piece"
    )


def test_payment_size():
    s = position_han_b(hand=["green-01", "red-01", "orange-01"])
    rejects(s, A, place("han", house([], "han2")), "bad_payment_size")
    rejects(s, A, place("han", house(["green-01", "red-01", "orange-01"], "han2")), "bad_payment_size")


def test_pair_with_one_card_of_the_target_colour_is_mixed():
    s = position_han_b(hand=["green-01", "yellow-01", "red-01"])
    rejects(s, A, place("han", house(["green-01", "yellow-01"], "han2")), "pair_colours_differ")


def test_payments_are_checked_before_placements():
    s = position_han_b(hand=["green-01", "orange-01", "red-01"])
    rejects(s, A, place("han", house("green-01", "han1"), house("orange-01", "han2")), "card_colour_mismatch")


def test_unknown_space_is_not_in_the_province():
    s = position_han_b(hand=["green-01", "red-01", "orange-01"])
    rejects(s, A, place("han", house("green-01", "han9")), "space_not_in_province")


def test_one_space_twice_in_one_action_is_occupied():
    s = position_han_b(hand=["green-01", "green-02", "red-01"])
    rejects(s, A, place("han", house("green-01", "han2"), house("green-02", "han2")), "space_occupied")


def test_second_placement_is_checked_after_the_first():
    # A has one house left: the second house finds the supply empty.
    s = position(
        hands={A: ["green-01", "green-02", "red-01"]},
        houses={"han1": B},
        supply={A: {"houses": 1, "emissaries": 8}},
    )
    rejects(s, A, place("han", house("green-01", "han2"), house("green-02", "han3")), "no_piece_in_supply")


def test_no_emissary_in_supply():
    s = position(
        hands={A: ["green-01", "red-01", "orange-01"]},
        houses={"han1": B, "han2": B},
        supply={A: {"houses": 20, "emissaries": 0}},
    )
    rejects(s, A, place("han", emissary("green-01")), "no_piece_in_supply")


def test_emissary_cap_counts_every_players_emissaries():
    # Largest house count is 1 (A and B one each): one emissary of anyone fills the cap.
    s = position(
        hands={A: ["green-01", "green-02", "red-01"]},
        houses={"han1": A, "han2": B},
        emissaries={"han": [0, 0, 1]},
    )
    rejects(s, A, place("han", emissary("green-01")), "emissary_limit_exceeded")


def test_emissary_paid_with_a_joker_pair():
    s = position(hands={A: ["red-01", "red-02", "green-01"]}, houses={"han1": B, "han2": B})
    _, after = play(s, A, place("han", emissary(["red-01", "red-02"])))
    assert after["emissaries"]["han"] == [1, 0, 0]
    assert after["supply"][A]["emissaries"] == 7


def test_a_two_province_colour_serves_either_province():
    s = position(hands={A: ["red-01", "red-02", "green-01"]})
    _, after = play(s, A, place("qin", house("red-01", "qin1")))
    assert after["houses"]["qin1"] == A
    _, after = play(s, A, place("wei", house("red-01", "wei6")))
    assert after["houses"]["wei6"] == A


def test_empty_province_is_judged_at_the_start_of_the_action():
    # A's own first house in Shu does not open Shu for a second piece in the same action.
    s = position(hands={A: ["yellow-01", "yellow-02", "red-01"]})
    rejects(s, A, place("shu", house("yellow-01", "shu1"), emissary("yellow-02")), "empty_province_one_piece")


def test_a_filling_house_is_scored_before_the_next_piece():
    """A16: the province is scored between the two placements."""
    s = position(
        hands={A: ["yellow-01", "yellow-02", "red-01"]},
        houses={"yan1": A, "yan2": B, "yan3": B},
    )
    events, after = play(s, A, place("yan", house("yellow-01", "yan4"), emissary("yellow-02")))
    assert types(events)[:3] == ["house_built", "province_scored", "emissary_sent"]
    assert after["scores"] == [4, 4, 0]  # A 2 and B 2 tie for the most: both score H = 4
    assert after["scored"]["yan"] and after["emissaries"]["yan"] == [1, 0, 0]


def test_malformed_place_commands_are_bad_commands():
    s = position_han_b(hand=["green-01", "red-01", "orange-01"])
    for bad in (
        {"type": "place"},
        {"type": "place", "province": 3, "placements": []},
        {"type": "place", "province": "han", "placements": "green-01"},
        {"type": "place", "province": "han", "placements": [7]},
        {
            "type": "place",
            "province": "han",
            "placements": [{"cards": "green-01", "piece": "house", "space": "han2"}],
        },
        {
            "type": "place",
            "province": "han",
            "placements": [{"cards": [1], "piece": "house", "space": "han2"}],
        },
        {"type": "place", "province": "han", "placements": [{"cards": ["green-01"], "piece": "tower"}]},
        {"type": "place", "province": "han", "placements": [{"cards": ["green-01"], "piece": "house"}]},
        {
            "type": "place",
            "province": "han",
            "placements": [{"cards": ["green-01"], "piece": "emissary", "space": "han2"}],
        },
    ):
        rejects(s, A, bad, "bad_command")


def position_han_b(hand):
    """Han occupied: B has a house on han1; A holds `hand`."""
    return position(hands={A: hand}, houses={"han1": B})
