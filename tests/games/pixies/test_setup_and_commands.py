"""The deck (spec 2), setup (3), options that fix chance, commands and legal moves."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import pytest

from service.games.interface import IllegalMove
from service.games.pixies import GAME
from service.games.pixies.data import CARDS, DECK
from service.games.pixies.rules import evolve, initial
from service.games.playout import playout

from .table import fold, started, table, take, types

# The deck block of the rules spec (shared/rules/pixies.md, section 2), copied verbatim into the
# tests so that a fresh clone checks it too: the copy is an input, and a missing input fails.
SPEC_DECK = Path(__file__).resolve().parent / "spec_deck.json"


# --- The deck -------------------------------------------------------------------------------


def test_deck_has_70_cards_with_the_printed_copy_counts_and_symbols():
    assert len(DECK) == 70 and len(CARDS) == 70
    assert Counter(c["colour"] for c in DECK) == {"blue": 16, "green": 16, "yellow": 16, "red": 16, "multicolour": 6}
    assert Counter(c["number"] for c in DECK) == {1: 5, 2: 6, 3: 8, 4: 10, 5: 12, 6: 10, 7: 8, 8: 6, 9: 5}
    assert sum(c["spirals"] for c in DECK) == 60 and sum(c["crosses"] for c in DECK) == 61
    conditions = sorted(c["id"] for c in DECK if c["condition"])
    assert conditions == ["B06", "B10", "G04", "G09", "R02", "R08", "Y03", "Y10"]
    assert all(c["condition"]["colour"] == c["colour"] for c in DECK if c["condition"])
    jokers = [c for c in DECK if c["colour"] == "multicolour"]
    assert [(c["id"], c["number"], c["crosses"]) for c in jokers] == [
        ("J01", 2, 0), ("J02", 3, 0), ("J03", 4, 0), ("J04", 6, 1), ("J05", 7, 1), ("J06", 8, 1),
    ]
    assert all(c["colours"] == ["blue", "green", "yellow", "red"] for c in jokers)
    assert not any(c["spirals"] and c["crosses"] for c in DECK)


def test_deck_equals_the_spec_block_card_for_card():
    spec = json.loads(SPEC_DECK.read_text())
    assert len(spec) == 70
    assert [dict(c) for c in DECK] == spec


# --- Setup and options ----------------------------------------------------------------------


def test_player_counts_outside_2_to_5_are_refused():
    for n in (0, 1, 6, True, "3"):
        with pytest.raises(IllegalMove) as err:
            initial({}, n)
        assert err.value.code == "bad_player_count"


@pytest.mark.parametrize("options", [
    {"variant": 1},
    {"first_player": 3},
    {"first_player": -1},
    {"first_player": True},
    {"first_player": "0"},
    {"deck_orders": "B01"},
    {"deck_orders": [["B01"], ["B02"], ["B03"], ["B04"]]},
    {"deck_orders": [["Z99"]]},
    {"deck_orders": [[7]]},
    {"deck_orders": [["B01", "B01"]]},
    {"deck_orders": ["B01"]},
])
def test_malformed_options_are_refused(options):
    with pytest.raises(IllegalMove) as err:
        initial(options, 3)
    assert err.value.code == "bad_options" and err.value.message


def test_before_start_the_game_waits_and_refuses_cards():
    state = initial({}, 4)
    assert GAME.status(state) == {"phase": "waiting", "to_act": [], "finished": False, "result": None}
    with pytest.raises(IllegalMove) as err:
        GAME.decide(state, 0, {"type": "take_card", "card": "B01"}, random.Random(0))
    assert err.value.code == "not_started"
    assert GAME.legal_moves(state, 0) == []


def test_start_chooses_the_first_player_at_random_and_reveals_the_first_market():
    firsts = set()
    for seed in range(30):
        events = GAME.decide(initial({}, 4), None, {"type": "start"}, random.Random(seed))
        assert types(events) == ["game_started", "round_started", "market_revealed"]
        first = events[0]["first_player"]
        assert events[1] == {"type": "round_started", "round": 1, "first_player": first}
        assert events[2]["first_player"] == first and events[2]["turn"] == 1
        firsts.add(first)
    assert firsts == {0, 1, 2, 3}


def test_a_second_start_is_refused():
    state = started(3)
    with pytest.raises(IllegalMove) as err:
        GAME.decide(state, None, {"type": "start"}, random.Random(0))
    assert err.value.code == "already_started"


def test_first_player_and_deck_orders_fix_chance_whatever_the_rng():
    order1 = ["B13", "G02", "R16", "Y01", "B02", "J03"]
    options = {"first_player": 2, "deck_orders": [order1, [], ["R01", "R02", "R03"]]}
    for seed in (1, 2):
        state = started(3, options, seed=seed)
        assert state["first_player"] == 2 and state["market"] == ["B13", "G02", "R16"]
        for seat, card in [(2, "B13"), (0, "G02"), (1, "R16")]:
            events, state = take(state, seat, card)
        assert events[-1]["cards"] == ["Y01", "B02", "J03"] and events[-1]["first_player"] == 1


def test_a_stacked_prefix_is_dealt_first_then_the_rest_is_random_but_never_the_stacked_cards_early():
    options = {"first_player": 0, "deck_orders": [["B13", "G02", "R16", "Y01"]]}
    state = started(3, options, seed=5)
    assert state["market"] == ["B13", "G02", "R16"]
    events, state = take(state, 0, "B13")
    _, state = take(state, 1, "G02")
    events, state = take(state, 2, "R16")
    reveal = events[-1]["cards"]
    assert reveal[0] == "Y01" and len(reveal) == 3 and "Y01" not in reveal[1:]


def test_evolve_refuses_a_reveal_the_deck_cannot_give():
    state = table(3, market=["B13", "G02", "R16"])
    with pytest.raises(ValueError):
        evolve(state, {"type": "market_revealed", "round": 1, "turn": 2, "first_player": 0, "cards": ["B13", "G02", "R16"]})
    with pytest.raises(ValueError):
        evolve(state, {"type": "market_revealed", "round": 1, "turn": 2, "first_player": 0, "cards": ["B01"]})


# --- Commands -------------------------------------------------------------------------------


@pytest.mark.parametrize("command,code", [
    ({}, "bad_command"),
    ({"type": 7}, "bad_command"),
    ({"type": None}, "bad_command"),
    ({"type": "start"}, "system_only"),
    ({"type": "pass"}, "unknown_command"),
    ({"type": "take_card", "card": "B13", "keep": {"x": 1}}, "invalid_parameter"),
    ({"type": "take_card", "card": "B13", "target_cell": -999}, "invalid_parameter"),
    ({"type": "take_card", "card": "B13", "target_cell": "3"}, "invalid_parameter"),
    ({"type": "take_card", "card": "B13", "extra": 1}, "unknown_field"),
    ({"type": "take_card", "card": None}, "card_not_in_market"),
    ({"type": "take_card", "card": -999}, "card_not_in_market"),
])
def test_junk_commands_have_stable_codes(command, code):
    state = table(3, market=["B13", "G02", "R16"])
    with pytest.raises(IllegalMove) as err:
        GAME.decide(state, 0, command, random.Random(0))
    assert err.value.code == code and err.value.message


def test_system_commands_other_than_start_and_seats_out_of_range_are_refused():
    state = table(3, market=["B13", "G02", "R16"])
    with pytest.raises(IllegalMove) as err:
        GAME.decide(state, None, {"type": "take_card", "card": "B13"}, random.Random(0))
    assert err.value.code == "unknown_command"
    for seat in (3, -1, 99):
        with pytest.raises(IllegalMove) as err:
            GAME.decide(state, seat, {"type": "take_card", "card": "B13"}, random.Random(0))
        assert err.value.code == "not_your_turn"


def test_an_absent_choice_may_be_sent_as_null():
    state = table(3, market=["B13", "G02", "R16"])
    events = GAME.decide(state, 0, {"type": "take_card", "card": "B13", "keep": None, "target_cell": None}, random.Random(0))
    assert events[0]["placement"] == "face_up"


# --- Legal moves ----------------------------------------------------------------------------


def test_legal_moves_list_every_card_with_every_choice_and_nothing_else():
    # cell 2 empty (G02 face up), cell 7 face up (B13: keep existing/new), cell 9 a pair (R16:
    # any empty cell), cell 5 lone face down (Y09 covers it)
    grid = "[. . . | . [G07] . | B14 . B15/B16]"
    state = table(3, market=["G02", "B13", "R16", "Y09"], areas={0: grid})
    empty = [1, 2, 3, 4, 6, 8]
    assert GAME.legal_moves(state, 0) == [
        {"type": "take_card", "card": "G02"},
        {"type": "take_card", "card": "B13", "keep": "existing"},
        {"type": "take_card", "card": "B13", "keep": "new"},
        *({"type": "take_card", "card": "R16", "target_cell": n} for n in empty),
        {"type": "take_card", "card": "Y09"},
    ]
    for move in GAME.legal_moves(state, 0):
        GAME.decide(state, 0, move, random.Random(0))
    # and nothing outside the list is accepted
    accepted = []
    for card in state["market"]:
        for extra in [{}, *({"keep": k} for k in ("existing", "new")), *({"target_cell": n} for n in range(1, 10))]:
            try:
                GAME.decide(state, 0, {"type": "take_card", "card": card, **extra}, random.Random(0))
                accepted.append({"type": "take_card", "card": card, **extra})
            except IllegalMove:
                pass
    assert sorted(map(str, accepted)) == sorted(map(str, GAME.legal_moves(state, 0)))


def test_only_the_seat_to_act_has_legal_moves():
    state = table(3, market=["G02", "B13", "R16"], first=1)
    assert GAME.legal_moves(state, 0) == [] and GAME.legal_moves(state, 2) == []
    assert GAME.legal_moves(state, 1)
    assert GAME.status(state)["to_act"] == [1]


def test_full_match_log_refolds_to_the_same_state():
    log, final = [], None
    for step in playout(GAME, 4, "refold"):
        log += step.events
        final = step.after
    assert fold(initial({}, 4), log) == final
