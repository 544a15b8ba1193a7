"""Spec 10, scenarios 14-23 and 28: province, road and alliance scoring and the winner; plus
the final scoring order (spec 6.3) and the formulas with hand-computed numbers."""

from __future__ import annotations

import pytest

from service.games.china.scoring import province_points, ranking, road_chains
from tests.games.china.helpers import A, B, C, D, end_now, event, house, place, play, position, types

# --- Province scoring (spec 5.3) ----------------------------------------------------------------


def test_scenario_14_french_rules_example():
    s = position(
        active=B,
        hands={B: ["green-01", "red-01", "orange-01"]},
        houses={"han1": A, "han2": A, "han3": B, "han4": C},
    )
    events, after = play(s, B, place("han", house("green-01", "han5")))
    scored = event(events, "province_scored")
    assert scored["houses"] == [2, 2, 1] and scored["points"] == [5, 5, 2] and scored["final"] is False
    assert after["scores"] == [5, 5, 2] and after["scored"]["han"]


def test_scenario_15_tie_in_the_second_group_four_players():
    s = position(
        4,
        active=D,
        hands={D: ["purple-01", "red-01", "orange-01"]},
        houses={"chu1": A, "chu2": A, "chu3": A, "chu4": B, "chu5": B, "chu6": C, "chu7": D},
    )
    events, after = play(s, D, place("chu", house("purple-01", "chu8")))
    assert event(events, "province_scored")["points"] == [8, 3, 2, 3]
    assert after["scores"] == [8, 3, 2, 3]


def test_scenario_16_sole_owner():
    s = position(hands={A: ["yellow-01", "red-01", "orange-01"]}, houses={"yan1": A, "yan2": A, "yan3": A})
    events, after = play(s, A, place("yan", house("yellow-01", "yan4")))
    assert event(events, "province_scored")["points"] == [4, 0, 0]
    assert after["scores"] == [4, 0, 0]


@pytest.mark.parametrize(
    "houses,points",
    [
        ([2, 2, 1], [5, 5, 2]),
        ([3, 2, 1, 2], [8, 3, 2, 3]),
        ([4, 0, 0], [4, 0, 0]),
        ([1, 1, 1, 1, 1], [5, 5, 5, 5, 5]),
        ([3, 1, 0], [4, 3, 0]),  # an unfilled province at game end: H = houses present (A18)
        ([0, 0, 0], [0, 0, 0]),
        ([4, 2, 1, 1, 0], [8, 4, 2, 2, 0]),  # three groups: each scores the count of the group above
    ],
)
def test_majority_chain(houses, points):
    assert province_points(houses) == points


def test_a_province_is_scored_only_once():
    # Filling happens once; the final scoring skips scored provinces.
    s = position(
        houses={"yan1": A, "yan2": A, "yan3": A, "yan4": B},
        scored=("yan",),
        scores=[4, 3, 0],
        generation=2,
        deck_size=0,
    )
    events, after = end_now(s)
    assert all(e["province"] != "yan" for e in events if e["type"] == "province_scored")
    assert after["scores"] == [4, 3, 0]


def test_final_scoring_order_and_unfilled_provinces():
    """6.3: unscored provinces with houses (H = houses present), then roads, then alliances;
    empty provinces score nothing."""
    s = position(
        houses={"wei1": A, "wei2": A, "wei3": A, "wei4": A, "wei5": B, "qi1": C},
        emissaries={"wei": [1, 0, 0], "qi": [0, 0, 1]},
        generation=2,
        deck_size=0,
    )
    events, after = end_now(s)
    final = [
        e
        for e in events
        if e["type"] in ("province_scored", "roads_scored", "alliances_scored", "game_ended")
    ]
    assert types(final) == [
        "province_scored",
        "province_scored",
        "roads_scored",
        "alliances_scored",
        "game_ended",
    ]
    wei, qi = final[0], final[1]
    assert (wei["province"], wei["points"], wei["final"]) == ("wei", [5, 4, 0], True)
    assert (qi["province"], qi["points"]) == ("qi", [0, 0, 1])
    # Side A: A's wei1-wei2-wei3 run along A-central; wei4 reaches wei2 only through B's wei5.
    assert final[2]["points"] == [0, 0, 0]
    # Alliance 7 (Wei-Qi): A leads Wei, C leads Qi; nobody leads both.
    assert final[3]["points"] == [0, 0, 0]
    assert after["scores"] == [5, 4, 1]


# --- Road scoring (spec 5.4) ----------------------------------------------------------------------


def roads(players, side, houses):
    s = position(
        players,
        options={"board_side": side} if players == 4 else None,
        houses=houses,
        generation=2,
        deck_size=0,
    )
    events, _ = end_now(s)
    return event(events, "roads_scored")


def test_scenario_17_chain_of_four_and_chain_of_three():
    r = roads(3, "A", {"qin3": A, "qin4": A, "han1": A, "han2": A, "zhao1": B, "zhao2": B, "zhao3": B})
    assert r["points"] == [4, 0, 0]
    assert r["chains"][A] == [["han1", "han2", "qin3", "qin4"]]


def test_scenario_18_junction_makes_one_group():
    r = roads(3, "A", {"wei1": A, "wei2": A, "wei3": A, "wei4": A, "wei5": A, "wei6": B})
    assert r["points"] == [5, 0, 0]


def test_scenario_19_broken_chain():
    houses = {"qin3": A, "qin4": A, "han2": A, "wei1": A, "wei2": A, "wei3": A, "han1": B}
    r = roads(3, "A", houses)
    assert r["points"] == [4, 0, 0]
    assert r["chains"][A] == [["han2", "wei1", "wei2", "wei3"]]


@pytest.mark.parametrize("side,points", [("B", 4), ("A", 0)])
def test_scenario_20_board_side_matters(side, points):
    r = roads(4, side, {"qin1": A, "qin2": A, "qin3": A, "zhao1": A})
    assert r["points"] == [points, 0, 0, 0]


def test_road_chain_counts_each_house_once():
    # Side A: chu3 is a junction (chu2-chu3-chu4 and chu6-chu3); the group of 6 scores 6.
    owner = {s: A for s in ("chu1", "chu2", "chu3", "chu4", "chu5", "chu6")}
    assert road_chains(owner, "A", A) == [["chu1", "chu2", "chu3", "chu4", "chu5", "chu6"]]


# --- Alliance scoring (spec 6.2) ------------------------------------------------------------------


def alliances(houses, emissaries):
    s = position(houses=houses, emissaries=emissaries, generation=2, deck_size=0)
    events, _ = end_now(s)
    return event(events, "alliances_scored")


def test_scenario_21_han_wei():
    a = alliances(
        {"han1": A, "han2": A, "han3": A, "wei1": A, "wei2": A},
        {"han": [2, 1, 0], "wei": [1, 0, 1]},
    )
    assert a["points"] == [5, 0, 0]
    assert a["alliances"] == [{"number": 6, "between": ["han", "wei"], "winners": [A], "points": 5}]


def test_scenario_22_zhao_yan_shared():
    a = alliances({"zhao1": A, "zhao2": A, "yan1": A, "yan2": A}, {"zhao": [1, 1, 0], "yan": [1, 1, 0]})
    assert a["points"] == [4, 4, 0]
    assert [x["number"] for x in a["alliances"]] == [2]


def test_scenario_23_one_side_without_emissaries():
    a = alliances({"qi1": A, "qi2": A, "qi3": A}, {"qi": [3, 0, 0]})
    assert a["points"] == [0, 0, 0] and a["alliances"] == []


def test_alliance_counts_for_every_border_of_a_province():
    # Chu borders Han, Wei, Qi, Shu and Yue; A leads Chu, Wei and Qi: numbers 7 (Wei-Qi, 1 + 1),
    # 11 (Wei-Chu, 1 + 2) and 12 (Qi-Chu, 1 + 2).
    a = alliances(
        {"chu1": A, "chu2": A, "wei1": A, "qi1": A},
        {"chu": [2, 0, 0], "wei": [1, 0, 0], "qi": [1, 0, 0]},
    )
    assert a["points"] == [2 + 3 + 3, 0, 0]
    assert [x["number"] for x in a["alliances"]] == [7, 11, 12]


# --- The winner (spec 6.5) ------------------------------------------------------------------------


def test_scenario_28_tie_break_by_pieces_left():
    base = {"generation": 2, "deck_size": 0, "scores": [41, 41, 38]}
    s = position(supply={A: {"houses": 2, "emissaries": 1}, B: {"houses": 4, "emissaries": 0}}, **base)
    _, after = end_now(s)
    assert after["result"]["winners"] == [B]
    assert after["result"]["ranking"] == [B, A, C]
    s = position(supply={A: {"houses": 3, "emissaries": 1}, B: {"houses": 4, "emissaries": 0}}, **base)
    events, after = end_now(s)
    assert after["result"]["winners"] == [A, B]
    assert event(events, "game_ended")["places"] == [1, 1, 3]


def test_ranking_shares_places_one_one_three():
    assert ranking([10, 12, 10, 12], [5, 3, 5, 3]) == ([1, 3, 0, 2], [3, 1, 3, 1], [1, 3])
    assert ranking([10, 10, 9], [4, 2, 7]) == ([0, 1, 2], [1, 2, 3], [0])
