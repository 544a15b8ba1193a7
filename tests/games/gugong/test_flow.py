"""The day's rhythm (§4): Evening claims in order, the Morning's steps and prompts, the final
window and final scoring with the Palace gate and ties; plus whole-game invariants."""

from __future__ import annotations

import pytest

from service.games.gugong import GAME, board, data
from service.games.gugong.moves import legal_moves
from service.games.playout import playout
from tests.games.gugong.table import (
    A,
    B,
    C,
    after_exchange,
    empty_hands,
    play,
    refused,
    run,
    started,
    to_act,
    tokens_of,
    top,
)


def boat(owner, cubes, foreman=False):
    return {"owner": owner, "cubes": cubes, "foreman": foreman}


def test_evening_claims_in_turn_order_front_boat_first_route_a_first_d29():
    s = empty_hands(started(4, start_player=1))
    s["stack"] = []
    s["canal"]["A"] = [boat(A, 3), None, boat(B, 3), None, None]
    s["canal"]["B"] = [None, None, boat(B, 3), None, None]
    s["players"][A]["discard"] = ["G01"]
    s, _ = run(s, {"kind": "evening"})
    # B (start player) first: its boats at A4 and B4, route A first; then A at A2
    assert top(s) == {"kind": "claim", "seat": B, "route": "A", "port": 4}
    s = play(s, B, {"type": "decline"})
    assert top(s) == {"kind": "claim", "seat": B, "route": "B", "port": 4}
    s = play(s, B, {"type": "claim", "reward": "FOREMAN"})
    assert s["players"][B]["foreman"] == "pool"
    assert top(s) == {"kind": "claim", "seat": A, "route": "A", "port": 2}
    s = play(s, A, {"type": "claim", "reward": "VP4"})
    assert s["phase"] == "day" and s["day"] == 2
    assert s["canal"]["A"][3] == boat(B, 3)   # the declined full boat stays


def test_evening_skips_boats_with_nothing_to_claim():
    s = empty_hands(started(2))
    s["stack"] = []
    s["players"][A]["slots"]["VP4"] = 3
    s["players"][A]["discard"] = ["G01"]
    s["canal"]["A"] = [boat(A, 3), None, None, None, None]
    s, _ = run(s, {"kind": "evening"})
    assert top(s)["kind"] == "turn" and s["day"] == 2


def test_morning_two_level1_decrees_owner_picks_order_d19():
    s = empty_hands(started(2))
    s["stack"] = []
    s["players"][A].update(decrees=["D1C", "D1D"], discard=["G01"])
    s, _ = run(s, {"kind": "morning"})
    assert top(s) == {"kind": "morning_decree", "seat": A, "left": ["D1C", "D1D"]}
    assert s["phase"] == "morning" and to_act(s) == [A]
    assert {m["decree"] for m in legal_moves(s, A) if m["type"] == "morning_decree"} == {"D1C", "D1D"}
    s = play(s, A, {"type": "morning_decree", "decree": "D1D"})
    assert s["players"][A]["vp"] == 2 and s["players"][A]["envoy"] == 1 and s["phase"] == "day"


def test_morning_free_travel_move_is_optional():
    s = empty_hands(started(2))
    s["stack"] = []
    s["players"][A].update(decrees=["D1E"], discard=["G01"])
    s, _ = run(s, {"kind": "morning"})
    assert top(s) == {"kind": "travel_move", "seat": A, "left": 1, "optional": True}
    t = play(s, A, {"type": "decline"})
    assert t["phase"] == "day"
    t = play(s, A, {"type": "travel", "city": "c01"})
    assert t["players"][A]["traveller"] == "c01"


def test_morning_decree_servant_intrigue():
    s = empty_hands(started(2))
    s["stack"] = []
    s["players"][B].update(decrees=["D1B"], intrigue=3, discard=["G01"])
    s, _ = run(s, {"kind": "morning"})
    assert s["players"][B]["intrigue"] == 4 and s["medal"] is None


def test_refill_reshuffles_the_travel_discard_when_both_piles_are_empty():
    s = empty_hands(started(2))
    s["stack"] = []
    s["players"][A]["discard"] = ["G01"]
    s["pile_a"], s["pile_b"] = [], ["tk01"]
    used = ["tk02", "tk03", "tk04"]
    s["travel_discard"] = used
    for c, t in list(s["map"].items()):
        if t in ["tk01", *used]:
            s["map"][c] = "tk30"
    s["map"]["c05"] = s["map"]["c06"] = s["map"]["c07"] = None
    s, evs = run(s, {"kind": "morning"}, seed=3)
    assert s["map"]["c05"] == "tk01"
    assert {s["map"]["c06"], s["map"]["c07"]} <= set(used)
    reshuffle = next(e for e in evs if e["type"] == "travel_discard_reshuffled")
    assert sorted(reshuffle["pile_a"] + reshuffle["pile_b"]) == used and len(reshuffle["pile_a"]) == 2
    assert s["travel_discard"] == []


def test_refill_with_no_tokens_left_leaves_cities_empty():
    s = empty_hands(started(2))
    s["stack"] = []
    s["players"][A]["discard"] = ["G01"]
    s["pile_a"], s["pile_b"], s["travel_discard"] = [], [], []
    s["map"]["c05"] = None
    s, _ = run(s, {"kind": "morning"})
    assert s["map"]["c05"] is None


def test_final_window_asks_token_holders_in_turn_order_then_scores():
    s = empty_hands(started(3, start_player=1))
    s["stack"] = []
    s["day"] = 4
    s["players"][A]["tokens"] = tokens_of("T_VP2")[:2]
    s["players"][C]["tokens"] = tokens_of("T_DOUBLE")[:1]
    s["players"][B]["tokens"] = tokens_of("T_PALACE")[:1]      # worth 1: skipped
    s, _ = run(s, {"kind": "evening"})
    assert s["phase"] == "final" and to_act(s) == [C]
    assert refused(s, C, {"type": "end_turn"}) == "prompt_pending"
    s = play(s, C, {"type": "exchange_tokens", "tokens": tokens_of("T_DOUBLE")[:1], "reward": "servant"})
    assert to_act(s) == [A]     # C had nothing left to exchange, so its window closed
    s = play(s, A, {"type": "done"})
    assert GAME.status(s)["finished"] and s["players"][A]["tokens"] == tokens_of("T_VP2")[:2]


def _final(s):
    s["stack"] = []
    s["day"] = 4
    return run(s, {"kind": "final_scoring"})[0]


@pytest.mark.parametrize("decree,setup,vp", [
    ("D3A", {"jade": 3}, 6),
    ("D3B", {"intrigue": 9}, 4),
    ("D3C", {"decrees": ["D1A", "D2A"]}, 9),
    ("D3D", {"slots": {"VP4": 2, "CARD": 1, "FOREMAN": 0}}, 6),
    ("D3E", {"tokens": ["tk31", "tk01"]}, 3),
])
def test_level3_decrees_score_at_the_end(decree, setup, vp):
    assert data.TOKENS["tk31"] == "T_DOUBLE"
    s = empty_hands(started(2))
    p = s["players"][A]
    p.update(setup)
    p["decrees"] = [*p["decrees"], decree]
    p.update(envoy=8, arrival_vp=0)
    s["arrivals"] = [A]
    s = _final(s)
    assert s["breakdown"]["seats"][A]["decrees"] == vp


def test_final_ranking_ties_go_to_the_higher_intrigue_marker():
    s = empty_hands(started(3))
    for seat in (A, B, C):
        s["players"][seat].update(vp=10, envoy=8, arrival_vp=0)
    s["arrivals"] = [A, B, C]
    s["players"][B]["intrigue"] = 4
    s["players"][C]["intrigue"] = 4      # C stacked last at start, on top: wins over B
    s["players"][C]["stamp"], s["players"][B]["stamp"] = 10, 9
    s = _final(s)
    assert s["result"]["ranking"] == [C, B, A] and s["result"]["winners"] == [C]


def test_palace_arrival_slots_in_order_of_arrival():
    s = after_exchange(started(2), A, "PALACE")
    s["players"][A]["envoy"] = 7
    s["players"][B].update(envoy=8, arrival_vp=7)
    s["arrivals"] = [B]
    s = play(s, A, {"type": "location_action", "option": "A"})
    assert s["players"][A]["arrival_vp"] == 4
    s = _final(s)
    assert s["breakdown"]["seats"][A]["palace"] == 4 and s["breakdown"]["seats"][B]["palace"] == 7


def test_nobody_in_the_palace_means_no_winner_d13():
    s = empty_hands(started(3))
    s["players"][A]["vp"] = 30
    s = _final(s)
    assert s["result"]["scores"] == [0, 0, 0]
    assert s["result"]["winners"] == [] and s["breakdown"]["nobody_arrived"]
    assert s["result"]["ranking"][0] == A


def test_finished_game_refuses_everything():
    s = _final(empty_hands(started(2)))
    assert GAME.status(s)["finished"] and GAME.status(s)["to_act"] == []
    assert refused(s, A, {"type": "done"}) == "game_over"
    assert refused(s, None, {"type": "start"}) == "game_over"
    assert GAME.legal_moves(s, A) == []


def _cubes(s, seat):
    p = s["players"][seat]
    on_wall = sum(1 for w in s["wall"] if w["seat"] == seat and not w["foreman"])
    on_boats = sum(b["cubes"] for r in s["routes"] for b in s["canal"][r] if b is not None and b["owner"] == seat)
    placed = len(p["decrees"]) + sum(p["slots"].values()) - (1 if p["foreman"] == "lost" else 0)
    return p["pool"] + p["supply"] + on_wall + on_boats + placed


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_random_games_keep_every_invariant(players):
    for k in range(2):
        for step in playout(GAME, players, f"inv-{players}-{k}"):
            s = step.after
            for seat in range(players):
                assert _cubes(s, seat) == 12
                p = s["players"][seat]
                assert 0 <= p["intrigue"] <= 14 and 0 <= p["envoy"] <= 8 and p["pool"] >= 0 and p["supply"] >= 0
                assert len(p["tokens"]) <= 6 or s["stack"][-1]["kind"] in ("token_limit", "token_effect")
                assert p["slots"]["VP4"] <= 3 and p["slots"]["CARD"] <= 2 and p["slots"]["FOREMAN"] <= 1
            cards = [c for p in s["players"] for c in p["hand"] + p["discard"]] + list(s["locations"].values()) \
                + s["draw_pile"]
            assert len(cards) == len(set(cards)) == 7 + 11 + 4 * players
            tokens = [t for t in s["map"].values() if t] + s["pile_a"] + s["pile_b"] + s["travel_discard"] \
                + [t for p in s["players"] for t in p["tokens"]] + ([s["in_transit"]] if s["in_transit"] else [])
            assert sorted(tokens) == sorted(data.TOKENS)
            for route in s["routes"]:
                assert all(b is None or 1 <= board.boat_units(b) <= 3 for b in s["canal"][route])
            st = GAME.status(s)
            assert st["finished"] or len(st["to_act"]) == 1
