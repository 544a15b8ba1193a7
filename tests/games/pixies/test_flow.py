"""Turn order, market, round end and round transition: spec 4.2, 4.4, 4.5; scenarios T08-T15."""

from __future__ import annotations

import random

import pytest

from service.games.interface import IllegalMove
from service.games.pixies import GAME
from service.games.pixies.data import CARD_IDS
from service.games.pixies.rules import score_area
from service.games.playout import playout

from .table import area, fold, started, table, take, types

# A round-1 deck order under which the greedy play below keeps every 5-player area
# unfilled for all 14 turns (found by a search over shuffles; T14).
EXHAUSTING_ORDER = [
    "Y12", "Y13", "G01", "G03", "Y07", "R14", "R15", "Y05", "G10", "G04", "R07", "B02", "R05", "B15",
    "B03", "Y16", "Y15", "Y01", "R01", "B13", "G07", "G14", "R10", "G05", "G06", "R12", "R16", "Y11",
    "B10", "B06", "G12", "R06", "J02", "R11", "J04", "R13", "J06", "R04", "G13", "R03", "R02", "B09",
    "B05", "Y08", "Y09", "B12", "G02", "G11", "B14", "R09", "B01", "Y03", "J05", "Y10", "J03", "G09",
    "B16", "Y02", "G15", "G08", "B08", "B11", "Y04", "B07", "G16", "Y06", "B04", "Y14", "R08", "J01",
]


def seat_to_act(state):
    return GAME.status(state)["to_act"][0]


def pick_seats_by_turn(players: int, first: int, turns: int) -> dict[int, list[int]]:
    """Play round 1 by first legal moves and record who picked in each turn."""
    state = started(players, {"first_player": first})
    seen: dict[int, list[int]] = {}
    while state["round"] == 1 and state["turn"] <= turns:
        seat = seat_to_act(state)
        seen.setdefault(state["turn"], []).append(seat)
        move = GAME.legal_moves(state, seat)[0]
        state = fold(state, GAME.decide(state, seat, move, random.Random(0)))
    return {t: seen[t] for t in range(1, turns + 1)}


def test_t08_three_player_rotation_moves_the_first_player_counter_clockwise():
    """T08: turn 1 P1 P2 P3; turn 2 P3 P1 P2; turn 3 P2 P3 P1; turn 4 P1 P2 P3."""
    assert pick_seats_by_turn(3, 0, 4) == {1: [0, 1, 2], 2: [2, 0, 1], 3: [1, 2, 0], 4: [0, 1, 2]}


def test_t09_two_players_alternate_and_the_last_picker_starts_the_next_turn():
    """T09: A B A B; B A B A; A B A B."""
    assert pick_seats_by_turn(2, 0, 3) == {1: [0, 1, 0, 1], 2: [1, 0, 1, 0], 3: [0, 1, 0, 1]}


@pytest.mark.parametrize("players,size", [(2, 4), (3, 3), (4, 4), (5, 5)])
def test_t10_market_size_by_player_count(players, size):
    """T10: a new turn reveals 4 / 3 / 4 / 5 cards and the deck drops by as many."""
    state = started(players, {"first_player": 0})
    assert len(state["market"]) == size and len(state["deck"]) == 70 - size
    while state["turn"] == 1:
        seat = seat_to_act(state)
        state = fold(state, GAME.decide(state, seat, GAME.legal_moves(state, seat)[0], random.Random(1)))
    assert len(state["market"]) == size and len(state["deck"]) == 70 - 2 * size
    assert GAME.view(state, None)["deck_count"] == 70 - 2 * size


def test_t11_four_players_trigger_mid_turn_and_the_turn_is_finished():
    """T11: P3 fills its area on the turn's 2nd pick; P4 and P1 still pick; then all four are scored
    and P1, the last picker, starts round 2."""
    p3 = "[. J01 Y05 | Y06/Y07 B08/B09 R11 | G13 R15 B16/B15]"
    state = table(4, market=["R01", "G02", "B05", "Y14"], first=1, areas={2: p3})
    _, state = take(state, 1, "G02")
    events, state = take(state, 2, "R01")
    assert types(events) == ["card_taken", "area_filled"]
    assert state["areas"][2] == area("[R01 J01 Y05 | Y06/Y07 B08/B09 R11 | G13 R15 B16/B15]")
    assert state["last_turn"] and GAME.view(state, 3)["last_turn"]
    events, state = take(state, 3, "B05")
    assert types(events) == ["card_taken"] and seat_to_act(state) == 0
    events, state = take(state, 0, "Y14")
    assert types(events) == ["card_taken", "round_scored", "round_started", "market_revealed"]
    assert len(events[1]["scores"]) == 4
    assert events[1]["scores"][2] == score_area(area("[R01 J01 Y05 | Y06/Y07 B08/B09 R11 | G13 R15 B16/B15]"), 1)
    assert events[2] == {"type": "round_started", "round": 2, "first_player": 0}
    assert events[3]["first_player"] == 0 and seat_to_act(state) == 0


def test_t12_two_players_trigger_on_pick_one_ends_after_pick_two():
    """T12: A fills on pick 1, B makes pick 2, the round ends with 2 market cards untaken;
    round 2 reshuffles all 70 cards and B starts."""
    a = "[B01 G02 Y04 | R05 G07 B11 | G14 R15 .]"
    b = "[R01 Y02 B03 | Y06 Y08 R10 | R13 B14 .]"
    state = table(2, market=["Y16", "G12", "R03", "B05"], first=0, areas={0: a, 1: b})
    events, state = take(state, 0, "Y16")
    assert types(events) == ["card_taken", "area_filled"] and seat_to_act(state) == 1
    events, after = take(state, 1, "G12", keep="new")
    assert types(events) == ["card_taken", "round_scored", "round_started", "market_revealed"]
    assert events[2] == {"type": "round_started", "round": 2, "first_player": 1}
    reshuffled = fold(state, events[:3])
    assert reshuffled["deck"] == CARD_IDS and reshuffled["market"] == []
    assert {"R03", "B05"} <= set(reshuffled["deck"])
    assert len(after["market"]) == 4 and len(after["deck"]) == 66
    assert seat_to_act(after) == 1 and after["pick_order"] == [1, 0, 1, 0]


def test_two_players_trigger_on_pick_two_ends_the_round_at_once():
    """Spec 4.4: a trigger on pick 2 ends the round; picks 3 and 4 are not made."""
    b = "[R01 Y02 B03 | Y06 Y08 R10 | R13 B14 .]"
    state = table(2, market=["G12", "Y16", "R03"], first=0, picks_made=1, areas={1: b})
    events, after = take(state, 1, "Y16")
    assert types(events) == ["card_taken", "area_filled", "round_scored", "round_started", "market_revealed"]
    assert after["round"] == 2 and events[3]["first_player"] == 1


def test_two_players_trigger_on_pick_three_lets_the_other_make_pick_four():
    a = "[B01 G02 Y04 | R05 G07 B11 | G14 R15 .]"
    state = table(2, market=["Y16", "G12"], first=0, picks_made=2, areas={0: a})
    events, state = take(state, 0, "Y16")
    assert types(events) == ["card_taken", "area_filled"] and seat_to_act(state) == 1
    events, state = take(state, 1, "G12")
    assert types(events)[:3] == ["card_taken", "round_scored", "round_started"]
    assert events[2]["first_player"] == 1


def test_two_players_trigger_on_pick_four_ends_the_round():
    b = "[R01 Y02 B03 | Y06 Y08 R10 | R13 B14 .]"
    state = table(2, market=["Y16"], first=0, picks_made=3, areas={1: b})
    events, _ = take(state, 1, "Y16")
    assert types(events) == ["card_taken", "area_filled", "round_scored", "round_started", "market_revealed"]


def test_five_players_trigger_by_the_first_picker_lets_the_four_others_pick():
    full_but_9 = "[B01 G02 Y04 | R05 G07 B11 | G14 R15 .]"
    state = table(5, market=["Y16", "G12", "R03", "B05", "J03"], first=3, areas={3: full_but_9})
    events, state = take(state, 3, "Y16")
    assert types(events) == ["card_taken", "area_filled"]
    for seat, card in [(4, "G12"), (0, "R03"), (1, "B05")]:
        events, state = take(state, seat, card)
        assert types(events) == ["card_taken"]
    events, state = take(state, 2, "J03")
    assert types(events)[:3] == ["card_taken", "round_scored", "round_started"]
    assert events[2]["first_player"] == 2


def test_t13_filling_the_last_cell_with_a_face_down_card():
    """T13: R07's cell 5 is a pair, so it can only go face down into cell 9, which fills the area."""
    p1 = "[B01 G02 Y04 | R05 G07/Y09 B11 | G14 R15 .]"
    state = table(3, market=["R07", "B13", "Y01"], first=0, areas={0: p1})
    r07 = [m for m in GAME.legal_moves(state, 0) if m["card"] == "R07"]
    assert r07 == [{"type": "take_card", "card": "R07", "target_cell": 9}]
    events, after = take(state, 0, "R07", target_cell=9)
    assert types(events) == ["card_taken", "area_filled"] and after["last_turn"]
    assert after["areas"][0][8] == {"up": None, "down": "R07"}
    assert score_area(after["areas"][0], 1) == {
        "validated": 5, "spirals": 17, "crosses": 0, "zone": 2, "multiplier": 2, "total": 26,
    }


def test_t14_five_player_deck_exhaustion_ends_the_round_after_turn_14():
    """T14: no area is full after 14 turns, the deck is empty: the round is scored and round 2
    starts from 70 cards with the player who took the 70th card."""
    state = started(5, {"first_player": 0, "deck_orders": [EXHAUSTING_ORDER]})
    picks = 0
    while True:
        seat = seat_to_act(state)
        move = min(GAME.legal_moves(state, seat), key=lambda m: (_occupied_after(state, seat, m), str(m)))
        events = GAME.decide(state, seat, move, random.Random(0))
        picks += 1
        assert "area_filled" not in types(events)
        if "round_scored" in types(events):
            break
        state = fold(state, events)
    assert picks == 70 and state["turn"] == 14
    end = fold(state, events[:2])
    assert end["deck"] == [] and end["market"] == []
    assert not any(all(c["up"] or c["down"] for c in grid) for grid in end["areas"])
    assert [sum((c["up"] is not None) + (c["down"] is not None) for c in grid) for grid in end["areas"]] == [14] * 5
    assert len(events[1]["scores"]) == 5
    assert events[2] == {"type": "round_started", "round": 2, "first_player": seat}
    assert len(fold(state, events[:3])["deck"]) == 70


def _occupied_after(state, seat, move):
    taken = GAME.decide(state, seat, move, random.Random(0))[0]
    grid = fold(state, [taken])["areas"][seat]
    return sum(1 for c in grid if c["up"] or c["down"])


@pytest.mark.parametrize("players", [2, 3, 4])
def test_t14_with_two_to_four_players_every_round_ends_by_a_full_area(players):
    """T14 (second half): with 2-4 players the deck never runs short before an area is full."""
    for k in range(3):
        filled = False
        for step in _playout(players, f"full-{players}-{k}"):
            kinds = types(step)
            filled = filled or "area_filled" in kinds
            if "round_scored" in kinds:
                assert filled
                filled = False


def _playout(players, seed):
    for step in playout(GAME, players, seed):
        yield step.events


def test_t15_round_transition_and_game_end():
    """T15: after rounds 1 and 2 all 70 cards are back, areas and market are empty, the round
    counter and the zone multiplier go up; after round 3 the game is over and refuses commands.
    The spec names the refusal after the end WRONG_PHASE."""
    multipliers = []
    final = None
    for step in playout(GAME, 3, "t15"):
        kinds = types(step.events)
        if "round_scored" in kinds:
            at = kinds.index("round_scored")
            scored = step.events[at]
            multipliers.append(scored["scores"][0]["multiplier"])
            if "round_started" in kinds:
                between = fold(step.before, step.events[: at + 2])
                assert between["deck"] == CARD_IDS and between["market"] == []
                assert between["areas"] == [area("[. . . | . . . | . . .]")] * 3
                assert between["round"] == scored["round"] + 1
        final = step.after
    assert multipliers == [2, 3, 4]
    per_round = [[score["total"] for score in scores] for scores in final["round_scores"]]
    assert final["totals"] == [sum(column) for column in zip(*per_round, strict=True)]
    assert GAME.status(final)["result"]["scores"] == final["totals"]
    assert GAME.status(final)["phase"] == "game_over" and final["round"] == 3
    seat = 0
    for command in ({"type": "take_card", "card": "B01"}, {"type": "start"}):
        with pytest.raises(IllegalMove) as err:
            GAME.decide(final, seat, command, random.Random(0))
        # the spec's WRONG_PHASE after the end is game_over, as in every game (SPEC 7.2)
        assert err.value.code == "game_over"
    with pytest.raises(IllegalMove) as err:
        GAME.decide(final, None, {"type": "start"}, random.Random(0))
    assert err.value.code == "game_over"
