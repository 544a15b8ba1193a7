"""legal_moves: every command the seat to act may send, each one accepted by `decide`.

The list is complete, with two documented limits on orderings that carry no rule meaning
or grow factorially: a Minister exchange is listed once per set of pairs (pairs in hand
order; the order of pairs changes nothing), and a declaration is listed in every order of
the attached cards while at most 6 are attached; with more, the sample is the attached
order and its rotations and their reverses (any permutation is still accepted by `decide`).
"""

from __future__ import annotations

from itertools import combinations, permutations
from typing import Any

from service.games.hieroglyphs.data import BASE_ORDER, BASE_ROLE, BLOCKS, HAND_SIZE, TELEPORTS
from service.games.hieroglyphs.movement import legal_paths
from service.games.hieroglyphs.rules import price, status
from service.games.interface import Command, State

FULL_DECLARE_ORDERS = 6


def legal_moves(state: State, seat: int) -> list[Command]:
    if seat not in status(state)["to_act"]:
        return []
    phase = state["phase"]
    hand = state["hands"][seat]
    if phase == "setup_bases":
        return [{"type": "choose_base", "base": b} for b in BASE_ORDER if b not in state["start_bases"]]
    if phase == "setup_tasks":
        return [{"type": "pick_task", "task": t} for t in sorted(state["task_offer"])]
    if phase == "play":
        claims = [False] if state["options"]["meaning_check"] == "off" else [False, True]
        return [{"type": "play_card", "card": c, "claim": claim} for c in hand for claim in claims]
    if phase == "meaning":
        return [{"type": "answer", "choice": i} for i in (0, 1, 2, 3, None)]
    if phase == "move":
        start = state["positions"][seat]
        return [{"type": "move", "path": p} for p in legal_paths(start, state["turn"]["steps"])]
    if phase == "teleport":
        here = state["positions"][seat]
        return [{"type": "teleport", "to": t} for t in [*TELEPORTS, None] if t != here]
    moves = _base_actions(state, seat) if phase == "base" else _emperor_actions(state, seat)
    return moves + _end_turns(hand)


def _base_actions(state: State, seat: int) -> list[Command]:
    role = BASE_ROLE[state["positions"][seat]]
    hand, turn = state["hands"][seat], state["turn"]
    affordable = state["coins"][seat] >= price(state)
    moves: list[Command] = []
    if role == "TEACHER" and affordable:
        moves += [{"type": "study", "card": c} for c in hand if c not in state["studied"][seat]]
        if state["tasks"][seat] is not None and not state["task_viewed"][seat]:
            moves.append({"type": "view_task"})
    elif role == "GENERAL" and affordable:
        moves += [{"type": "blast", "block": b} for b in BLOCKS if b not in turn["blasted"]]
    elif role == "MINISTER":
        if affordable and state["deck"]:
            moves += [{"type": "minister_draw", "from": end} for end in ("top", "bottom")]
        if turn["pool"] is not None:
            moves += [{"type": "minister_resolve", "swaps": s} for s in _swap_sets(hand, turn["pool"])]
    elif role == "SPY" and affordable:
        moves += [{"type": "spy_swap", "own_card": own, "target": target, "target_card": theirs}
                  for own in hand
                  for target in range(state["players"]) if target != seat
                  for theirs in state["hands"][target]]
    return moves


def _swap_sets(hand: list[str], pool: list[str]) -> list[list[list[str]]]:
    out: list[list[list[str]]] = []
    for k in range(min(len(hand), len(pool)) + 1):
        for gives in combinations(hand, k):
            for takes in permutations(pool, k):
                out.append([[g, t] for g, t in zip(gives, takes, strict=True)])
    return out


def _emperor_actions(state: State, seat: int) -> list[Command]:
    if state["coins"][seat] < price(state):
        return []
    attached = state["attached"][seat]
    moves: list[Command] = [{"type": "detach", "card": c} for c in attached]
    if state["tasks"][seat] is None:
        return moves
    moves += [{"type": "attach", "card": c} for c in state["hands"][seat]]
    moves += [{"type": "declare", "order": order} for order in _orders(attached)]
    return moves


def _orders(attached: list[str]) -> list[list[str]]:
    if len(attached) <= FULL_DECLARE_ORDERS:
        return [list(p) for p in permutations(attached)]
    rotations = [attached[i:] + attached[:i] for i in range(len(attached))]
    return rotations + [list(reversed(r)) for r in rotations]


def _end_turns(hand: list[str]) -> list[Command]:
    surplus = max(0, len(hand) - HAND_SIZE)
    returns: list[Any] = [list(p) for p in permutations(hand, surplus)] if surplus else [[]]
    return [{"type": "end_turn", "return": r} for r in returns]
