"""legal_moves against brute force, views and secrets, the board data, and a replacement
board loaded from data."""

from __future__ import annotations

import random

import msgpack

from service.games.interface import IllegalMove
from service.games.khan import GAME
from service.games.khan.data import BOARDS, CARDS, TILE_IDS, TILE_SHAPES, register_board
from service.games.khan.scoring import score
from service.games.playout import playout

from .helpers import BOARD, N, act, position, specials


def crowded(seed: int, players: int = 3) -> dict:
    """A mid-game board: three quarters of the free land holds yurts, a few tiles lie, and
    one protection is active."""
    rng = random.Random(seed)
    s = position(players, tiles=[("O4", [[0, 0], [0, 1], [1, 0], [1, 1]], [1]), ("B-I3", [[5, 10], [6, 10], [7, 10]], [2])],
                 active=[{"seat": 1, "card": "protection", "region": None}])
    rulers = {c for c in s["rulers"].values() if c is not None}
    for i in range(len(s["yurts"])):
        if BOARD.is_land[i] and s["tile_at"][i] is None and i not in rulers and rng.random() < 0.75:
            s["yurts"][i] = rng.choice([-1, 0, 0, 1, 2])
    return s


def brute_force_conquests(s: dict, seat: int) -> list[dict]:
    found = []
    for tile in TILE_IDS:
        for shape in TILE_SHAPES[tile]:
            for r0 in range(-1, BOARD.height):
                for c0 in range(-1, BOARD.width):
                    cmd = {"type": "conquer", "tile": tile, "cells": [[r0 + r, c0 + c] for r, c in shape]}
                    try:
                        GAME.decide(s, seat, cmd, random.Random(0))
                    except IllegalMove:
                        continue
                    found.append(cmd)
    return found


def canonical(moves: list[dict]) -> list[str]:
    return sorted(repr((m["tile"], sorted(m["cells"]))) for m in moves)


def test_conquest_enumeration_matches_brute_force_on_a_crowded_board():
    for seed in (1, 2):
        s = crowded(seed)
        listed = [m for m in GAME.legal_moves(s, 0) if m["type"] == "conquer"]
        assert len(listed) > 50
        assert canonical(listed) == canonical(brute_force_conquests(s, 0))
        assert len(canonical(listed)) == len(listed)  # no duplicates


def test_invade_moves_match_brute_force():
    s = crowded(3)
    s["hands"][0] = ["seljuk-RIVER", "ruler_3-OUTER", "ruler_4-K", "russian-KHAN"]
    listed = sorted(repr(m) for m in GAME.legal_moves(s, 0) if m["type"] == "invade")
    brute = []
    for c in s["hands"][0]:
        for r in range(-1, 14):
            for col in range(-1, 14):
                cmd = {"type": "invade", "card": c, "cell": [r, col]}
                try:
                    GAME.decide(s, 0, cmd, random.Random(0))
                except IllegalMove:
                    continue
                brute.append(repr(cmd))
    assert listed == sorted(brute)


def test_invade_of_choice_lists_every_free_cell_with_every_discard_subset():
    s = position(hands=[["seljuk-M", "seljuk-S", "seljuk-F", "seljuk-T"], []])
    moves = [m for m in GAME.legal_moves(s, 0) if m["type"] == "invade_of_choice"]
    free = 132 - 8
    assert len(moves) == free * 16
    after = act(s, 0, {"type": "invade", "card": "seljuk-M", "cell": [0, 0]})[1]
    assert not [m for m in GAME.legal_moves(after, 0) if m["type"] == "invade_of_choice"]


def test_every_listed_move_is_accepted_on_a_crowded_board():
    s = crowded(4)
    for m in GAME.legal_moves(s, 0):
        if m["type"] != "invade_of_choice":
            GAME.decide(s, 0, m, random.Random(0))
    assert GAME.legal_moves(s, 1) == []


def test_views_hide_hands_and_draw_order():
    s = GAME.initial({}, 3)
    s = act(s, None, {"type": "start"})[1]
    packed = {a: msgpack.packb(GAME.view(s, a)) for a in (0, 1, 2, None)}
    for seat in (0, 1, 2):
        for c in s["hands"][seat]:
            token = msgpack.packb(c)
            assert token in packed[seat]
            assert all(token not in packed[a] for a in packed if a != seat)
    for c in s["draw_pile"]:
        assert all(msgpack.packb(c) not in data for data in packed.values())
    v = GAME.view(s, None)
    assert v["hand"] is None and v["hand_sizes"] == [4, 4, 4]
    assert v["draw_pile_size"] == len(s["draw_pile"])
    assert v["discard_pile"] == s["discard"] and v["discard_top"] == CARDS[s["discard"][-1]]
    own = GAME.view(s, 1)
    assert [c["id"] for c in own["hand"]] == s["hands"][1]
    assert GAME.secrets(s, 1) == s["hands"][1] and GAME.secrets(s, None) == s["draw_pile"]


def test_view_shows_the_public_board():
    s = position(yurts={(3, 3): 0, (4, 4): N}, tiles=[("D2", [[0, 8], [0, 9]], [0, 1])],
                 active=[{"seat": 1, "card": "protection", "region": None}], specials=[specials(high_morale=1), specials()])
    v = GAME.view(s, 1)
    assert v["player_yurts"][0] == [[3, 3]] and v["neutral_yurts"] == [[4, 4]]
    assert v["tiles_placed"] == [{"tile": "D2", "cells": [[0, 8], [0, 9]], "owners": [0, 1]}]
    assert v["tile_supply"]["D2"] == 3
    assert v["rulers"]["seljuk"] == [8, 10]
    assert v["special_cards"][0]["high_morale"] == 1
    assert v["active_special_cards"] == s["active"]
    assert v["general_supply"] == 20 and v["camps"]["seljuk"] == 5


# ---- the board as data (spec 3) ----


def test_standard_board_matches_the_spec_cross_check_data():
    b = BOARDS["standard"]
    letters = "".join(b.letter)
    assert {ch: letters.count(ch) for ch in "MSFTKIR."} == {"M": 22, "S": 22, "F": 22, "T": 22, "K": 22, "I": 22, "R": 22, ".": 15}
    banks = sorted(sum(1 for x in b.bank if x == k) for k in set(b.bank) if k is not None)
    assert banks == [28, 29, 75]
    outer = [b.rc(i) for i in range(len(b.letter)) if b.borders_outer[i]]
    assert outer == [[0, 0], [0, 12], [1, 0], [1, 12], [2, 0], [2, 12], [3, 0], [3, 12], [4, 12], [5, 0], [5, 12],
                     [6, 0], [7, 0], [7, 12], [8, 0], [8, 12], [9, 1], [9, 12], [10, 2], [10, 11], [10, 12], [11, 3],
                     [11, 10], [12, 4], [12, 5], [12, 7], [12, 8], [12, 9]]
    river = [b.rc(i) for i in range(len(b.letter)) if b.borders_river[i]]
    assert river == [[3, 0], [3, 1], [4, 2], [4, 3], [5, 0], [5, 4], [5, 8], [5, 9], [5, 10], [5, 11], [5, 12],
                     [6, 1], [6, 2], [6, 5], [6, 6], [6, 7], [7, 3], [7, 9], [7, 10], [7, 11], [7, 12], [8, 4],
                     [8, 5], [8, 7], [8, 8], [9, 5], [9, 7], [10, 5], [10, 7], [11, 5], [11, 7], [12, 5], [12, 7]]
    starts = sorted(b.rc(i) for i in b.start_cells.values())
    assert starts == [[1, 6], [2, 0], [2, 11], [5, 5], [8, 2], [8, 10], [11, 4], [11, 8]]


def test_tile_orientations_are_deduplicated():
    assert {t: len(TILE_SHAPES[t]) for t in ("D2", "O4", "I3", "L4", "S4", "T4", "O6")} == {
        "D2": 2, "O4": 1, "I3": 2, "L4": 8, "S4": 4, "T4": 4, "O6": 2}


TINY = {
    "rows": ["MMSSR..", "MMSSRFF", "TTKKRFF", "TTKKRII", "TTKKRII"],
    "regions": {"M": "m", "S": "s", "F": "f", "T": "t", "K": "k", "I": "i"},
    "borders": {"north": "camp_panel", "west": "outer_area", "east": "outer_area", "south": "outer_area", "void": "outer_area"},
    "ruler_start_cells": {"russian": [0, 0], "seljuk": [0, 3], "ruler_3": [1, 6], "ruler_4": [2, 1],
                          "ruler_5": [2, 3], "ruler_6": [4, 0], "ruler_7": [4, 2], "ruler_8": [4, 6]},
}


def test_a_different_board_loads_from_data_and_plays_to_the_end():
    board = register_board("tiny-test", TINY)
    assert sum(board.is_land) == 28 and sum(board.is_river) == 5
    assert board.borders_outer[board.index(1, 6)] and not board.borders_outer[board.index(0, 2)]
    assert board.borders_outer[board.index(1, 5)]  # a side on a void position
    finished = None
    for step in playout(GAME, 2, "tiny", {"board": "tiny-test"}):
        finished = step.after
    assert GAME.status(finished)["finished"]
    result = score(finished, board)
    assert result["scores"] == GAME.status(finished)["result"]["scores"]
