"""Information-set Monte Carlo tree search (single observer, Cowling, Powley & Whitehouse 2012),
written once against the game interface.

One tree for the bot's information set. Every iteration first samples a world the bot's seat
cannot tell from the real one (`Game.redeal` with keep={seat}: the hidden parts dealt again),
then walks the tree in that world: at each node only the moves legal in this world compete
(UCB with availability counts), chance is drawn afresh, a leaf gets a short random rollout
and the game's evaluation hint scores it (evaluation.rewards). Each node keeps the reward of
the seat that moved into it, so every seat plays for itself (max^n).

Huge branching (Khan's ~2,000 tile placements, China's few hundred placements) gets
progressive widening: a node considers at most WIDEN * visits^ALPHA of its moves, new ones
added as its visits grow, so the search goes deep instead of trying each move once.

Deterministic given the seed and an iteration budget; a time budget only caps the work (what
the iteration count turned out to be is reported with the move, so it can be re-run).
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass

import orjson

from service.bots.evaluation import rewards
from service.bots.simple import determinize
from service.games.interface import Command, Game, IllegalMove, State, fold

EXPLORATION = 0.7
WIDEN = 2.0
ALPHA = 0.5
ROLLOUT_PLIES = 2


@dataclass
class Budget:
    iterations: int = 200
    seconds: float | None = None


class Node:
    __slots__ = ("avail", "children", "reward", "seat", "visits")

    def __init__(self, seat: int | None) -> None:
        self.seat = seat              # who moved into this node
        self.children: dict[bytes, Node] = {}
        self.visits = 0
        self.avail = 0
        self.reward = 0.0


@dataclass
class Choice:
    command: Command
    iterations: int
    visits: int


def key(command: Command) -> bytes:
    return orjson.dumps(command, option=orjson.OPT_SORT_KEYS)


def search(game: Game, state: State, seat: int, players: int, rng: random.Random, budget: Budget) -> Choice:
    root_moves = game.legal_moves(state, seat)
    by_key = {key(m): m for m in root_moves}
    if len(by_key) == 1:
        return Choice(root_moves[0], 0, 0)
    root = Node(None)
    deadline = None if budget.seconds is None else time.monotonic() + budget.seconds
    done = 0
    while done < budget.iterations and (deadline is None or time.monotonic() < deadline):
        _iterate(game, determinize(game, state, seat, rng), seat, players, root, rng, by_key)
        done += 1
    visited = [(child.visits, child.reward / max(1, child.visits), k) for k, child in root.children.items() if k in by_key]
    if not visited:
        return Choice(rng.choice(root_moves), done, 0)
    visits, _, best = max(visited)
    return Choice(by_key[best], done, visits)


def _iterate(game: Game, world: State, seat: int, players: int, root: Node, rng: random.Random,
             root_moves: dict[bytes, Command]) -> None:
    path = [root]
    node = root
    state = world
    expanded = False
    while not expanded:
        status = game.status(state)
        if status["finished"] or not status["to_act"]:
            break
        if node is root:
            # The seat's own moves are part of what it sees: the same in every world.
            actor, moves = seat, root_moves
        else:
            actor = status["to_act"][0]
            moves = {key(m): m for m in game.legal_moves(state, actor)}
        if not moves:
            break
        present = [k for k in moves if k in node.children]
        room = WIDEN * (node.visits + 1) ** ALPHA
        untried = [k for k in moves if k not in node.children]
        if untried and len(present) < room:
            k = rng.choice(untried)
            node.children[k] = Node(actor)
            expanded = True
        else:
            k = _select(node, present)
        for p in present:
            node.children[p].avail += 1
        if expanded:
            node.children[k].avail += 1
        try:
            state = fold(game, game.decide(state, actor, moves[k], random.Random(rng.random())), state)
        except IllegalMove:
            del node.children[k]
            return
        node = node.children[k]
        path.append(node)
    state = _rollout(game, state, rng)
    reward = rewards(game, state, players)
    for n in path:
        n.visits += 1
        if n.seat is not None:
            n.reward += reward[n.seat]


def _select(node: Node, keys: list[bytes]) -> bytes:
    best, best_value = keys[0], -1.0
    for k in keys:
        child = node.children[k]
        value = child.reward / child.visits + EXPLORATION * math.sqrt(math.log(max(1, child.avail)) / child.visits) \
            if child.visits else float("inf")
        if value > best_value:
            best, best_value = k, value
    return best


def _rollout(game: Game, state: State, rng: random.Random) -> State:
    for _ in range(ROLLOUT_PLIES):
        status = game.status(state)
        if status["finished"] or not status["to_act"]:
            break
        actor = rng.choice(status["to_act"])
        moves = game.legal_moves(state, actor)
        if not moves:
            break
        try:
            state = fold(game, game.decide(state, actor, rng.choice(moves), random.Random(rng.random())), state)
        except IllegalMove:
            break
    return state
