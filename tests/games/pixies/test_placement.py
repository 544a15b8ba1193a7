"""Placement and action validation: spec section 4.3 and scenarios T01-T07."""

from __future__ import annotations

import random

import pytest

from service.games.interface import IllegalMove
from service.games.pixies import GAME
from service.games.pixies.rules import score_area

from .table import area, fold, table, take

EMPTY = "[. . . | . . . | . . .]"


def refused(state, seat, code, **command):
    before = dict(state)
    with pytest.raises(IllegalMove) as err:
        GAME.decide(state, seat, {"type": "take_card", **command}, random.Random(0))
    assert err.value.code == code, err.value.message
    assert state == before  # a rejected action leaves the state unchanged
    return err.value


def test_t01_card_goes_face_up_into_its_empty_cell():
    """T01: 3 players, P1 active, market [B13, G02, R16], P1's area empty."""
    state = table(3, market=["B13", "G02", "R16"], first=0)
    events, after = take(state, 0, "B13")
    assert events == [{"type": "card_taken", "seat": 0, "card": "B13", "cell": 7, "placement": "face_up", "keep": None}]
    assert after["areas"][0][6] == {"up": "B13", "down": None}
    assert after["market"] == ["G02", "R16"]
    assert after["pick_order"][after["picks_made"]] == 1
    refused(state, 0, "unexpected_parameter", card="B13", keep="new")
    refused(state, 0, "unexpected_parameter", card="B13", target_cell=3)


def test_t02_covering_a_lone_face_down_card_validates_it_and_scores_13():
    """T02: a face-down G07 in cell 2 is covered by Y02 (face up); the bottom's number is irrelevant."""
    state = table(3, market=["Y02", "R16", "B13"], areas={0: "[. [G07] . | . Y09/B08 . | . . .]"})
    events, after = take(state, 0, "Y02")
    assert events[0]["placement"] == "on_face_down"
    assert after["areas"][0] == area("[. Y02/G07 . | . Y09/B08 . | . . .]")
    refused(state, 0, "unexpected_parameter", card="Y02", keep="new")
    # V = 2 + 5, S = 2 (Y02), X = 0, yellow zone {2, 5} = 2 x 2
    assert score_area(after["areas"][0], 1) == {
        "validated": 7, "spirals": 2, "crosses": 0, "zone": 2, "multiplier": 2, "total": 13,
    }


def test_t03_face_up_duplicate_keeps_the_chosen_card_on_top():
    """T03: cell 9 holds B15; R16 arrives with keep new / keep existing."""
    state = table(3, market=["R16", "G02", "B13"], areas={0: "[. . . | . . . | . . B15]"})
    events, new = take(state, 0, "R16", keep="new")
    assert events[0] == {"type": "card_taken", "seat": 0, "card": "R16", "cell": 9, "placement": "on_face_up", "keep": "new"}
    assert new["areas"][0][8] == {"up": "R16", "down": "B15"}
    _, existing = take(state, 0, "R16", keep="existing")
    assert existing["areas"][0][8] == {"up": "B15", "down": "R16"}
    assert score_area(new["areas"][0], 1)["validated"] == 9
    assert score_area(existing["areas"][0], 1)["validated"] == 9


def test_t04_face_up_duplicate_without_a_choice_is_refused_in_validation_order():
    """T04: no keep -> keep_required; target_cell without keep -> unexpected_parameter; keep 'top' -> invalid."""
    state = table(3, market=["R16", "G02", "B13"], areas={0: "[. . . | . . . | . . B15]"})
    refused(state, 0, "keep_required", card="R16")
    refused(state, 0, "unexpected_parameter", card="R16", target_cell=3)
    refused(state, 0, "unexpected_parameter", card="R16", target_cell=3, keep="new")
    refused(state, 0, "invalid_parameter", card="R16", keep="top")


def test_t05_card_for_a_validated_cell_goes_face_down_into_a_chosen_empty_cell():
    """T05: cell 5 is a pair; R09 (a 5) goes face down into empty cell 3."""
    state = table(3, market=["R09", "G02", "B13"], areas={0: "[. . . | . Y09/B08 . | . . .]"})
    events, after = take(state, 0, "R09", target_cell=3)
    assert events[0] == {"type": "card_taken", "seat": 0, "card": "R09", "cell": 3, "placement": "face_down", "keep": None}
    assert after["areas"][0] == area("[. . [R09] | . Y09/B08 . | . . .]")


def test_t06_face_down_card_needs_a_cell_with_no_card_at_all():
    """T06: lone face-down, face-up and pair cells are not targets; a missing target is required."""
    state = table(3, market=["R09", "G02", "B13"], areas={0: "[. [G07] B03 | . Y09/B08 . | . . .]"})
    for cell in (2, 3, 5):
        refused(state, 0, "target_not_empty", card="R09", target_cell=cell)
    refused(state, 0, "target_required", card="R09")
    refused(state, 0, "unexpected_parameter", card="R09", keep="new")
    refused(state, 0, "unexpected_parameter", card="R09", keep="new", target_cell=1)
    refused(state, 0, "invalid_parameter", card="R09", target_cell=10)
    refused(state, 0, "invalid_parameter", card="R09", target_cell=True)


def test_t07_turn_market_and_phase_checks():
    """T07: P2 active with market [G02, R16]; P1 is refused, an absent card is refused, and no
    card is taken while a round is being scored (wrong_phase) or after the end (game_over, as in
    every game: SPEC 7.2)."""
    state = table(3, market=["G02", "R16"], first=0, picks_made=1)
    refused(state, 0, "not_your_turn", card="G02")
    refused(state, 1, "card_not_in_market", card="B01")
    refused(state, 1, "card_not_in_market", card="Z99")
    refused(state, 1, "card_not_in_market", card={"x": 1})
    refused(state, 1, "card_not_in_market")
    # validation order: not_your_turn is reported before the card check
    refused(state, 0, "not_your_turn", card="B01")

    # the moment between the round's scoring and the next round's setup
    last = table(3, market=["G02"], first=0, picks_made=2, last_turn=True)
    events, _ = take(last, 2, "G02")
    scoring = fold(last, events[: [e["type"] for e in events].index("round_scored") + 1])
    refused(scoring, 2, "wrong_phase", card="G02")
    refused(scoring, 0, "wrong_phase", card="G02")

    over = {**state, "phase": "game_over"}
    refused(over, 1, "game_over", card="G02")  # every game's code after the end (SPEC 7.2)


def test_validation_order_card_is_checked_before_parameters():
    """Spec 4.3 order: card_not_in_market comes before invalid/unexpected parameters."""
    state = table(3, market=["R16", "G02", "B13"], areas={0: "[. . . | . . . | . . B15]"})
    refused(state, 0, "card_not_in_market", card="B01", keep="top")
    refused(state, 0, "invalid_parameter", card="G02", keep="top")
    refused(state, 0, "unknown_field", card="G02", colour="red")


def test_empty_cell_allows_no_face_down_choice_even_when_it_is_the_only_empty_cell():
    """Decision 11: choices are explicit; an empty own cell always takes the card face up."""
    state = table(3, market=["R16", "R03", "B13"], areas={0: "[B01 G02/B02 Y04 | R05 G07 B11 | G14 R15 .]"})
    events, after = take(state, 0, "R16")
    assert after["areas"][0][8] == {"up": "R16", "down": None}
    assert events[1] == {"type": "area_filled", "seat": 0}
