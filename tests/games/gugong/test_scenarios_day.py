"""Spec §9 scenarios S01-S19: the exchange, the turn, the Palace, Intrigue, the Wall, Travel,
tokens and decrees. Each test names its scenario."""

from __future__ import annotations

from service.games.gugong import board, data
from tests.games.gugong.table import (
    A,
    B,
    C,
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


def test_s01_free_exchange_higher_value(cards):
    s = at_turn(empty_hands(started(2)), A)
    six, four = cards.make(6, "TRAVEL"), cards.make(4, "NONE")
    s["players"][A]["hand"] = [six]
    s["players"][B]["hand"] = [cards.make(3)]
    s["locations"]["PALACE"] = four
    pool = s["players"][A]["pool"]
    s = play(s, A, {"type": "exchange", "card": six, "location": "PALACE", "payment": "none"})
    s = play(s, A, {"type": "location_action", "option": "A"})
    # taking the location action gave up the card action
    assert refused(s, A, {"type": "card_action", "option": "A"}) == "card_action_after_location"
    s = play(s, A, {"type": "end_turn"})
    a = s["players"][A]
    assert s["locations"]["PALACE"] == six
    assert a["hand"] == [] and a["discard"] == [four]
    assert a["envoy"] == 1 and a["pool"] == pool
    assert to_act(s) == [B]


def test_s02_equal_value_needs_payment(cards):
    s = at_turn(empty_hands(started(2)), A)
    five, eight, jade5 = cards.make(5), cards.make(8), cards.make(5)
    s["players"][A].update(hand=[five, eight], pool=4, supply=6)
    s["locations"]["JADE"] = jade5
    assert refused(s, A, {"type": "exchange", "card": five, "location": "JADE", "payment": "none"}) == "payment_required"
    s = play(s, A, {"type": "exchange", "card": five, "location": "JADE", "payment": "servants"})
    assert (s["players"][A]["pool"], s["players"][A]["supply"]) == (2, 8)
    assert {"type": "location_action", "spot": 0, "pay_foreman": False} in rules_moves(s, A)


def rules_moves(s, seat):
    from service.games.gugong.moves import legal_moves
    return legal_moves(s, seat)


def test_s03_pay_with_another_card(cards):
    s = at_turn(empty_hands(started(2)), A)
    three, eight, six = cards.make(3), cards.make(8), cards.make(6)
    s["players"][A]["hand"] = [three, eight]
    s["players"][B]["hand"] = [cards.make(2), cards.make(2)]
    s["locations"]["INTRIGUE"] = six
    s = play(s, A, {"type": "exchange", "card": three, "location": "INTRIGUE", "payment": "card", "discard": eight})
    a = s["players"][A]
    assert a["hand"] == [] and sorted(a["discard"]) == sorted([eight, six])
    assert s["locations"]["INTRIGUE"] == three
    s = play(s, A, {"type": "location_action", "option": "A"})
    s = play(s, A, {"type": "end_turn"})
    assert to_act(s) == [B]
    s = play(s, B, {"type": "exchange", "card": s["players"][B]["hand"][0], "location": "JADE", "payment": "forgo"})
    s = play(s, B, {"type": "end_turn"})
    # A has no cards and is skipped: B is on turn again
    assert to_act(s) == [B] and s["turn"]["seat"] == B


def test_s04_one_takes_nine_for_free(cards):
    s = at_turn(empty_hands(started(2)), A)
    one, nine = cards.make(1), cards.make(9)
    s["players"][A]["hand"] = [one]
    s["locations"]["TRAVEL"] = nine
    pool = s["players"][A]["pool"]
    s = play(s, A, {"type": "exchange", "card": one, "location": "TRAVEL", "payment": "none"})
    assert s["players"][A]["pool"] == pool and not s["turn"]["forfeited"]
    s = play(s, A, {"type": "location_action", "option": "A"})
    assert top(s)["kind"] == "travel_move"


def test_s05_one_does_not_take_eight_for_free(cards):
    s = at_turn(empty_hands(started(2)), A)
    one, eight = cards.make(1, "SERVANT1"), cards.make(8)
    s["players"][A].update(hand=[one], pool=0)
    s["players"][B]["hand"] = [cards.make(2)]
    s["locations"]["WALL"] = eight
    cmd = {"type": "exchange", "card": one, "location": "WALL"}
    assert refused(s, A, {**cmd, "payment": "none"}) == "payment_required"
    assert refused(s, A, {**cmd, "payment": "servants"}) == "insufficient_servants"
    s = play(s, A, {**cmd, "payment": "forgo"})
    assert s["locations"]["WALL"] == one and s["players"][A]["discard"] == [eight]
    assert refused(s, A, {"type": "card_action"}) == "actions_forfeited"
    assert refused(s, A, {"type": "location_action", "option": "A", "units": ["cube"]}) == "actions_forfeited"
    s = play(s, A, {"type": "end_turn"})
    assert to_act(s) == [B]


def test_s06_nine_onto_nine_is_not_free(cards):
    s = at_turn(empty_hands(started(2)), A)
    nine, two, nine2 = cards.make(9), cards.make(2), cards.make(9)
    s["players"][A].update(hand=[nine, two], pool=3)
    s["locations"]["INTRIGUE"] = nine2
    assert refused(s, A, {"type": "exchange", "card": nine, "location": "INTRIGUE", "payment": "none"}) == "payment_required"
    s = play(s, A, {"type": "exchange", "card": nine, "location": "INTRIGUE", "payment": "servants"})
    assert s["players"][A]["pool"] == 1
    s = play(s, A, {"type": "location_action", "option": "A"})
    assert s["players"][A]["intrigue"] == 1


def test_s07_same_card_and_location_action_twice(cards):
    s = at_turn(empty_hands(started(2)), A)
    seven = cards.make(7, "PALACE")
    s["players"][A].update(hand=[seven], envoy=6)
    s["locations"]["PALACE"] = cards.make(5)
    s = play(s, A, {"type": "exchange", "card": seven, "location": "PALACE", "payment": "none"})
    s = play(s, A, {"type": "card_action", "option": "A"})
    assert s["players"][A]["envoy"] == 7
    s = play(s, A, {"type": "location_action", "option": "A"})
    a = s["players"][A]
    assert a["envoy"] == 8 and a["arrival_vp"] == 7 and s["arrivals"] == [A]
    assert a["vp"] == 0  # the slot is scored at the end


def test_s08_card_action_must_precede_location_action(cards):
    s = at_turn(empty_hands(started(2)), A)
    card = cards.make(6, "SERVANT1")
    s["players"][A]["hand"] = [card]
    s["locations"]["PALACE"] = cards.make(2)
    s = play(s, A, {"type": "exchange", "card": card, "location": "PALACE", "payment": "none"})
    s = play(s, A, {"type": "location_action", "option": "A"})
    assert refused(s, A, {"type": "card_action"}) == "card_action_after_location"


def test_s09_palace_overshoot():
    s = after_exchange(started(2), A, "PALACE")
    s["players"][A].update(envoy=7, pool=3, intrigue=2)
    supply = s["players"][A]["supply"]
    s = play(s, A, {"type": "location_action", "option": "B"})
    a = s["players"][A]
    assert a["pool"] == 1 and a["supply"] == supply + 2
    assert a["envoy"] == 8 and a["arrival_vp"] == 7 and a["vp"] == 1 and a["intrigue"] == 3


def test_s10_medal_goes_to_first_intrigue_a_user_only(cards):
    s = empty_hands(started(2))
    s["day"] = 2
    lo, hi = cards.make(5), cards.make(7)
    s["locations"]["INTRIGUE"] = cards.make(2)
    s["players"][B]["hand"] = [lo]
    s["players"][A]["hand"] = [hi]
    s = at_turn(s, B)
    s = play(s, B, {"type": "exchange", "card": lo, "location": "INTRIGUE", "payment": "none"})
    s = play(s, B, {"type": "location_action", "option": "A"})
    assert s["medal"] == B and s["players"][B]["intrigue"] == 1
    s = play(s, B, {"type": "end_turn"})
    s = play(s, A, {"type": "exchange", "card": hi, "location": "INTRIGUE", "payment": "none"})
    s, evs = events(s, A, {"type": "location_action", "option": "A"})
    assert "medal_taken" not in kinds(evs) and s["medal"] == B and s["players"][A]["intrigue"] == 1
    s = play(s, A, {"type": "end_turn"})    # nobody holds cards: Evening, then the Morning of day 3
    assert s["day"] == 3 and s["phase"] == "day"
    assert s["start_player"] == B and s["medal"] is None and to_act(s) == [B]


def test_s11_intrigue_cap():
    s = after_exchange(started(2), A, "INTRIGUE")
    s["players"][A].update(intrigue=13, pool=2)
    s = play(s, A, {"type": "location_action", "option": "B"})
    assert s["players"][A]["pool"] == 1 and s["players"][A]["intrigue"] == 14


def test_s12_stacking_tie_break():
    s = after_exchange(started(2), B, "INTRIGUE")
    s["players"][A].update(intrigue=5)
    s["players"][B].update(intrigue=4)
    s = play(s, B, {"type": "location_action", "option": "A"})
    assert s["players"][A]["intrigue"] == s["players"][B]["intrigue"] == 5
    assert board.intrigue_key(s, B) > board.intrigue_key(s, A)     # B on top
    assert board.best_by_intrigue(s, [A, B]) == B
    from service.games.gugong.view import view
    assert view(s, None)["intrigue_order"][:2] == [B, A]


def test_s13_wall_completion_three_players():
    s = after_exchange(started(3), C, "WALL")
    s["wall"] = [{"seat": A, "foreman": False}, {"seat": B, "foreman": False},
                 {"seat": A, "foreman": False}, {"seat": B, "foreman": False}]
    s["players"][C]["intrigue"], s["players"][A]["intrigue"], s["players"][B]["intrigue"] = 0, 2, 4
    supply_b = s["players"][B]["supply"]
    s = play(s, C, {"type": "location_action", "option": "A", "units": ["cube"]})
    b = s["players"][B]
    assert b["vp"] == 3 and b["envoy"] == 1 and b["supply"] == supply_b + 2
    assert [w["seat"] for w in s["wall"]] == [A, A, C]
    assert to_act(s) == [A]
    from service.games.gugong.moves import legal_moves
    assert {m.get("down") for m in legal_moves(s, A) if m["type"] == "intrigue_benefit"} == {1}
    assert refused(s, C, {"type": "end_turn"}) == "prompt_pending"
    s = play(s, A, {"type": "intrigue_benefit", "down": 1})
    assert to_act(s) == [B]
    assert {m.get("down") for m in legal_moves(s, B) if m["type"] == "intrigue_benefit"} == {1, 3}
    s = play(s, B, {"type": "decline"})
    assert to_act(s) == [C] and top(s)["kind"] == "turn"
    s = play(s, C, {"type": "end_turn"})
    assert s["turn"]["seat"] != C


def test_s14_wall_with_foreman():
    s = after_exchange(started(2), A, "WALL")
    s["wall"] = [{"seat": A, "foreman": False}, {"seat": B, "foreman": False}]
    s["players"][A].update(pool=2, foreman="pool")
    supply = s["players"][A]["supply"]
    s = play(s, A, {"type": "location_action", "option": "B", "units": ["cube", "foreman"]})
    a = s["players"][A]
    assert a["vp"] == 3 and a["envoy"] == 1
    assert a["pool"] == 0 and a["supply"] == supply + 1 + 2 and a["foreman"] == "supply"
    assert [w["seat"] for w in s["wall"]] == [B]


def test_s15_intrigue_benefit_cost():
    s = after_exchange(started(2), B, "WALL")
    s["players"][A].update(intrigue=4)
    s["stack"].append({"kind": "benefit", "seat": A})
    pool = s["players"][A]["pool"]
    assert refused(s, A, {"type": "intrigue_benefit", "down": 5, "die": 0, "face": 1}) == "insufficient_intrigue"
    s = play(s, A, {"type": "intrigue_benefit", "down": 3})
    assert s["players"][A]["intrigue"] == 1 and s["players"][A]["pool"] == pool + 2


def _full_map(s, avoid=()):
    """Every city holds a token (which ones does not matter here), none of those in `avoid`."""
    ids = [t for t in sorted(data.TOKENS) if t not in avoid]
    for i, c in enumerate(data.CITIES):
        s["map"][c] = ids[i]
    return s


def test_s16_travel_cannot_pass_through_a_token_city():
    s = after_exchange(_full_map(started(2)), A, "TRAVEL")
    s["map"]["c02"] = None
    s["map"]["c04"] = None
    s["players"][A]["traveller"] = "c02"
    assert board.destinations(s, A) == ["c01", "c03", "c05", "c08"]
    s = play(s, A, {"type": "location_action", "option": "A"})
    assert refused(s, A, {"type": "travel", "city": "c06"}) == "illegal_destination"
    token = s["map"]["c08"]
    s = play(s, A, {"type": "travel", "city": "c08"})
    if top(s)["kind"] == "token_effect":
        s = play(s, A, {"type": "decline"})
    assert token in s["players"][A]["tokens"]
    assert s["map"]["c08"] is None and s["map"]["c02"] is None and s["players"][A]["traveller"] == "c08"


def test_s17_token_limit():
    singles = tokens_of("T_SERVANT1") + tokens_of("T_PALACE")[:2]
    vp2 = tokens_of("T_VP2")[0]
    s = after_exchange(_full_map(started(2), avoid=[*singles, vp2]), A, "TRAVEL")
    s["map"]["c05"] = vp2
    s["players"][A]["tokens"] = singles
    s["players"][A]["traveller"] = None
    s = play(s, A, {"type": "location_action", "option": "A"})
    s = play(s, A, {"type": "travel", "city": "c05"})
    s = play(s, A, {"type": "use_token"})
    assert s["players"][A]["vp"] == 2 and len(s["players"][A]["tokens"]) == 7
    assert top(s)["kind"] == "token_limit" and to_act(s) == [A]
    assert refused(s, A, {"type": "end_turn"}) == "token_limit_pending"
    pool = s["players"][A]["pool"]
    s = play(s, A, {"type": "exchange_tokens", "tokens": singles[:2], "reward": "servant"})
    assert s["players"][A]["pool"] == pool + 1 and len(s["players"][A]["tokens"]) == 5
    assert top(s)["kind"] == "turn" and to_act(s) == [A]


def test_s18_exchange_with_a_double():
    s = after_exchange(started(2), A, "JADE")
    double, one, two = tokens_of("T_DOUBLE")[0], *tokens_of("T_VP2")[:2]
    s["players"][A]["tokens"] = [double, one, two]
    t = play(s, A, {"type": "exchange_tokens", "tokens": [double, one, two], "reward": "vp"})
    assert t["players"][A]["vp"] == 2 and t["players"][A]["tokens"] == []
    assert refused(s, A, {"type": "exchange_tokens", "tokens": [double, one, two], "reward": "servant"}) == "overpayment"
    pool = s["players"][A]["pool"]
    t = play(s, A, {"type": "exchange_tokens", "tokens": [double], "reward": "servant"})
    assert t["players"][A]["pool"] == pool + 1 and t["players"][A]["tokens"] == [one, two]
    assert sorted(t["travel_discard"]) == [double]


def test_s19_decree_pricing(monkeypatch):
    s = after_exchange(started(3), A, "DECREE")
    decree = s["decrees"][0]
    monkeypatch.setitem(data.DECREES, decree, {**data.DECREES[decree], "cost": 2, "vp_now": 1})
    s["decree_servants"][decree] = [B, C]
    s["players"][A].update(pool=4)
    cmd = {"type": "location_action", "decree": decree}
    assert refused(s, A, cmd) == "insufficient_servants"
    s["players"][A].update(pool=5)
    supply = s["players"][A]["supply"]
    s = play(s, A, cmd)
    a = s["players"][A]
    assert a["pool"] == 0 and a["supply"] == supply + 4 and a["vp"] == 1
    assert s["decree_servants"][decree] == [B, C, A]
    s = after_exchange(s, A, "DECREE")
    s["players"][A].update(pool=9)
    assert refused(s, A, cmd) == "decree_already_owned"
