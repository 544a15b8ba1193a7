"""Spec §9 scenarios S20-S37: the canal, the Evening, the Morning, final scoring, views,
jade and Intrigue benefits. Each test names its scenario."""

from __future__ import annotations

from service.games.gugong import data
from service.games.gugong.moves import legal_moves
from service.games.gugong.view import view
from tests.games.gugong.table import (
    A,
    B,
    C,
    D,
    after_exchange,
    at_turn,
    empty_hands,
    events,
    kinds,
    play,
    refused,
    run,
    started,
    to_act,
    top,
)


def boat(owner, cubes, foreman=False):
    return {"owner": owner, "cubes": cubes, "foreman": foreman}


def test_s20_new_boat_placement():
    s = after_exchange(started(2), A, "CANAL")
    s["canal"]["A"][0] = boat(B, 1)
    assert refused(s, A, {"type": "location_action", "option": "A", "place": {"boat": "A3", "unit": "cube"}}) == "illegal_port"
    s = play(s, A, {"type": "location_action", "option": "A", "place": {"boat": "A2", "unit": "cube"}})
    assert s["canal"]["A"][1] == boat(A, 1)


def test_s21_boat_movement_skips_occupied_ports():
    s = after_exchange(started(2), A, "CANAL")
    s["canal"]["A"][1] = boat(A, 1)
    s["canal"]["A"][2] = boat(B, 1)
    s["canal"]["A"][3] = boat(B, 1)
    t = play(s, A, {"type": "location_action", "option": "A", "move": "A2"})
    assert t["canal"]["A"][4] == boat(A, 1) and t["canal"]["A"][1] is None
    s["canal"]["A"][4] = boat(B, 1)
    assert refused(s, A, {"type": "location_action", "option": "A", "move": "A2"}) == "no_free_port"


def test_s22_claim_on_becoming_full():
    s = after_exchange(started(2, draw_pile=["G30", *[c for c in data.DRAW_CARDS if c != "G30"]]), A, "CANAL")
    s["canal"]["A"][2] = boat(A, 2)
    supply = s["players"][A]["supply"]
    s = play(s, A, {"type": "location_action", "option": "A", "place": {"boat": "A3", "unit": "cube"}})
    assert top(s) == {"kind": "claim", "seat": A, "route": "A", "port": 3} and to_act(s) == [A]
    s = play(s, A, {"type": "claim", "reward": "CARD"})
    a = s["players"][A]
    assert a["slots"]["CARD"] == 1 and "G30" in a["hand"]
    assert s["canal"]["A"][2] is None and a["supply"] == supply + 2
    assert top(s)["kind"] == "turn"
    # the drawn card can be played this Day
    assert any(m["type"] == "end_turn" for m in legal_moves(s, A))


def test_s23_reward_slot_full():
    s = after_exchange(started(2), A, "CANAL")
    s["players"][A]["slots"]["FOREMAN"] = 1
    s["players"][A]["foreman"] = "pool"
    s["canal"]["A"][3] = boat(A, 3)
    s["stack"].append({"kind": "claim", "seat": A, "route": "A", "port": 4})
    assert refused(s, A, {"type": "claim", "reward": "FOREMAN"}) == "reward_slot_full"
    # at Huai'an nothing is left to claim, so the game does not even ask
    t, _ = run(s)
    assert top(t)["kind"] == "turn"
    s["canal"]["A"][3] = None
    s["canal"]["A"][4] = boat(A, 3)
    s["stack"][-1] = {"kind": "claim", "seat": A, "route": "A", "port": 5}
    assert refused(s, A, {"type": "claim", "reward": "FOREMAN"}) == "reward_slot_full"
    assert {m["reward"] for m in legal_moves(s, A) if m["type"] == "claim"} == {"VP4", "CARD"}
    t = play(s, A, {"type": "claim", "reward": "VP4"})
    assert t["players"][A]["vp"] == 4 and t["players"][A]["slots"]["VP4"] == 1


def _evening(s, seed=0):
    return run(s, {"kind": "evening"}, seed=seed)


def test_s24_evening_boat_movement():
    s = empty_hands(started(2))
    s["stack"] = []
    s["canal"]["A"] = [None, boat(A, 1), None, boat(B, 3), boat(A, 2)]
    supply = s["players"][A]["supply"]
    s, evs = _evening(s)
    assert s["canal"]["A"] == [None, None, boat(A, 1), None, boat(B, 3)]
    assert s["players"][A]["supply"] == supply + 2     # no dice matches: empty discard piles
    from service.games.gugong import board
    assert board.boats_left(s, A) == 2
    assert any(e["type"] == "boat_returned" and e["reason"] == "lost" and e["seat"] == A for e in evs)
    assert top(s) == {"kind": "claim", "seat": B, "route": "A", "port": 5} and to_act(s) == [B]
    assert {m["reward"] for m in legal_moves(s, B) if m["type"] == "claim"} == {"VP4", "CARD", "FOREMAN"}


def test_s25_dice_servants_and_bonus_d9(cards):
    s = empty_hands(started(2))
    s["stack"] = []
    s["dice"] = [3, 7, 3]
    s["players"][A]["intrigue"] = 5
    s["players"][A]["discard"] = [cards.make(3), cards.make(7), cards.make(5)]
    s["players"][B]["discard"] = [cards.make(3), cards.make(3)]
    s["players"][A].update(pool=0, supply=6)
    s["players"][B].update(pool=0, supply=6)
    s, evs = _evening(s)
    matched = next(e for e in evs if e["type"] == "dice_matched")
    assert matched["matches"] == [3, 4]
    dice_gains = {e["seat"]: e["cubes"] for e in evs if e["type"] == "servants_gained" and e["reason"] == "dice"}
    assert dice_gains == {A: 3, B: 4}
    assert next(e for e in evs if e["type"] == "dice_bonus_awarded")["seat"] == B
    assert s["players"][B]["vp"] == 3 and s["players"][B]["envoy"] == 1


def test_s26_dice_bonus_tie(cards):
    s = empty_hands(started(2))
    s["stack"] = []
    s["dice"] = [4, 6, 2]
    s["players"][B]["intrigue"] = 3
    s["players"][A]["discard"] = [cards.make(2), cards.make(4)]
    s["players"][B]["discard"] = [cards.make(6), cards.make(6)]
    t, evs = _evening(s)
    assert next(e for e in evs if e["type"] == "dice_bonus_awarded")["seat"] == B
    s["players"][A]["discard"] = [cards.make(9)]
    s["players"][B]["discard"] = [cards.make(8)]
    t, evs = _evening(s)
    assert "dice_bonus_awarded" not in kinds(evs)


def _final(s):
    s["stack"] = []
    s["day"] = 4
    return run(s, {"kind": "final_scoring"})


def test_s27_jade_scoring():
    assert data.jade_vp(7) == 19
    s = empty_hands(started(2))
    s["players"][A].update(jade=7, envoy=8)
    s["arrivals"] = []
    s, _ = _final(s)
    assert s["breakdown"]["seats"][A]["jade"] == 19


def test_s28_palace_gate():
    s = empty_hands(started(2))
    s["players"][A].update(vp=80, envoy=7)
    s["players"][B].update(vp=40, envoy=8, arrival_vp=0)
    s["arrivals"] = [B]
    s, _ = _final(s)
    assert s["result"] == {"scores": [0, 40], "ranking": [B, A], "winners": [B]}


def test_s29_final_wall_leftovers():
    s = empty_hands(started(4))
    s["wall"] = [{"seat": A, "foreman": False}] * 2 + [{"seat": B, "foreman": False}] * 3
    s["players"][A].update(envoy=8, arrival_vp=8)
    s["arrivals"] = [A]
    s["players"][B].update(envoy=7)
    s, evs = _final(s)
    b = s["players"][B]
    assert b["envoy"] == 8 and b["arrival_vp"] == 6 and s["arrivals"] == [A, B]
    assert s["breakdown"]["seats"][B]["wall"] == 3 and s["breakdown"]["seats"][B]["palace"] == 6
    assert s["breakdown"]["seats"][B]["eligible"]
    assert "intrigue_benefit_taken" not in kinds(evs) and s["result"]["scores"][B] == 9


def test_s30_capped_gains_and_foreman_return(cards):
    s = empty_hands(started(2))
    s["stack"] = []
    s["dice"] = [3, 7, 3]
    s["players"][A].update(supply=1, foreman="supply", pool=0)
    s["players"][A]["discard"] = [cards.make(3), cards.make(7)]
    s["day"] = 4    # so that no Morning gain follows the Evening
    s, evs = _evening(s)
    a = s["players"][A]
    assert [e for e in evs if e["type"] == "servants_gained" and e["seat"] == A] == [
        {"type": "servants_gained", "seat": A, "cubes": 1, "foreman": True, "reason": "dice"}]
    assert a["foreman"] == "pool" and a["pool"] == 1 and a["supply"] == 0


def test_s31_exchange_card_action(cards):
    s = at_turn(empty_hands(started(2)), A)
    one, eight, nine, two = cards.make(1, "EXCHANGE"), cards.make(8), cards.make(9), cards.make(2)
    s["players"][A].update(hand=[one], discard=[eight])
    s["locations"]["TRAVEL"] = nine
    s["locations"]["JADE"] = two
    s = play(s, A, {"type": "exchange", "card": one, "location": "TRAVEL", "payment": "none"})
    jade = s["players"][A]["jade"]
    s = play(s, A, {"type": "card_action", "card": eight, "location": "JADE"})
    a = s["players"][A]
    assert a["hand"] == [] and sorted(a["discard"]) == sorted([nine, two])
    assert s["locations"]["TRAVEL"] == one and s["locations"]["JADE"] == eight and a["jade"] == jade
    assert any(m["type"] == "location_action" for m in legal_moves(s, A))


def test_s32_morning_refill():
    s = empty_hands(started(2))
    s["stack"] = []
    s["day"] = 1
    s["map"]["c02"] = None
    s["map"]["c03"] = None
    s["players"][A]["traveller"] = "c02"
    s["players"][A]["discard"] = ["G01"]     # so that the Day waits for A
    first = s["pile_a"][0]
    s, evs = run(s, {"kind": "morning"})
    assert s["map"]["c03"] == first and s["map"]["c02"] is None
    assert s["day"] == 2


def test_s33_passing(cards):
    s = at_turn(empty_hands(started(3)), A)
    s["players"][A]["discard"] = [cards.make(4)]
    last = cards.make(5)
    s["players"][B]["hand"] = [last]
    s["locations"]["JADE"] = cards.make(8)
    s["turn"]["exchanged"] = True
    s = play(s, A, {"type": "end_turn"})
    assert to_act(s) == [B]
    s = play(s, B, {"type": "exchange", "card": last, "location": "JADE", "payment": "forgo"})
    s, evs = events(s, B, {"type": "end_turn"})
    order = kinds(evs)
    assert order[:2] == ["turn_ended", "evening_started"]
    # the next turn to start is day 2's, by the start player A, who now holds its discard
    assert next(e for e in evs if e["type"] == "turn_started")["seat"] == A and s["day"] == 2


def test_s34_morning_order(cards):
    s = empty_hands(started(2, dice=[None, None, [5, 8, 1]], decrees=["D1A", "D1B", "D2A", "D2B", "D3A", "D3B"]))
    s["stack"] = []
    s["day"] = 2
    hand = [cards.make(4), cards.make(7), cards.make(9), cards.make(2)]
    s["players"][A].update(pool=2, supply=5, decrees=["D1A"], discard=hand)
    s["players"][B]["hand"] = [cards.make(3)]
    s["decree_servants"]["D1A"] = [A]
    s, evs = run(s, {"kind": "morning"})
    a = s["players"][A]
    assert a["hand"] == hand and a["discard"] == []
    assert a["pool"] == 6 and a["supply"] == 1
    assert s["dice"] == [5, 8, 1] and s["day"] == 3 and s["phase"] == "day"
    assert to_act(s) == [A]
    order = kinds(evs)
    assert order.index("dice_rolled") < order.index("morning_decree_resolved") < order.index("day_started")


def test_s35_redaction():
    s = after_exchange(started(2, draw_pile=["G30", *[c for c in data.DRAW_CARDS if c != "G30"]]), A, "CANAL")
    s["canal"]["A"][2] = boat(A, 2)
    s = play(s, A, {"type": "location_action", "option": "A", "place": {"boat": "A3", "unit": "cube"}})
    before = {a: view(s, a) for a in (A, B, None)}
    s = play(s, A, {"type": "claim", "reward": "CARD"})
    mine, theirs, spectator = view(s, A), view(s, B), view(s, None)
    assert "G30" in [c["id"] for c in mine["players"][A]["hand"]]
    for v, old in ((theirs, before[B]), (spectator, before[None])):
        assert v["players"][A]["hand"] is None
        assert v["players"][A]["hand_count"] == old["players"][A]["hand_count"] + 1
        assert "G30" not in str(v)
    for a, v in ((A, mine), (B, theirs), (None, spectator)):
        assert v["draw_pile_count"] == before[a]["draw_pile_count"] - 1


def test_s36_jade_fallback_locked():
    s = after_exchange(started(2), A, "JADE")
    s["jade_spots"] = [False, False, True, False, True, False]   # the cost-3 and a cost-4 spot
    s["players"][A].update(pool=9)
    assert refused(s, A, {"type": "location_action", "spot": None}) == "jade_fallback_locked"
    s["players"][A].update(pool=3)
    t = play(s, A, {"type": "location_action", "spot": 2})
    assert t["players"][A]["pool"] == 0 and t["players"][A]["jade"] == 1 and not t["jade_spots"][2]
    s["players"][A].update(pool=1, foreman="pool")
    assert refused(s, A, {"type": "location_action", "spot": 2}) == "insufficient_servants"
    supply = s["players"][A]["supply"]
    t = play(s, A, {"type": "location_action", "spot": 2, "pay_foreman": True})
    a = t["players"][A]
    assert a["pool"] == 0 and a["foreman"] == "supply" and a["supply"] == supply + 1 and a["jade"] == 1


def test_s37_intrigue_benefits_skip_and_cap():
    s = after_exchange(started(2), A, "WALL")
    s["players"][A].update(intrigue=0)
    s["players"][B].update(intrigue=9, supply=1, pool=5)
    s["wall"] = [{"seat": B, "foreman": False}, {"seat": A, "foreman": False}, {"seat": A, "foreman": False}]
    s = play(s, A, {"type": "location_action", "option": "A", "units": ["cube"]})
    assert s["players"][A]["vp"] == 3    # A has the majority; B's cube stays on the Wall
    assert to_act(s) == [B] and top(s) == {"kind": "benefit", "seat": B}
    s = play(s, B, {"type": "intrigue_benefit", "down": 3})
    b = s["players"][B]
    assert b["intrigue"] == 6 and b["pool"] == 6 and b["supply"] == 0
    assert to_act(s) == [A]


def test_s13_s37_queued_seats_get_prompt_pending():
    s = after_exchange(started(4), D, "WALL")
    s["wall"] = [{"seat": A, "foreman": False}] * 3 + [{"seat": B, "foreman": False}] * 2
    s["players"][A]["intrigue"], s["players"][B]["intrigue"] = 3, 2
    s = play(s, D, {"type": "location_action", "option": "A", "units": ["cube"]})
    assert to_act(s) == [B]
    assert refused(s, A, {"type": "decline"}) == "prompt_pending"
    assert refused(s, C, {"type": "decline"}) == "not_your_turn"
    assert view(s, None)["queue"] == [A, D]
