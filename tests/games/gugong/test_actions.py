"""§5: each location action with both options, the Foreman, travel tokens and the decree
abilities, checked against hand-computed positions."""

from __future__ import annotations

import random

import pytest

from service.games.gugong import GAME, data
from service.games.gugong.board import boats_left as board_boats_left
from service.games.gugong.moves import legal_moves
from tests.games.gugong.table import (
    A,
    B,
    after_exchange,
    at_turn,
    empty_hands,
    events,
    kinds,
    play,
    refused,
    started,
    to_act,
    tokens_of,
    top,
)


def boat(owner, cubes, foreman=False):
    return {"owner": owner, "cubes": cubes, "foreman": foreman}


def put_tokens(s, placement):
    """Clear the map, then place the given tokens: {city: token}."""
    for c in data.CITIES:
        s["map"][c] = None
    s["map"].update(placement)
    return s


# --- Travel (§5.4) ------------------------------------------------------------------------------------


def test_first_travel_places_the_traveller_on_any_token_city():
    s = after_exchange(started(2), A, "TRAVEL")
    s = put_tokens(s, {"c12": tokens_of("T_VP2")[0], "c01": tokens_of("T_VP2")[1]})
    assert {m["city"] for m in legal_moves(play(s, A, {"type": "location_action", "option": "A"}), A)
            if m["type"] == "travel"} == {"c01", "c12"}


def test_travel_b_two_moves_resolved_one_after_the_other():
    s = after_exchange(started(2), A, "TRAVEL")
    vp1, vp2 = tokens_of("T_VP2")[:2]
    s = put_tokens(s, {"c01": vp1, "c03": vp2})
    s["players"][A]["traveller"] = "c02"
    pool = s["players"][A]["pool"]
    s = play(s, A, {"type": "location_action", "option": "B"})
    assert s["players"][A]["pool"] == pool - 2 and top(s) == {"kind": "travel_move", "seat": A, "left": 2, "optional": False}
    s = play(s, A, {"type": "travel", "city": "c01"})
    assert top(s)["kind"] == "token_effect"
    s = play(s, A, {"type": "use_token"})
    assert top(s)["kind"] == "travel_move" and top(s)["left"] == 1 and s["players"][A]["tokens"] == [vp1]
    s = play(s, A, {"type": "travel", "city": "c03"})
    s = play(s, A, {"type": "decline"})
    assert s["players"][A]["vp"] == 2 and s["players"][A]["tokens"] == [vp1, vp2] and top(s)["kind"] == "turn"


def test_travel_b_second_move_skipped_without_refund_d4():
    s = after_exchange(started(2), A, "TRAVEL")
    s = put_tokens(s, {"c01": tokens_of("T_VP2")[0]})
    s["players"][A]["traveller"] = "c02"
    pool = s["players"][A]["pool"]
    s = play(s, A, {"type": "location_action", "option": "B"})
    s = play(s, A, {"type": "travel", "city": "c01"})
    s = play(s, A, {"type": "decline"})
    assert top(s)["kind"] == "turn" and s["players"][A]["pool"] == pool - 2


def test_travel_needs_a_reachable_city_and_paid_moves_cannot_be_declined():
    s = after_exchange(started(2), A, "TRAVEL")
    s = put_tokens(s, {})
    s["players"][A]["traveller"] = "c02"
    assert refused(s, A, {"type": "location_action", "option": "A"}) == "no_reachable_city"
    s = put_tokens(s, {"c01": tokens_of("T_VP2")[0]})
    s = play(s, A, {"type": "location_action", "option": "A"})
    assert refused(s, A, {"type": "decline"}) == "move_required"
    assert refused(s, A, {"type": "end_turn"}) == "prompt_pending"


def test_travel_b_cost_lowered_by_decree_ability():
    s = after_exchange(started(2), A, "TRAVEL")
    s["players"][A]["decrees"] = ["D2B"]
    pool = s["players"][A]["pool"]
    s = play(s, A, {"type": "location_action", "option": "B"})
    assert s["players"][A]["pool"] == pool - 1


# --- travel tokens (§2.3) ---------------------------------------------------------------------------


def take(s, token_type, n=0):
    """A on turn, Traveller at c02, the token waiting on c01; travel there."""
    s = after_exchange(s, A, "TRAVEL")
    token = tokens_of(token_type)[n]
    s = put_tokens(s, {"c01": token})
    s["players"][A]["traveller"] = "c02"
    s = play(s, A, {"type": "location_action", "option": "A"})
    return play(s, A, {"type": "travel", "city": "c01"}), token


@pytest.mark.parametrize("kind,field,delta", [
    ("T_SERVANT1", "pool", 1), ("T_SERVANT2", "pool", 2), ("T_PALACE", "envoy", 1),
    ("T_INTRIGUE", "intrigue", 1), ("T_VP2", "vp", 2),
])
def test_simple_token_benefits(kind, field, delta):
    s = started(2)
    before = s["players"][A][field]
    s, token = take(s, kind)
    assert top(s) == {"kind": "token_effect", "seat": A, "token": token}
    t = play(s, A, {"type": "use_token"})
    assert t["players"][A][field] == before + delta and token in t["players"][A]["tokens"]
    t = play(s, A, {"type": "decline"})
    assert t["players"][A][field] == before and token in t["players"][A]["tokens"]


def test_intrigue_token_does_not_take_the_medal():
    s, _ = take(started(2), "T_INTRIGUE")
    s = play(s, A, {"type": "use_token"})
    assert s["medal"] is None


def test_card_jade_token(cards):
    s = started(2)
    hi, lo = cards.make(7), cards.make(6)
    s["players"][A]["hand"] = [hi, lo]
    s, _ = take(s, "T_CARD_JADE")
    assert [m.get("card") for m in legal_moves(s, A) if m["type"] == "use_token"] == [hi]
    assert refused(s, A, {"type": "use_token", "card": lo}) == "card_not_in_hand"
    s = play(s, A, {"type": "use_token", "card": hi})
    assert s["players"][A]["hand"] == [lo] and hi in s["players"][A]["discard"] and s["players"][A]["jade"] == 1


def test_card_jade_token_without_a_high_card_is_not_asked(cards):
    s = started(2)
    s["players"][A]["hand"] = [cards.make(6)]
    s, token = take(s, "T_CARD_JADE")
    assert top(s)["kind"] == "turn" and token in s["players"][A]["tokens"]


def test_retrieve_token(cards):
    s = started(2)
    back = cards.make(4)
    s["players"][A]["discard"] = [back]
    s, _ = take(s, "T_RETRIEVE")
    s = play(s, A, {"type": "use_token", "card": back})
    assert back in s["players"][A]["hand"] and s["players"][A]["discard"] == []


def test_exchange_token_swaps_with_any_location(cards):
    s = started(2)
    mine = cards.make(2)
    s["players"][A]["discard"] = [mine]
    s, _ = take(s, "T_EXCHANGE")
    palace = s["locations"]["PALACE"]
    s = play(s, A, {"type": "use_token", "card": mine, "location": "PALACE"})
    assert s["locations"]["PALACE"] == mine and s["players"][A]["discard"] == [palace]


def test_ship_token_places_from_supply_and_may_fill_a_boat():
    s = started(2)
    s["canal"]["A"][1] = boat(A, 2)
    s, _ = take(s, "T_SHIP")
    pool, supply = s["players"][A]["pool"], s["players"][A]["supply"]
    s = play(s, A, {"type": "use_token", "boat": "A2"})
    assert s["players"][A]["pool"] == pool and s["players"][A]["supply"] == supply - 1
    assert top(s) == {"kind": "claim", "seat": A, "route": "A", "port": 2}
    s = play(s, A, {"type": "claim", "reward": "VP4"})
    assert s["players"][A]["vp"] == 4 and s["canal"]["A"][1] is None


def test_wall_token_completes_the_wall():
    s = started(2)
    s["wall"] = [{"seat": A, "foreman": False}, {"seat": B, "foreman": False}, {"seat": A, "foreman": False}]
    s["players"][B]["intrigue"] = 2
    s, _ = take(s, "T_WALL")
    s = play(s, A, {"type": "use_token"})
    assert s["players"][A]["vp"] == 3 and top(s) == {"kind": "benefit", "seat": B}


@pytest.mark.parametrize("kind", ["T_WALL", "T_SHIP"])
def test_placing_tokens_need_a_cube_in_the_supply_d32(kind):
    s = started(2)
    s["players"][A]["supply"] = 0
    s, token = take(s, kind)
    assert top(s)["kind"] == "turn" and token in s["players"][A]["tokens"]


def test_buy_jade_token():
    s = started(2)
    s, _ = take(s, "T_BUY_JADE")
    pool = s["players"][A]["pool"]
    s = play(s, A, {"type": "use_token"})
    assert s["players"][A]["pool"] == pool - 3 and s["players"][A]["jade"] == 1


def test_double_token_has_no_prompt():
    s, token = take(started(2), "T_DOUBLE")
    assert top(s)["kind"] == "turn" and token in s["players"][A]["tokens"]


def test_token_exchange_for_jade_and_insufficient_tokens():
    s = after_exchange(started(2), A, "JADE")
    held = tokens_of("T_VP2") + tokens_of("T_PALACE")
    s["players"][A]["tokens"] = held
    assert refused(s, A, {"type": "exchange_tokens", "tokens": held[:5], "reward": "jade"}) == "insufficient_tokens"
    assert refused(s, A, {"type": "exchange_tokens", "tokens": ["tk99"], "reward": "jade"}) == "token_not_held"
    s = play(s, A, {"type": "exchange_tokens", "tokens": held, "reward": "jade"})
    assert s["players"][A]["jade"] == 1 and s["players"][A]["tokens"] == [] and s["travel_discard"] == held


def test_token_exchange_is_open_at_any_prompt_of_that_player():
    s = after_exchange(started(2), B, "WALL")
    s["players"][A]["intrigue"] = 2
    s["players"][A]["tokens"] = tokens_of("T_VP2")[:2]
    s["stack"].append({"kind": "benefit", "seat": A})
    s = play(s, A, {"type": "exchange_tokens", "tokens": tokens_of("T_VP2")[:2], "reward": "servant"})
    assert top(s) == {"kind": "benefit", "seat": A}
    assert refused(s, B, {"type": "exchange_tokens", "tokens": [], "reward": "servant"}) == "prompt_pending"


# --- Great Wall (§5.5) ---------------------------------------------------------------------------


def test_wall_a_and_b_placements():
    s = after_exchange(started(5), A, "WALL")
    s["players"][A]["foreman"] = "pool"
    t = play(s, A, {"type": "location_action", "option": "A", "units": ["foreman"]})
    assert t["wall"] == [{"seat": A, "foreman": True}] and t["players"][A]["foreman"] == "wall"
    assert refused(s, A, {"type": "location_action", "option": "A", "units": ["cube", "cube"]}) == "bad_command"
    t = play(s, A, {"type": "location_action", "option": "B", "units": ["cube", "cube"]})
    assert len(t["wall"]) == 2 and t["players"][A]["pool"] == 3
    assert refused(s, A, {"type": "location_action", "option": "B", "units": ["foreman", "cube"],
                          "pay_foreman": True}) == "foreman_used_twice"
    s["players"][A]["decrees"] = ["D2C"]
    t = play(s, A, {"type": "location_action", "option": "A", "units": ["cube", "cube"]})
    assert len(t["wall"]) == 2 and t["players"][A]["pool"] == 4


def test_wall_benefits_jade_and_die():
    s = after_exchange(started(2), B, "WALL")
    s["players"][A]["intrigue"] = 12
    s["stack"] += [{"kind": "benefit", "seat": A}]
    t = play(s, A, {"type": "intrigue_benefit", "down": 7})
    assert t["players"][A]["jade"] == 1 and t["players"][A]["intrigue"] == 5
    assert refused(s, A, {"type": "intrigue_benefit", "down": 5, "die": 1, "face": 1}) == "illegal_die_face"
    t = play(s, A, {"type": "intrigue_benefit", "down": 5, "die": 1, "face": 9})
    assert t["dice"][1] == 9 and t["players"][A]["intrigue"] == 7


# --- Jade, Intrigue, Palace, Decrees ------------------------------------------------------------------


def test_jade_spot_costs_and_discount():
    s = after_exchange(started(2), A, "JADE")
    assert refused(s, A, {"type": "location_action", "spot": 9}) == "bad_command"
    s["jade_spots"][0] = False
    assert refused(s, A, {"type": "location_action", "spot": 0}) == "jade_spot_empty"
    t = play(s, A, {"type": "location_action", "spot": 5})
    assert t["players"][A]["pool"] == 2
    s["players"][A]["decrees"] = ["D2A"]
    t = play(s, A, {"type": "location_action", "spot": 5})
    assert t["players"][A]["pool"] == 3
    s["jade_spots"] = [False] * 6
    t = play(s, A, {"type": "location_action", "spot": None})
    assert t["players"][A]["pool"] == 2 and t["players"][A]["jade"] == 1   # 5 - 1 (D37)


def test_foreman_pays_one_for_a_payment_of_one_d15():
    s = after_exchange(started(2), A, "INTRIGUE")
    s["players"][A].update(pool=0, foreman="pool")
    s = play(s, A, {"type": "location_action", "option": "B", "pay_foreman": True})
    assert s["players"][A]["intrigue"] == 3 and s["players"][A]["foreman"] == "supply"


def test_foreman_only_cannot_buy_a_decree_and_a_standing_foreman_is_lost():
    s = after_exchange(started(2), A, "DECREE")
    d = s["decrees"][0]
    s["players"][A].update(pool=0, foreman="pool")
    assert refused(s, A, {"type": "location_action", "decree": d, "pay_foreman": True, "place": "foreman"}) == \
        "foreman_used_twice"
    assert refused(s, A, {"type": "location_action", "decree": d, "pay_foreman": True}) == "insufficient_servants"
    s["players"][A].update(pool=data.DECREES[d]["cost"])
    s = play(s, A, {"type": "location_action", "decree": d, "place": "foreman"})
    assert s["players"][A]["foreman"] == "lost" and s["players"][A]["pool"] == 0


def test_decree_not_in_play():
    s = after_exchange(started(2), A, "DECREE")
    assert refused(s, A, {"type": "location_action", "decree": s["boxed_decrees"][0]}) == "decree_not_in_play"


def test_level2_decree_scores_now_and_exchange_discount_applies_same_turn(cards):
    s = after_exchange(started(2), A, "DECREE")
    s["decrees"] = ["D1A", "D1B", "D2D", "D2E", "D3A", "D3B"]
    s["decree_servants"] = {d: [] for d in s["decrees"]}
    s = play(s, A, {"type": "location_action", "decree": "D2D"})
    assert s["players"][A]["vp"] == 2
    s = at_turn(s, A)
    lo, hi = cards.make(2), cards.make(8)
    s["players"][A]["hand"] = [lo]
    s["locations"]["JADE"] = hi
    pool = s["players"][A]["pool"]
    s = play(s, A, {"type": "exchange", "card": lo, "location": "JADE", "payment": "servants"})
    assert s["players"][A]["pool"] == pool - 1


def test_palace_b_needs_two_servants():
    s = after_exchange(started(2), A, "PALACE")
    s["players"][A]["pool"] = 1
    assert refused(s, A, {"type": "location_action", "option": "B"}) == "insufficient_servants"
    s["players"][A]["foreman"] = "pool"
    s = play(s, A, {"type": "location_action", "option": "B", "pay_foreman": True})
    assert s["players"][A]["envoy"] == 2 and s["players"][A]["pool"] == 1


def test_intrigue_a_at_fourteen_still_takes_the_medal_d34():
    s = after_exchange(started(2), A, "INTRIGUE")
    s["players"][A]["intrigue"] = 14
    s = play(s, A, {"type": "location_action", "option": "A"})
    assert s["players"][A]["intrigue"] == 14 and s["medal"] == A


# --- Grand Canal (§5.10) ---------------------------------------------------------------------------


def test_canal_a_must_do_something_d33():
    s = after_exchange(started(2), A, "CANAL")
    assert refused(s, A, {"type": "location_action", "option": "A"}) == "empty_action"
    assert refused(s, A, {"type": "location_action", "option": "A", "move": "A1"}) == "boat_not_on_canal"


def test_canal_a_place_then_move_arriving_full_offers_a_claim():
    s = after_exchange(started(2), A, "CANAL")
    s["canal"]["A"][0] = boat(A, 2)
    s = play(s, A, {"type": "location_action", "option": "A", "place": {"boat": "A1", "unit": "cube"}, "move": "A1"})
    assert s["canal"]["A"][1] == boat(A, 3) and top(s) == {"kind": "claim", "seat": A, "route": "A", "port": 2}


def test_canal_a_claim_before_the_move():
    s = after_exchange(started(2), A, "CANAL")
    s["canal"]["A"][2] = boat(A, 2)
    s["canal"]["A"][0] = boat(A, 1)
    s = play(s, A, {"type": "location_action", "option": "A", "place": {"boat": "A3", "unit": "cube"}, "move": "A1"})
    assert top(s)["kind"] == "claim" and s["canal"]["A"][0] == boat(A, 1)
    s = play(s, A, {"type": "decline"})
    assert s["canal"]["A"][0] is None and s["canal"]["A"][1] == boat(A, 1)


def test_canal_b_two_placements_and_the_foreman_fills_a_new_boat():
    s = after_exchange(started(2), A, "CANAL")
    s["players"][A]["foreman"] = "pool"
    s["canal"]["A"][0] = boat(B, 1)
    s = play(s, A, {"type": "location_action", "option": "B",
                    "placements": [{"boat": "A2", "unit": "foreman"}, {"boat": "A2", "unit": "cube"}]})
    assert s["canal"]["A"][1] == boat(A, 1, True) and s["players"][A]["pool"] == 4
    assert top(s) == {"kind": "claim", "seat": A, "route": "A", "port": 2}
    assert {(m["reward"], m["unit"]) for m in legal_moves(s, A) if m["type"] == "claim"} == {("VP4", "cube"), ("VP4", "foreman")}
    t = play(s, A, {"type": "claim", "reward": "VP4", "unit": "foreman"})
    assert t["players"][A]["foreman"] == "lost" and t["players"][A]["supply"] == 6 + 1 + 1


def test_canal_b_must_fit_both_units():
    s = after_exchange(started(2), A, "CANAL")
    s["canal"]["A"][1] = boat(A, 2)
    s["canal"]["A"][0] = boat(B, 1)
    s["canal"]["A"][2] = boat(B, 1)
    s["canal"]["A"][3] = boat(B, 1)
    s["canal"]["A"][4] = boat(B, 1)
    assert refused(s, A, {"type": "location_action", "option": "B",
                          "placements": [{"boat": "A2", "unit": "cube"}, {"boat": "A2", "unit": "cube"}]}) == "boat_full"


def test_no_boat_available_and_no_free_port():
    s = after_exchange(started(2), A, "CANAL")
    s["canal"]["A"] = [boat(A, 1), boat(A, 1), boat(A, 3), None, None]
    assert refused(s, A, {"type": "location_action", "option": "A", "place": {"boat": "A4", "unit": "cube"}}) == \
        "no_boat_available"
    # spec 5.10: no free port on the route -> no new boat there (NO_FREE_PORT), whichever port is named
    s["canal"]["A"] = [boat(B, 1), boat(B, 1), boat(B, 1), boat(B, 1), boat(B, 1)]
    for port in ("A1", "A5"):
        assert refused(s, A, {"type": "location_action", "option": "A", "place": {"boat": port, "unit": "cube"}}) \
            == "no_free_port"
    # with a free port left, naming another player's boat is the wrong port
    s["canal"]["A"] = [boat(B, 1), boat(B, 1), boat(B, 1), boat(B, 1), None]
    assert refused(s, A, {"type": "location_action", "option": "A", "place": {"boat": "A1", "unit": "cube"}}) == \
        "illegal_port"


def test_claim_vp_decree_and_card_reward_with_empty_draw_pile():
    s = after_exchange(started(2), A, "CANAL")
    s["players"][A]["decrees"] = ["D2E"]
    s["canal"]["A"][2] = boat(A, 3)
    s["stack"].append({"kind": "claim", "seat": A, "route": "A", "port": 3})
    t = play(s, A, {"type": "claim", "reward": "CARD"})
    assert t["players"][A]["vp"] == 2
    s["draw_pile"] = []
    assert refused(s, A, {"type": "claim", "reward": "CARD"}) == "draw_pile_empty"


def test_four_players_use_the_second_route():
    s = after_exchange(started(4), A, "CANAL")
    s = play(s, A, {"type": "location_action", "option": "A", "place": {"boat": "B1", "unit": "cube"}})
    assert s["canal"]["B"][0] == boat(A, 1)
    s2 = after_exchange(started(2), A, "CANAL")
    assert refused(s2, A, {"type": "location_action", "option": "A", "place": {"boat": "B1", "unit": "cube"}}) == \
        "illegal_port"


# --- the turn ---------------------------------------------------------------------------------------


def test_turn_command_codes(cards):
    s = at_turn(empty_hands(started(2)), A)
    c1, c2 = cards.make(5, "NONE"), cards.make(3)
    s["players"][A]["hand"] = [c1]
    s["locations"]["JADE"] = c2
    assert refused(s, A, {"type": "end_turn"}) == "exchange_required"
    assert refused(s, A, {"type": "location_action", "spot": 0}) == "exchange_required"
    assert refused(s, A, {"type": "exchange", "card": "G99", "location": "JADE", "payment": "none"}) == "card_not_in_hand"
    assert refused(s, A, {"type": "exchange", "card": c1, "location": "MOON", "payment": "none"}) == "bad_command"
    assert refused(s, A, {"type": "exchange", "card": c1, "location": "JADE", "payment": "forgo"}) == "payment_not_needed"
    assert refused(s, A, {"type": "claim", "reward": "VP4"}) == "no_prompt"
    assert refused(s, A, {"type": "fly"}) == "unknown_command"
    assert refused(s, B, {"type": "end_turn"}) == "not_your_turn"
    s = play(s, A, {"type": "exchange", "card": c1, "location": "JADE", "payment": "none"})
    assert refused(s, A, {"type": "exchange", "card": c1, "location": "JADE", "payment": "none"}) == "already_exchanged"
    assert refused(s, A, {"type": "card_action"}) == "no_card_action"
    s = play(s, A, {"type": "location_action", "spot": 0})
    assert refused(s, A, {"type": "location_action", "spot": 1}) == "action_already_taken"


def test_card_payment_needs_another_hand_card(cards):
    s = at_turn(empty_hands(started(2)), A)
    c1 = cards.make(2)
    s["players"][A]["hand"] = [c1]
    s["locations"]["JADE"] = cards.make(8)
    assert refused(s, A, {"type": "exchange", "card": c1, "location": "JADE", "payment": "card", "discard": c1}) == "same_card"


def test_card_action_twice_refused_and_servant_cards(cards):
    s = at_turn(empty_hands(started(2)), A)
    c = cards.make(6, "SERVANT2")
    s["players"][A]["hand"] = [c]
    s["locations"]["JADE"] = cards.make(2)
    s = play(s, A, {"type": "exchange", "card": c, "location": "JADE", "payment": "none"})
    pool = s["players"][A]["pool"]
    s, evs = events(s, A, {"type": "card_action"})
    assert s["players"][A]["pool"] == pool + 2 and kinds(evs)[0] == "card_action_taken"
    assert refused(s, A, {"type": "card_action"}) == "action_already_taken"
    assert to_act(s) == [A]


def test_wall_completion_interrupts_travel_b_and_the_second_move_resumes():
    s = after_exchange(started(2), A, "TRAVEL")
    wall_token, vp = tokens_of("T_WALL")[0], tokens_of("T_VP2")[0]
    s = put_tokens(s, {"c01": wall_token, "c03": vp})
    s["players"][A]["traveller"] = "c02"
    s["players"][B]["intrigue"] = 3
    s["wall"] = [{"seat": A, "foreman": False}, {"seat": A, "foreman": False}, {"seat": B, "foreman": False}]
    s = play(s, A, {"type": "location_action", "option": "B"})
    s = play(s, A, {"type": "travel", "city": "c01"})
    s = play(s, A, {"type": "use_token"})           # the 4th servant completes the 2-player Wall
    assert s["players"][A]["vp"] == 3 and to_act(s) == [B] and top(s)["kind"] == "benefit"
    s = play(s, B, {"type": "intrigue_benefit", "down": 3})
    assert top(s) == {"kind": "travel_move", "seat": A, "left": 1, "optional": False}
    s = play(s, A, {"type": "travel", "city": "c03"})
    s = play(s, A, {"type": "use_token"})
    assert s["players"][A]["vp"] == 5 and top(s)["kind"] == "turn"


def test_card_action_completes_the_wall_then_the_location_action_follows(cards):
    s = at_turn(started(2), A)
    wall_card = cards.make(8, "WALL")
    s["players"][A]["hand"] = [wall_card]
    s["locations"]["PALACE"] = cards.make(3)
    s["wall"] = [{"seat": A, "foreman": False}] * 3
    s = play(s, A, {"type": "exchange", "card": wall_card, "location": "PALACE", "payment": "none"})
    s = play(s, A, {"type": "card_action", "option": "A", "units": ["cube"]})
    assert s["players"][A]["vp"] == 3 and s["players"][A]["envoy"] == 1 and s["wall"] == []
    assert top(s)["kind"] == "turn"       # A sits at intrigue 0: no benefit prompt (D28)
    s = play(s, A, {"type": "location_action", "option": "A"})
    assert s["players"][A]["envoy"] == 2


@pytest.mark.parametrize("ref", ["A²", "A0", "A6", "B1", "a1", "A01", "", "A", 3, None])
def test_boat_positions_are_validated(ref):
    s = after_exchange(started(2), A, "CANAL")
    assert refused(s, A, {"type": "location_action", "option": "A", "move": ref}) in ("illegal_port", "empty_action")


def test_no_free_port_is_reached_through_play():
    """Played from the start by the engine's own legal moves (a player launching new boats
    whenever a move does, else giving a card to the Canal), until route A's five ports are
    taken while the player to act holds the Canal action and still has a boat: a new boat is
    refused with no_free_port (spec 5.10), and no legal move offers one."""
    from service.games.chance import commit_rng

    def launches(m, s):
        places = ([m["place"]] if isinstance(m.get("place"), dict) else []) + list(m.get("placements") or [])
        return any(s["canal"][p["boat"][0]][int(p["boat"][1:]) - 1] is None for p in places)

    rng = random.Random(0)
    s = GAME.initial({}, 2)
    for e in GAME.decide(s, None, {"type": "start"}, commit_rng("port", 1)):
        s = GAME.evolve(s, e)
    for seq in range(2, 200):
        seat = GAME.status(s)["to_act"][0]
        moves = GAME.legal_moves(s, seat)
        if all(b is not None for b in s["canal"]["A"]) and s["turn"]["location"] == "CANAL" \
                and not s["turn"]["location_done"] and s["turn"]["seat"] == seat:
            break
        launch = [m for m in moves if m["type"] in ("location_action", "card_action") and launches(m, s)]
        to_canal = [m for m in moves if m["type"] == "exchange" and m.get("location") == "CANAL"]
        for e in GAME.decide(s, seat, rng.choice(launch or to_canal or moves), commit_rng("port", seq)):
            s = GAME.evolve(s, e)
    else:
        pytest.fail("the route never filled up")
    other = next(f"A{i + 1}" for i, b in enumerate(s["canal"]["A"]) if b["owner"] != seat)
    assert board_boats_left(s, seat) > 0
    cmd = {"type": "location_action", "option": "A", "place": {"boat": other, "unit": "cube"}}
    assert refused(s, seat, cmd) == "no_free_port"
    assert not any(m["type"] == "location_action" and launches(m, s) for m in GAME.legal_moves(s, seat))
