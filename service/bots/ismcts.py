"""Information-set Monte Carlo tree search (single observer, Cowling, Powley & Whitehouse 2012),
written once against the game interface.

One tree for the bot's information set. Every iteration first samples a world the bot's seat
cannot tell from the real one (`Game.redeal` with keep={seat}: the hidden parts dealt again),
then walks the tree in that world: at each node only the moves legal in this world compete
(UCB with availability counts), chance is drawn afresh, a leaf gets a short random rollout
and the game's evaluation hint scores it (evaluation.rewards). Each node keeps the reward of
the seat that moved into it, so every seat plays for itself (max^n).

Large branching (Khan's ~2,000 tile placements, China's few hundred placements) is handled
generically, with no game named:

- progressive widening: a node considers at most WIDEN * visits^ALPHA of its moves, new ones
  let in as its visits grow, so the search goes deep instead of trying each move once;
- a one-ply look at the root: the root moves are scored by the evaluation hint one ply later
  in one sampled world, up to max(PRIOR_SAMPLE, iterations) of them and within PRIOR_SHARE
  of a time budget. The best are let in first (equal scores in random order), and each root
  child starts with PRIOR_VISITS virtual visits at its score, so the search starts from the
  greedy one-ply choice and moves away from it only on evidence;
- move grouping: the root look deals the moves round-robin by command type, so a look cut
  short by the clock has seen every kind of move (Khan's three conquests among 1,500 yurt
  placements). GROUPS = 1 also draws deeper expansions and rollout moves by type first
  (grouped_choice); it is off: with it Khan's rollouts and imagined opponents passed far
  too often (3 wins in 10 against greedy, bench/README.md). EXPAND_LOOK > 1 compares that
  many untried moves one ply ahead for the seat that moves (off: at 3 it cost China a third
  of its iterations and, in 20 matches against greedy, won no more).

Deterministic given the seed and an iteration budget; a time budget only caps the work (what
the iteration count turned out to be is reported with the move, so it can be re-run).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass

import orjson

from service.bots.evaluation import rewards
from service.bots.simple import determinize
from service.games.interface import Command, Game, IllegalMove, State, fold

EXPLORATION = 0.7
WIDEN = 2.0
ALPHA = 0.5
ROLLOUT_PLIES = 2
PRIOR_SAMPLE = 256     # root moves looked at one ply ahead, at least (at most the iteration budget, if larger)
PRIOR_SHARE = 0.3      # share of a time budget the root look may take
PRIOR_VISITS = 2.0     # what the root look's score is worth, in visits
EXPAND_LOOK = 1        # untried moves compared one ply ahead before a deeper node lets one in
GROUPS = 0             # 1: draw moves by command type first (grouped_choice) in expansions and rollouts


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
        self.visits = 0.0
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
    start = clock()
    deadline = None if budget.seconds is None else start + budget.seconds
    look_until = None if budget.seconds is None else start + PRIOR_SHARE * budget.seconds
    order = _root_look(game, state, seat, players, rng, by_key, root, max(PRIOR_SAMPLE, budget.iterations),
                       clock, look_until)
    done = 0
    while done < budget.iterations and (deadline is None or clock() < deadline):
        _iterate(game, determinize(game, state, seat, rng), seat, players, root, rng, by_key, order)
        done += 1
    visited = [(child.visits, child.reward / max(1.0, child.visits), k) for k, child in root.children.items() if k in by_key]
    if not visited:
        return Choice(rng.choice(root_moves), done, 0)
    visits, _, best = max(visited)
    return Choice(by_key[best], done, int(visits))


def _one_ply(game: Game, world: State, actor: int, players: int, command: Command, rng: random.Random) -> float | None:
    """`actor`'s reward (evaluation.rewards) right after `command` in `world`; None if illegal there."""
    try:
        after = fold(game, game.decide(world, actor, command, random.Random(rng.random())), world)
    except IllegalMove:
        return None
    return rewards(game, after, players)[actor]


def _root_look(game: Game, state: State, seat: int, players: int, rng: random.Random,
               by_key: dict[bytes, Command], root: Node, most: int, clock: Callable[[], float],
               until: float | None) -> list[bytes]:
    """Score up to `most` root moves one ply ahead in one sampled world (fewer if the clock
    reaches `until`), seed the root's children with the scores (PRIOR_VISITS virtual visits
    each) and return the order to let moves in: best first, then the moves not looked at."""
    keys = _grouped_order(list(by_key), by_key, rng)
    # Equal scores are let in at random, not in the look's order: where the hint cannot tell
    # moves apart (Khan before any conquest), a lone `pass` must not come in among the first.
    tiebreak = {k: i for i, k in enumerate(rng.sample(keys, len(keys)))}
    world = determinize(game, state, seat, rng)
    looked: list[tuple[float, int, bytes]] = []
    for i, k in enumerate(keys):
        if i >= most or until is not None and i >= 8 and clock() >= until:
            break
        value = _one_ply(game, world, seat, players, by_key[k], rng)
        if value is not None:
            looked.append((-value, tiebreak[k], k))
    looked.sort()
    for value, _, k in looked:
        child = Node(seat)
        child.visits = PRIOR_VISITS
        child.reward = -value * PRIOR_VISITS
        root.children[k] = child
    first = [k for _, _, k in looked]
    seen = set(first)
    return first + [k for k in keys if k not in seen]


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
        room = WIDEN * (node.visits + 1) ** ALPHA
        if node is root:
            # The looked-at children are there from the start: widening bounds how many of
            # the moves compete, in the root look's order (best first).
            competing = [k for k in order[:max(1, int(room))] if k in moves] or list(moves)
            fresh = [k for k in competing if k not in node.children]
            if fresh:
                k = fresh[0]
                node.children[k] = Node(actor)
                expanded = True
            else:
                k = _select(node, competing)
            for p in competing:
                node.children[p].avail += 1
        else:
            present = [k for k in moves if k in node.children]
            untried = [k for k in moves if k not in node.children]
            if untried and len(present) < room:
                k = _pick_untried(game, state, actor, players, moves, untried, rng)
                node.children[k] = Node(actor)
                node.children[k].avail += 1
                expanded = True
            else:
                k = _select(node, present)
            for p in present:
                node.children[p].avail += 1
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


def grouped_choice(items: list[Command], rng: random.Random) -> Command:
    """A move drawn by kind: a command `type` uniformly among those present, then a move of
    that type. Move grouping, generic: 1,500 ways to place a yurt do not drown the three
    conquests and the pass of the same turn, in the tree's expansions and in rollouts."""
    groups: dict[object, list[Command]] = {}
    for m in items:
        groups.setdefault(m.get("type"), []).append(m)
    if len(groups) == 1:
        return rng.choice(items)
    return rng.choice(groups[rng.choice(sorted(groups, key=str))])


def _grouped_order(keys: list[bytes], by_key: dict[bytes, Command], rng: random.Random) -> list[bytes]:
    """The moves shuffled, then dealt round-robin by command type: a look cut short by the
    clock has still seen every kind of move."""
    groups: dict[object, list[bytes]] = {}
    for k in keys:
        groups.setdefault(by_key[k].get("type"), []).append(k)
    lists = [groups[t] for t in sorted(groups, key=str)]
    for g in lists:
        rng.shuffle(g)
    return [k for i in range(max(map(len, lists))) for g in lists if i < len(g) for k in (g[i],)]


def _pick_untried(game: Game, state: State, actor: int, players: int, moves: dict[bytes, Command],
                  untried: list[bytes], rng: random.Random) -> bytes:
    """The untried move to let in: drawn by kind (grouped_choice); with EXPAND_LOOK > 1, the
    best for `actor` one ply ahead among that many such draws."""
    if GROUPS:
        draws = [key(grouped_choice([moves[k] for k in untried], rng)) for _ in range(max(1, EXPAND_LOOK))]
        candidates = list(dict.fromkeys(draws))
    else:
        candidates = rng.sample(untried, min(max(1, EXPAND_LOOK), len(untried)))
    if len(candidates) == 1:
        return candidates[0]
    best, best_value = candidates[0], -1.0
    for k in candidates:
        value = _one_ply(game, state, actor, players, moves[k], rng)
        if value is not None and value > best_value:
            best, best_value = k, value
    return best


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
        move = grouped_choice(moves, rng) if GROUPS else rng.choice(moves)
        try:
            state = fold(game, game.decide(state, actor, move, random.Random(rng.random())), state)
        except IllegalMove:
            break
    return state
