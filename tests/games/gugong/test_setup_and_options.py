"""Setup (§3), player counts (§1.2), options that fix chance, and the expert variant (§1.4)."""

from __future__ import annotations

import random

import pytest

from service.games.gugong import GAME, data
from service.games.interface import IllegalMove
from tests.games.gugong.table import A, B, C, D, E, refused, started, to_act


@pytest.mark.parametrize("players,side,threshold,routes,spots,slots", [
    (2, "2-3", 4, ["A"], 6, [7, 4, 2]),
    (3, "2-3", 5, ["A"], 6, [7, 4, 2]),
    (4, "4-5", 6, ["A", "B"], 9, [8, 6, 4, 2, 1]),
    (5, "4-5", 7, ["A", "B"], 9, [8, 6, 4, 2, 1]),
])
def test_player_count_differences(players, side, threshold, routes, spots, slots):
    s = started(players)
    assert s["side"] == side and s["wall_threshold"] == threshold and s["routes"] == routes
    assert len(s["jade_spots"]) == spots and all(s["jade_spots"])
    assert data.arrival_slots(side) == slots
    assert sorted(s["canal"]) == routes


def test_setup_deals_the_starting_sets_clockwise_from_the_start_player():
    s = started(4, start_player=2)
    assert s["players"][C]["hand"] == data.START_SETS[1]
    assert s["players"][D]["hand"] == data.START_SETS[2]
    assert s["players"][A]["hand"] == data.START_SETS[3]
    assert s["players"][B]["hand"] == data.START_SETS[4]
    assert to_act(s) == [C] and s["day"] == 1 and s["phase"] == "day"


def test_setup_components():
    s = started(5)
    assert all(s["map"][c] is not None for c in data.CITIES)
    assert (len(s["pile_a"]), len(s["pile_b"])) == (10, 10)
    assert sorted([*s["map"].values(), *s["pile_a"], *s["pile_b"]]) == sorted(data.TOKENS)
    assert sorted(s["locations"].values()) == sorted(data.LOCATION_CARDS)
    assert sorted(s["draw_pile"]) == sorted(data.DRAW_CARDS)
    levels = [data.DECREES[d]["level"] for d in s["decrees"]]
    assert sorted(levels) == [1, 1, 2, 2, 3, 3] and len(s["boxed_decrees"]) == 9
    for p in s["players"]:
        assert (p["pool"], p["supply"], p["foreman"], p["envoy"], p["intrigue"], p["vp"]) == (6, 6, "locked", 0, 0, 0)
        assert p["traveller"] is None and p["slots"] == {"VP4": 0, "CARD": 0, "FOREMAN": 0}
    assert all(d in data.DICE[i] for i, d in enumerate(s["dice"]))


def test_intrigue_markers_start_stacked_start_player_at_the_bottom():
    s = started(3, start_player=1)
    # last in turn order (seat 0, to the start player's right) is on top and wins ties
    from service.games.gugong import board
    assert board.best_by_intrigue(s, [A, B, C]) == A
    assert board.best_by_intrigue(s, [B, C]) == C


def test_odd_token_remainder_goes_to_pile_a(monkeypatch):
    monkeypatch.setattr(data, "TOKENS", {k: v for k, v in data.TOKENS.items() if k != "tk32"})
    s = started(2)
    assert (len(s["pile_a"]), len(s["pile_b"])) == (10, 9)


def test_options_fix_every_random_outcome():
    tokens = sorted(data.TOKENS)[::-1]
    locs = dict(zip(data.LOCATIONS, data.LOCATION_CARDS[::-1], strict=True))
    opts = {"start_player": 1, "dice": [[6, 9, 9], [1, 4, 1]], "location_cards": locs,
            "draw_pile": data.DRAW_CARDS[::-1], "travel_tokens": tokens,
            "decrees": ["D1E", "D1D", "D2C", "D2D", "D3E", "D3A"]}
    one, two = started(3, seed=1, **opts), started(3, seed=99, **opts)
    assert one == two
    assert one["start_player"] == 1 and one["dice"] == [6, 9, 9] and one["locations"] == locs
    assert one["draw_pile"] == data.DRAW_CARDS[::-1]
    assert [one["map"][c] for c in data.CITIES] == tokens[:12] and one["pile_a"] == tokens[12:22]
    assert one["decrees"] == ["D1E", "D1D", "D2C", "D2D", "D3E", "D3A"]


def test_without_options_the_rng_decides():
    seen = {started(5, seed=k)["draw_pile"][0] for k in range(8)}
    assert len(seen) > 1


@pytest.mark.parametrize("options", [
    {"nope": 1},
    {"start_player": 2},
    {"start_player": True},
    {"dice": [[1, 2]]},
    {"dice": [[7, 4, 1]]},          # 7 is no face of die 1
    {"dice": [[1, 4, 1]] * 5},
    {"dice": "1,2,3"},
    {"location_cards": {"TRAVEL": "G21"}},
    {"location_cards": {1: "G21", "TRAVEL": ["G22"]}},
    {"decrees": [{"x": 1}] * 6},
    {"draw_pile": ["G28"]},
    {"draw_pile": data.DRAW_CARDS[:-1] + ["G01"]},
    {"travel_tokens": sorted(data.TOKENS)[:-1]},
    {"decrees": ["D1A", "D1B", "D1C", "D2A", "D3A", "D3B"]},
    {"decrees": ["D1A", "D1A", "D2A", "D2B", "D3A", "D3B"]},
    {"random_start_hands": "yes"},
    [],
])
def test_bad_options_are_refused(options):
    with pytest.raises(IllegalMove) as err:
        GAME.initial(options, 2)
    assert err.value.code == "bad_options"


def test_illegal_die_face_is_named():
    with pytest.raises(IllegalMove) as err:
        GAME.initial({"dice": [[1, 3, 4]]}, 2)
    assert "illegal_die_face" in err.value.message


@pytest.mark.parametrize("players", [1, 6, 0, True])
def test_bad_player_counts(players):
    with pytest.raises(IllegalMove) as err:
        GAME.initial({}, players)
    assert err.value.code == "bad_player_count"


def test_expert_variant_deals_random_starting_hands():
    s = started(3, random_start_hands=True, seed=4)
    hands = [p["hand"] for p in s["players"]]
    assert all(len(h) == 4 for h in hands)
    dealt = [c for h in hands for c in h]
    assert len(set(dealt)) == 12 and set(dealt) <= set(data.START_CARDS)
    assert hands != [data.START_SETS[k + 1] for k in range(3)]


def test_before_start_nobody_acts_and_start_happens_once():
    s = GAME.initial({}, 2)
    assert GAME.status(s) == {"phase": "waiting", "to_act": [], "finished": False, "result": None}
    assert refused(s, A, {"type": "end_turn"}) == "not_started"
    assert GAME.legal_moves(s, A) == []
    s2 = started(2)
    assert refused(s2, None, {"type": "start"}) == "already_started"
    with pytest.raises(IllegalMove):
        GAME.decide(s2, None, {"type": "end_turn"}, random.Random(0))


def test_data_files_are_consistent():
    assert len(data.CARDS) == 38 and len(data.TOKENS) == 32 and len(data.DECREES) == 15
    assert len(data.START_CARDS) == 20 and len(data.LOCATION_CARDS) == 7 and len(data.DRAW_CARDS) == 11
    assert all(sum(data.CARDS[c]["value"] for c in cards) == 20 for cards in data.START_SETS.values())
    assert all(data.CARDS[c]["action"] in data.CARD_ACTIONS for c in data.CARDS)
    faces = sorted(f for die in data.DICE for f in die)
    assert faces == sorted(list(range(1, 10)) * 2)
    # the reconstructed map is connected
    seen, todo = {"c01"}, ["c01"]
    while todo:
        for nxt in data.NEIGHBOURS[todo.pop()]:
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    assert seen == set(data.CITIES)
    assert E == 4


def test_start_player_is_drawn_at_random_without_the_option():
    firsts = {GAME.decide(GAME.initial({}, 5), None, {"type": "start"}, random.Random(k))[0]["start_player"]
              for k in range(20)}
    assert len(firsts) > 1
