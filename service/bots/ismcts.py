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
added as its visits grow, so the search goes deep instead of trying each move once. At the
root, the order in which moves are let in comes from a one-ply look (the evaluation hint after
each of up to PRIOR_SAMPLE moves, in one sampled world), best first; deeper, it is random.

Deterministic given the seed and an iteration budget; a time budget only caps the work (what
the iteration count turned out to be is reported with the move, so it can be re-run).
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass

import orjson

from service.bots.evaluation import lead, rewards, scores
from service.bots.simple import determinize
from service.games.interface import Command, Game, IllegalMove, State, fold

EXPLORATION = 0.7
WIDEN = 2.0
ALPHA = 0.5
ROLLOUT_PLIES = 2
PRIOR_SAMPLE = 48


@dataclass
class Budget:
    iterations: int = 200
    seconds: float | None = None
    # Count the seconds in this process's CPU time rather than on the wall clock: on a shared
    # machine, 200 ms of CPU is the same search whatever else runs.
    cpu: bool = False


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
    clock = time.process_time if budget.cpu else time.monotonic
    deadline = None if budget.seconds is None else clock() + budget.seconds
    order = _root_order(game, state, seat, players, rng, list(by_key), budget)
    done = 0
    while done < budget.iterations and (deadline is None or clock() < deadline):
        _iterate(game, determinize(game, state, seat, rng), seat, players, root, rng, by_key, order)
        done += 1
    visited = [(child.visits, child.reward / max(1, child.visits), k) for k, child in root.children.items() if k in by_key]
    if not visited:
        return Choice(rng.choice(root_moves), done, 0)
    visits, _, best = max(visited)
    return Choice(by_key[best], done, visits)


def _root_order(game: Game, state: State, seat: int, players: int, rng: random.Random,
                keys: list[bytes], budget: Budget) -> list[bytes]:
    """The order in which the root lets its moves in: when widening will leave some out, the
    best-looking of a sample after one ply first, then the rest at random."""
    rng.shuffle(keys)
    if len(keys) <= WIDEN * (budget.iterations + 1) ** ALPHA and budget.seconds is None:
        return keys
    world = determinize(game, state, seat, rng)
    moves = {key(m): m for m in game.legal_moves(world, seat)}
    looked: list[tuple[float, int, bytes]] = []
    for i, k in enumerate(keys[:PRIOR_SAMPLE]):
        try:
            after = fold(game, game.decide(world, seat, moves[k], random.Random(rng.random())), world)
        except (IllegalMove, KeyError):
            continue
        looked.append((-lead(scores(game, after, players), seat), i, k))
    looked.sort()
    first = [k for _, _, k in looked]
    return first + [k for k in keys if k not in set(first)]


def _iterate(game: Game, world: State, seat: int, players: int, root: Node, rng: random.Random,
             root_moves: dict[bytes, Command], order: list[bytes]) -> None:
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
            k = next(k for k in order if k not in node.children) if node is root else rng.choice(untried)
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
