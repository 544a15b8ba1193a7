"""Scoring (spec 5.2, 5.3) and scenarios T16-T20, with the spec's hand-computed numbers."""

from __future__ import annotations

from service.games.pixies import GAME
from service.games.pixies.rules import evolve, game_result, largest_zone, score_area

from .table import area, table, take


def breakdown(v, s, x, z, m):
    return {"validated": v, "spirals": s, "crosses": x, "zone": z, "multiplier": m, "total": v + s - x + z * m}


def test_t16_full_example_round_1_scores_33():
    """T16: V 16, S 11, X 4, yellow zone {3,4,5,6,8} = 5 x 2."""
    grid = area("[R01 [G07] Y04/Y05 | Y06 Y09/B08 Y12 | B13 Y15/R15 [B14]]")
    assert score_area(grid, 1) == breakdown(16, 11, 4, 5, 2)
    assert score_area(grid, 1)["total"] == 33


def test_t17_jokers_and_condition_cards_round_3_scores_65():
    """T17: blue count 7 for each of B06 and B10; blue zone of 7 x 4; B15 under B16 ignored."""
    grid = area("[B01 J01/Y02 B04 | B06/G05 B10 [R14] | Y13 J06/B14 B16/B15]")
    assert score_area(grid, 3) == breakdown(23, 21, 7, 7, 4)
    assert score_area(grid, 3)["total"] == 65


def test_t18_checkerboard_has_no_zone_round_2_scores_22():
    """T18: no two orthogonal neighbours share a colour: Z = 0."""
    grid = area("[G01 R03 G03 | R05 G07/G08 R10 | G14 R15 G16/R16]")
    assert score_area(grid, 2) == breakdown(14, 14, 6, 0, 3)
    assert score_area(grid, 2)["total"] == 22


def test_t19_condition_card_counts_itself_and_the_joker():
    """T19: B10 counts itself and J03 (S 2); blue zone {4,5} = 2 x 2; total 6."""
    grid = area("[. . . | J03 B10 . | . . .]")
    assert score_area(grid, 1) == breakdown(0, 2, 0, 2, 2)
    assert score_area(grid, 1)["total"] == 6


def test_t20_tie_for_first_is_shared_and_ranks_go_1_1_3():
    """T20: P1 33+40+50 = 123, P2 45+38+40 = 123, P3 20+65+37 = 122."""
    state = table(3, market=["B01"])
    for r, totals in enumerate([[33, 45, 20], [40, 38, 65], [50, 40, 37]], start=1):
        scores = [{**breakdown(0, 0, 0, 0, r + 1), "total": t} for t in totals]
        state = evolve(state, {"type": "round_scored", "round": r, "scores": scores})
    assert state["totals"] == [123, 123, 122]
    result = game_result(state["totals"])
    assert result == {"scores": [123, 123, 122], "ranking": [0, 1, 2], "ranks": [1, 1, 3], "winners": [0, 1]}
    state = evolve(state, {"type": "game_ended", **result})
    status = GAME.status(state)
    assert status["finished"] and status["to_act"] == []
    assert status["result"] == {"scores": [123, 123, 122], "ranking": [0, 1, 2], "winners": [0, 1]}
    assert GAME.view(state, None)["result"] == status["result"]


def test_ranking_puts_higher_totals_first_whatever_the_seat():
    assert game_result([5, 9, -3, 9])["ranking"] == [1, 3, 0, 2]
    assert game_result([5, 9, -3, 9])["ranks"] == [3, 1, 4, 1]


def test_a_lone_card_is_no_zone():
    """Decision 2: the largest zone must have 2 cards to score."""
    assert largest_zone(area("[B01 . . | . . . | . . .]")) == 0
    assert largest_zone(area("[. . . | . . . | . . .]")) == 0
    assert score_area(area("[B01 . G03 | . . . | . . .]"), 3) == breakdown(0, 8, 0, 0, 4)


def test_face_down_and_empty_cells_break_zones_and_diagonals_do_not_join():
    # blue 1-2 and blue 6-9 are split by the face-down card in cell 3
    assert largest_zone(area("[B01 B02 [B03] | . . B11 | . . B16]")) == 2
    # diagonal neighbours 1 and 5 do not join
    assert largest_zone(area("[B01 . . | . B08 . | . . .]")) == 0


def test_only_the_largest_zone_scores_not_the_sum_of_equal_zones():
    grid = area("[B01 B02 . | . . . | . R15 R16]")
    assert largest_zone(grid) == 2
    assert score_area(grid, 2)["zone"] == 2


def test_a_joker_joins_zones_of_every_colour_and_bridges_them():
    # blue 1, joker 2, blue 3: one blue zone of 3; the joker also makes green {2, 5}
    assert largest_zone(area("[B01 J01 B03 | . G07 . | . . .]")) == 3


def test_spirals_crosses_and_conditions_count_on_visible_cards_only_validated_or_not():
    # Y03 (condition, yellow) sees itself and Y04; the face-down Y05 and Y12 are not counted.
    grid = area("[. Y03 Y04/Y05 | . . [Y12] | B13 . .]")
    assert score_area(grid, 1) == breakdown(3, 5 + 2, 3, 2, 2)


def test_round_score_may_be_negative_and_totals_add_up():
    grid = area("[. . . | . . . | B13 R14 B15]")
    assert score_area(grid, 1) == breakdown(0, 0, 14, 0, 2)
    state = evolve(table(2, market=["B01"]), {"type": "round_scored", "round": 1, "scores": [score_area(grid, 1)] * 2})
    assert state["totals"] == [-14, -14]


def test_multiplier_is_2_3_4_by_round():
    grid = area("[B01 B02 . | . . . | . . .]")
    assert [score_area(grid, r)["total"] for r in (1, 2, 3)] == [10 + 4, 10 + 6, 10 + 8]


def test_every_player_is_scored_at_round_end_full_or_not():
    a = "[B01 G02 Y04 | R05 G07 B11 | G14 R15 .]"
    state = table(2, market=["Y16", "G12", "R03", "B05"], first=0, areas={0: a, 1: "[. . . | . . . | . . B16]"})
    _, state = take(state, 0, "Y16")
    events, _ = take(state, 1, "G12")
    scores = events[1]["scores"]
    assert scores[1] == breakdown(0, 1, 1, 0, 2)
    assert scores[0] == score_area(area("[B01 G02 Y04 | R05 G07 B11 | G14 R15 Y16]"), 1)
