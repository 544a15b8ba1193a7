"""Opponent modelling in the ISMCTS tree (service/bots/ismcts.py, OPPONENT_MODEL), in every
game at its minimum and maximum player counts:

- with it on (in matches of at least OPPONENT_MODEL_PLAYERS players), the tree holds nodes only at the searching seat's own decisions (the other seats'
  moves are played by the policy, not let in), and it still reaches the seat's next decision;
  with it off, the other seats' moves are nodes (so the first check can fail);
- the policy plays only legal moves, for every seat, at random (k = 1) and one ply ahead;
- the no-peeking guarantee holds with it on: a state whose hidden parts were scrambled is
  searched to the same move, in the same number of iterations (deterministic given the seed).
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from service.bots import ismcts
from service.bots.ismcts import Budget, Node, grow, key, search
from service.games import GAMES, get_game
from service.games.playout import playout
from tests.bots.test_bots import _positions
from tests.support.hidden_parts import scramble

CASES = [(gid, n) for gid in GAMES for n in sorted({get_game(gid).min_players, get_game(gid).max_players})]
IDS = [f"{g}-{n}p" for g, n in CASES]


def _below(root: Node) -> Iterator[tuple[Node, int]]:
    """Every node under the root, with its depth (the root's children are at 1)."""
    stack = [(child, 1) for child in root.children.values()]
    while stack:
        node, depth = stack.pop()
        yield node, depth
        stack.extend((child, depth + 1) for child in node.children.values())


def _tree(game_id: str, players: int, iterations: int = 60) -> Iterator[tuple[int, Node]]:
    g = get_game(game_id)
    for k, (state, seat) in enumerate(_positions(game_id, players, 3)):
        by_key = {key(m): m for m in g.legal_moves(state, seat)}
        root, done = grow(g, state, seat, players, random.Random(k), Budget(iterations=iterations), by_key)
        assert done == iterations
        yield seat, root


@pytest.mark.parametrize("game_id,players", CASES, ids=IDS)
def test_with_opponent_model_the_tree_holds_only_the_bots_own_decisions(game_id, players, monkeypatch):
    monkeypatch.setattr(ismcts, "OPPONENT_MODEL", 3)
    deepest = 0
    for seat, root in _tree(game_id, players):
        for node, depth in _below(root):
            assert node.seat == seat, "another seat's move was let into the tree"
            deepest = max(deepest, depth)
    assert deepest >= 2, "the tree never reached the seat's next decision"


@pytest.mark.parametrize("game_id", GAMES)
def test_without_opponent_model_the_other_seats_moves_are_nodes(game_id, monkeypatch):
    monkeypatch.setattr(ismcts, "OPPONENT_MODEL", 0)
    g = get_game(game_id)
    seats = {node.seat for seat, root in _tree(game_id, g.max_players) for node, _ in _below(root)}
    assert len(seats) > 1


@pytest.mark.parametrize("game_id", GAMES)
def test_opponent_model_applies_only_from_opponent_model_players(game_id, monkeypatch):
    monkeypatch.setattr(ismcts, "OPPONENT_MODEL", 3)
    g = get_game(game_id)
    monkeypatch.setattr(ismcts, "OPPONENT_MODEL_PLAYERS", g.max_players + 1)
    seats = {node.seat for seat, root in _tree(game_id, g.max_players) for node, _ in _below(root)}
    assert len(seats) > 1, "below OPPONENT_MODEL_PLAYERS the other seats' moves are nodes"
    monkeypatch.setattr(ismcts, "OPPONENT_MODEL_PLAYERS", g.max_players)
    for seat, root in _tree(game_id, g.max_players):
        assert {node.seat for node, _ in _below(root)} == {seat}


@pytest.mark.parametrize("game_id,players", CASES, ids=IDS)
@pytest.mark.parametrize("k", [1, 3, 1000])
def test_opponent_policy_plays_only_legal_moves(game_id, players, k, monkeypatch):
    monkeypatch.setattr(ismcts, "OPPONENT_MODEL", k)
    g = get_game(game_id)
    steps = [st for st in playout(g, players, f"opponents-{game_id}-{players}") if st.seat is not None]
    rng = random.Random(k)
    for st in steps[:: max(1, len(steps) // 25)]:
        played = ismcts._opponent_move(g, st.before, st.seat, players, rng)
        assert played is not None
        command, after, width = played
        legal = g.legal_moves(st.before, st.seat)
        assert command in legal and width == len(legal)
        assert after is not st.before


@pytest.mark.parametrize("game_id,players", CASES, ids=IDS)
def test_no_peeking_with_opponent_model(game_id, players, monkeypatch):
    monkeypatch.setattr(ismcts, "OPPONENT_MODEL", 3)
    g = get_game(game_id)
    for k, (state, seat) in enumerate(_positions(game_id, players, 4)):
        scrambled = scramble(game_id, state, frozenset({seat}), random.Random(70 + k))
        real = search(g, state, seat, players, random.Random(k), Budget(iterations=24))
        fake = search(g, scrambled, seat, players, random.Random(k), Budget(iterations=24))
        assert real.command == fake.command and real.iterations == fake.iterations == 24
        assert search(g, state, seat, players, random.Random(k), Budget(iterations=24)) == real
