"""legal_moves: every command the seat may give now, complete.

Conquests list every placement of every tile type still in the supply (rotations and mirror
images deduplicated by the precomputed placements of data.Board). The invasion of choice
lists every free land cell with every subset of the hand to discard.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

from service.games.interface import Command, State
from service.games.khan import conquest
from service.games.khan.data import ACTIONS_PER_TURN, BOARDS, CARDS, DIVINE_REGIONS, RULERS, SPECIAL_KINDS
from service.games.khan.rules import invade_allowed, status


def legal_moves(state: State, seat: int) -> list[Command]:
    if seat not in status(state)["to_act"]:
        return []
    if state["pending"] is not None:
        return [{"type": "consent", "agree": True}, {"type": "consent", "agree": False}]
    moves: list[Command] = [{"type": "pass"}]
    if state["phase"] == "special":
        moves.extend(playable_specials(state, seat))
        return moves
    board = BOARDS[state["board"]]
    if not state["end_phase"]:
        ruler_cells = {c for c in state["rulers"].values() if c is not None}
        free = [
            i for i in range(len(state["yurts"]))
            if board.is_land[i] and state["yurts"][i] is None and state["tile_at"][i] is None and i not in ruler_cells
        ]
        hand = state["hands"][seat]
        for card in hand:
            bg = CARDS[card]["background"]
            moves.extend(
                {"type": "invade", "card": card, "cell": board.rc(i)} for i in free if invade_allowed(board, bg, i)
            )
        moves.extend({"type": "drive_out", "ruler": r} for r in RULERS if state["rulers"][r] is not None)
        turn = state["turn"]
        if state["phase"] == "actions" and turn["actions_left"] == ACTIONS_PER_TURN and turn["actions_taken"] == 0:
            subsets = [list(c) for k in range(len(hand) + 1) for c in combinations(hand, k)]
            for i in free:
                cell = board.rc(i)
                moves.extend({"type": "invade_of_choice", "cell": cell, "discard": d} for d in subsets)
    moves.extend(conquest.legal_conquests(state, board, seat))
    return moves


def playable_specials(state: State, seat: int) -> list[dict[str, Any]]:
    if state["end_phase"] or state["turn"]["special_played"] is not None:
        return []
    out: list[dict[str, Any]] = []
    four = state["players"] == 4
    for card in SPECIAL_KINDS:
        if state["specials"][seat][card] <= 0:
            continue
        if card != "high_morale" and state["players"] == 2 and state["last_special"][seat] == card:
            continue
        others = [a for a in state["active"] if a["seat"] != seat and a["card"] == card]
        if card == "divine_support" and four:
            taken = {a["region"] for a in others}
            out.extend({"type": "play_special", "card": card, "region": r} for r in DIVINE_REGIONS if r not in taken)
        elif card == "high_morale" or not others:
            out.append({"type": "play_special", "card": card})
    return out
