"""Information-set Monte Carlo tree search (single observer, Cowling, Powley & Whitehouse 2012),
written once against the game interface.

One tree for the bot's information set. Every iteration first samples a world the bot's seat
cannot tell from the real one (`Game.redeal` with keep={seat}: the hidden parts dealt again),
then walks the tree in that world: at each node only the moves legal in this world compete
(UCB with availability counts), chance is drawn afresh, a leaf gets a short random rollout
(ROLLOUT_PLIES; none where a move list on the tree path or in the rollout is longer than
ROLLOUT_MAX_MOVES: there the rollout costs most of an iteration and tells little) and the
game's evaluation hint scores it (evaluation.rewards). ROLLOUT_HORIZON can end the rollout at
a turn boundary instead (TURN, ROUND: `_rollout`); measured in all five games against the
fixed two plies and not kept (bench/notes/bots.md, "a rollout to the turn boundary"). Each node
keeps the reward of the seat that moved into it, so every seat plays for itself (max^n).

Large branching (Khan's ~2,000 tile placements, China's few hundred placements) is handled
generically, with no game named:

- progressive widening: a node considers at most WIDEN * visits^ALPHA of its moves, new ones
  let in as its visits grow, so the search goes deep instead of trying each move once.
  Below the root the move list is built only to let a move in (one drawn at random, not
  every move keyed); otherwise the moves already in the tree are replayed best first by UCB,
  skipping any this world refuses (another hand): Khan went from ~60 to ~190 iterations;
- a one-ply look at the root: the root moves are scored by the evaluation hint one ply later
  in one sampled world, up to max(PRIOR_SAMPLE, iterations) of them and within PRIOR_SHARE
  of a time budget. The best are let in first (equal scores in random order), and each root
  child starts with PRIOR_VISITS virtual visits at its score, so the search starts from the
  greedy one-ply choice and moves away from it only on evidence;
- move grouping: the root look deals the moves round-robin by command type, so a look cut
  short by the clock has seen every kind of move (Khan's three conquests among 1,500 yurt
  placements). GROUPS = 1 also draws deeper expansions and rollout moves by type first
  (grouped_choice); it is off: with it Khan's rollouts and imagined opponents passed far
  too often (bench/notes/bots.md). EXPAND_LOOK > 1 compares that
  many untried moves one ply ahead for the seat that moves (off: it costs iterations and, against greedy, won no more).

Opponent modelling (OPPONENT_MODEL, off): below the root the other seats' moves are not tree
nodes but played by a fixed cheap policy, the best for the seat that moves of OPPONENT_MODEL
moves drawn at random, judged one ply ahead by the hint (1: a random move), in matches of at
least OPPONENT_MODEL_PLAYERS players (generic: by player count, no game named). The tree then
branches only on the bot's own decisions, its nodes are information sets of the bot after
the opponents' answers (what they played is treated like chance), and an iteration reaches the
bot's next move instead of spending itself among four opponents' replies at 5 players.
Measured and left off (bench/bots_strength.py; bench/notes/bots.md, "opponents played by a cheap
policy"): no better in China or Chinese Squared, worse in Khan (fewer iterations); better only in
Pixies at 5 players with a larger k, not yet checked in the other 5-player cells.

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
from service.games.chance import lazy_rng
from service.games.interface import Command, Game, IllegalMove, State, fold

EXPLORATION = 0.7
WIDEN = 2.0
ALPHA = 0.5
ROLLOUT_PLIES = 2      # random plies before the hint judges a leaf, with ROLLOUT_HORIZON = PLIES
# Where a rollout stops and the hint judges the leaf (see _rollout):
PLIES, TURN, ROUND = 0, 1, 2
ROLLOUT_HORIZON = PLIES  # TURN and ROUND were no stronger anywhere, weaker in Chinese Squared
ROLLOUT_CAP = 12       # random plies at most with a TURN or ROUND horizon
PRIOR_SAMPLE = 256     # root moves looked at one ply ahead, at least (at most the iteration budget, if larger)
PRIOR_SHARE = 0.3      # share of a time budget the root look may take
PRIOR_VISITS = 2.0     # what the root look's score is worth, in visits
EXPAND_LOOK = 1        # untried moves compared one ply ahead before a deeper node lets one in
GROUPS = 0             # 1: draw moves by command type first (grouped_choice) in expansions and rollouts
UNTRIED_DRAWS = 8      # random draws to find a move not yet in a node, before listing what is left
FEW_MOVES = 500        # a move list this short is listed and keyed at every visit (exact availability)
ROLLOUT_MAX_MOVES = 1000  # no rollout (or no further ply) where a move list on the way was longer
# Who plays the other seats' moves below the root (see _opponent_move):
OPPONENT_MODEL = 0     # 0: they are tree nodes like the bot's own; k >= 1: the best of k random moves one ply ahead, no node
OPPONENT_MODEL_PLAYERS = 2  # ... in matches of at least this many players (below it the opponents are nodes)


@dataclass
class Budget:
    iterations: int = 200
    seconds: float | None = None
    # Count the seconds in this process's CPU time rather than on the wall clock: on a shared
    # machine, 200 ms of CPU is the same search whatever else runs.
    cpu: bool = False


class Node:
    __slots__ = ("avail", "children", "command", "reward", "seat", "visits", "width")

    def __init__(self, seat: int | None, command: Command | None = None) -> None:
        self.seat = seat              # who moved into this node
        self.command = command        # the move that led here, replayed as is below the root
        self.children: dict[bytes, Node] = {}
        self.width = 0                # how many moves the mover had when last listed here
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
    root, done = grow(game, state, seat, players, rng, budget, by_key)
    visited = [(child.visits, child.reward / max(1.0, child.visits), k) for k, child in root.children.items() if k in by_key]
    if not visited:
        return Choice(rng.choice(root_moves), done, 0)
    visits, _, best = max(visited)
    return Choice(by_key[best], done, int(visits))


def grow(game: Game, state: State, seat: int, players: int, rng: random.Random, budget: Budget,
         by_key: dict[bytes, Command]) -> tuple[Node, int]:
    """The search tree for `seat` over its root moves `by_key`, and the iterations it took."""
    root = Node(None)
    root.width = len(by_key)
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
    return root, done


def _one_ply(game: Game, world: State, actor: int, players: int, command: Command, rng: random.Random) -> float | None:
    """`actor`'s reward (evaluation.rewards) right after `command` in `world`; None if illegal there."""
    try:
        after = fold(game, game.decide(world, actor, command, lazy_rng(rng.random())), world)
    except IllegalMove:
        return None
    return rewards(game, after, players)[actor]


def one_ply_look(game: Game, state: State, seat: int, players: int, rng: random.Random,
                 by_key: dict[bytes, Command], most: int, clock: Callable[[], float],
                 until: float | None) -> tuple[list[tuple[float, bytes]], list[bytes]]:
    """Up to `most` of the seat's moves scored one ply ahead in one sampled world (fewer if the
    clock reaches `until`): (score, key) best first, and every key in the order looked at (dealt
    by command type, so a look cut short by the clock has seen every kind of move)."""
    keys = grouped_order(list(by_key), by_key, rng)
    # Equal scores come out at random, not in the look's order: where the hint cannot tell
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
    return [(-value, k) for value, _, k in looked], keys


def _root_look(game: Game, state: State, seat: int, players: int, rng: random.Random,
               by_key: dict[bytes, Command], root: Node, most: int, clock: Callable[[], float],
               until: float | None) -> list[bytes]:
    """The one-ply look at the root moves (one_ply_look); seed the root's children with its
    scores (PRIOR_VISITS virtual visits each) and return the order to let moves in: best
    first, then the moves not looked at."""
    looked, keys = one_ply_look(game, state, seat, players, rng, by_key, most, clock, until)
    for value, k in looked:
        child = Node(seat)
        child.visits = PRIOR_VISITS
        child.reward = value * PRIOR_VISITS
        root.children[k] = child
    first = [k for _, k in looked]
    seen = set(first)
    return first + [k for k in keys if k not in seen]


def _iterate(game: Game, world: State, seat: int, players: int, root: Node, rng: random.Random,
             root_moves: dict[bytes, Command], order: list[bytes]) -> None:
    path = [root]
    node = root
    state = world
    mover: int | None = None  # who moved last on the way down
    widest = 0  # the longest move list the opponent policy drew from on the way down
    expanded = 0  # once a node is let in: how many moves it was let in among
    while not expanded:
        status = game.status(state)
        if status["finished"] or not status["to_act"]:
            break
        actor = status["to_act"][0]
        if OPPONENT_MODEL and players >= OPPONENT_MODEL_PLAYERS and node is not root and actor != seat:
            played = _opponent_move(game, state, actor, players, rng)
            if played is None:
                break
            _, state, width = played
            widest, mover = max(widest, width), actor
            continue
        if node is root:
            # The seat's own moves are part of what it sees: the same in every world.
            k, fresh = _root_choice(root, seat, root_moves, order)
            expanded = len(root_moves) if fresh else 0
            after = apply_move(game, state, seat, root_moves[k], rng)
            if after is None:
                del root.children[k]
                return
            child = root.children[k]
        else:
            step = _inner_step(game, state, actor, players, node, rng)
            if step is None:
                break
            child, after, expanded = step
        node, state, mover = child, after, child.seat
        path.append(node)
    if max(expanded, widest, *(n.width for n in path)) <= ROLLOUT_MAX_MOVES:
        # Past that, one random move among thousands says little and listing them costs
        # most of an iteration (Khan: ~60 iterations a move with rollouts, ~190 without).
        state = _rollout(game, state, rng, mover, seat)
    reward = rewards(game, state, players)
    for n in path:
        n.visits += 1
        if n.seat is not None:
            n.reward += reward[n.seat]


def _opponent_move(game: Game, state: State, actor: int, players: int,
                   rng: random.Random) -> tuple[Command, State, int] | None:
    """The move another seat plays below the root with OPPONENT_MODEL = k >= 1, the world after
    it, and how many moves it had: of k of its legal moves drawn at random (all, if it has no
    more), the best for `actor` one ply ahead by the hint (evaluation.rewards), ties to the
    earlier drawn; k = 1 is a random move. None where it has no move the world accepts.

    The one-ply look keeps the world it judged (its chance included) as the world after the
    move, so the policy costs k plies' work and no more; the greedy bot (simple.greedy_move)
    judges the same way, in one sampled world."""
    moves = game.legal_moves(state, actor)
    if not moves:
        return None
    drawn = rng.sample(moves, min(len(moves), max(1, int(OPPONENT_MODEL))))
    best: tuple[Command, State, int] | None = None
    best_value = -1.0
    for m in drawn:
        after = apply_move(game, state, actor, m, rng)
        if after is None:
            continue
        if len(drawn) == 1:
            return m, after, len(moves)
        value = rewards(game, after, players)[actor]
        if value > best_value:
            best, best_value = (m, after, len(moves)), value
    return best


def _root_choice(root: Node, seat: int, moves: dict[bytes, Command], order: list[bytes]) -> tuple[bytes, bool]:
    """The root move to play in this iteration, and whether it is new to the tree. The
    looked-at children are there from the start: widening bounds how many of the moves
    compete, in the root look's order (best first)."""
    room = WIDEN * (root.visits + 1) ** ALPHA
    competing = order[:max(1, int(room))] or list(moves)
    fresh = [k for k in competing if k not in root.children]
    if fresh:
        k = fresh[0]
        root.children[k] = Node(seat, moves[k])
    for p in competing:
        root.children[p].avail += 1
    return (fresh[0], True) if fresh else (_select(root, competing), False)


def _inner_step(game: Game, state: State, actor: int, players: int, node: Node,
                rng: random.Random) -> tuple[Node, State, int] | None:
    """One step below the root: let a new move in while progressive widening allows, else
    pick among the moves already in the tree by UCB. The int returned is how many moves a new
    node was let in among (0: no new node).

    A short move list (up to FEW_MOVES) is listed and keyed at every visit, so exactly this
    world's legal moves compete. A long one (Khan's ~2,000 placements) is built only to let a
    move in, drawn at random; otherwise the moves in the tree are tried best first by UCB,
    skipping those this world refuses (another hand, another draw)."""
    room = WIDEN * (node.visits + 1) ** ALPHA
    moves: list[Command] | None = None
    if node.width <= FEW_MOVES or len(node.children) < room:
        moves = game.legal_moves(state, actor)
        node.width = len(moves)
        if not moves:
            return None
        if node.width <= FEW_MOVES:
            return _listed_step(game, state, actor, players, node, moves, room, rng)
        drawn = _draw_untried(moves, node.children, rng)
        if drawn:
            return _let_in(game, state, actor, players, node, drawn, len(moves), rng)
    illegal: set[bytes] = set()
    while len(illegal) < len(node.children):
        candidates = [k for k in node.children if k not in illegal]
        k = _select(node, candidates)
        child = node.children[k]
        assert child.command is not None  # every node below the root records its move
        after = apply_move(game, state, actor, child.command, rng)
        if after is not None:
            # Availability: the moves not found illegal here count as offered in this world.
            for p in candidates:
                node.children[p].avail += 1
            return child, after, 0
        illegal.add(k)
    if moves is None:
        moves = game.legal_moves(state, actor)
    drawn = _draw_untried(moves, node.children, rng)
    return _let_in(game, state, actor, players, node, drawn, len(moves), rng) if drawn else None


def _listed_step(game: Game, state: State, actor: int, players: int, node: Node, moves: list[Command],
                 room: float, rng: random.Random) -> tuple[Node, State, int] | None:
    keyed = {key(m): m for m in moves}
    present = [k for k in keyed if k in node.children]
    untried = [k for k in keyed if k not in node.children]
    for p in present:
        node.children[p].avail += 1
    if untried and len(present) < room:
        return _let_in(game, state, actor, players, node, _draw([keyed[k] for k in untried], rng), len(moves), rng)
    k = _select(node, present)
    after = apply_move(game, state, actor, keyed[k], rng)
    if after is None:
        del node.children[k]
        return None
    return node.children[k], after, 0


def _draw_untried(moves: list[Command], children: dict[bytes, Node], rng: random.Random) -> dict[bytes, Command]:
    """Up to max(1, EXPAND_LOOK) moves not yet in `children`, drawn at random (by kind first
    with GROUPS): drawing, not keying the whole list, spares keying ~2,000 moves."""
    want = max(1, EXPAND_LOOK)
    drawn: dict[bytes, Command] = {}
    for _ in range(UNTRIED_DRAWS * want):
        m = grouped_choice(moves, rng) if GROUPS else rng.choice(moves)
        k = key(m)
        if k not in children:
            drawn.setdefault(k, m)
            if len(drawn) >= want:
                return drawn
    if not drawn:
        # Nearly every move is in already: find the rest the long way.
        rest = [m for m in moves if key(m) not in children]
        return _draw(rest, rng) if rest else {}
    return drawn


def _draw(moves: list[Command], rng: random.Random) -> dict[bytes, Command]:
    """max(1, EXPAND_LOOK) draws from `moves` (by kind first with GROUPS), by key."""
    drawn = (grouped_choice(moves, rng) if GROUPS else rng.choice(moves) for _ in range(max(1, EXPAND_LOOK)))
    return {key(m): m for m in drawn}


def _let_in(game: Game, state: State, actor: int, players: int, node: Node, drawn: dict[bytes, Command],
            width: int, rng: random.Random) -> tuple[Node, State, int] | None:
    """Add one of the drawn moves to the tree (with EXPAND_LOOK > 1 the best for `actor` one
    ply ahead) and step into it."""
    k, command = next(iter(drawn.items()))
    if len(drawn) > 1:
        best_value = -1.0
        for dk, m in drawn.items():
            value = _one_ply(game, state, actor, players, m, rng)
            if value is not None and value > best_value:
                k, command, best_value = dk, m, value
    after = apply_move(game, state, actor, command, rng)
    if after is None:
        return None
    if width > FEW_MOVES:
        for p in node.children.values():
            p.avail += 1
    child = Node(actor, command)
    child.avail = 1
    node.children[k] = child
    return child, after, width


def apply_move(game: Game, state: State, actor: int, command: Command, rng: random.Random) -> State | None:
    """The world after `actor` gives `command` (chance drawn afresh); None if illegal there."""
    try:
        return fold(game, game.decide(state, actor, command, lazy_rng(rng.random())), state)
    except IllegalMove:
        return None


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


def grouped_order(keys: list[bytes], by_key: dict[bytes, Command], rng: random.Random) -> list[bytes]:
    """The moves shuffled, then dealt round-robin by command type: a look cut short by the
    clock has still seen every kind of move."""
    groups: dict[object, list[bytes]] = {}
    for k in keys:
        groups.setdefault(by_key[k].get("type"), []).append(k)
    lists = [groups[t] for t in sorted(groups, key=str)]
    for g in lists:
        rng.shuffle(g)
    return [k for i in range(max(map(len, lists))) for g in lists if i < len(g) for k in (g[i],)]


def _select(node: Node, keys: list[bytes]) -> bytes:
    best, best_value = keys[0], -1.0
    for k in keys:
        child = node.children[k]
        value = child.reward / child.visits + EXPLORATION * math.sqrt(math.log(max(1, child.avail)) / child.visits) \
            if child.visits else float("inf")
        if value > best_value:
            best, best_value = k, value
    return best


def _rollout(game: Game, state: State, rng: random.Random, mover: int | None, seat: int) -> State:
    """Random plies from a leaf that `mover` moved into, until the horizon (ROLLOUT_HORIZON):

    - PLIES: ROLLOUT_PLIES plies, wherever in a turn they end;
    - TURN: until a turn boundary, a state where the seat to act is not the one that moved
      last (none if the leaf is at one already);
    - ROUND: until a turn boundary at which `seat` (the searching bot) is to act, i.e. every
      other seat has answered.

    A fixed ply count ends at different points of a turn: in a game where a turn is several
    commands of one seat (a placement, then one to three card takes) two plies mostly end
    inside the seat's own turn, and a move that needs one more command of that turn is judged
    earlier than one that needs fewer. A turn boundary is the same point in every game, read
    from `status` alone. TURN and ROUND stop after ROLLOUT_CAP plies at the most."""
    last = mover
    for _ in range(ROLLOUT_PLIES if ROLLOUT_HORIZON == PLIES else ROLLOUT_CAP):
        status = game.status(state)
        if status["finished"] or not status["to_act"]:
            break
        actor = rng.choice(status["to_act"])
        if ROLLOUT_HORIZON != PLIES and last is not None and actor != last \
                and (ROLLOUT_HORIZON == TURN or actor == seat):
            break
        moves = game.legal_moves(state, actor)
        if not moves or len(moves) > ROLLOUT_MAX_MOVES:
            break
        move = grouped_choice(moves, rng) if GROUPS else rng.choice(moves)
        try:
            state = fold(game, game.decide(state, actor, move, lazy_rng(rng.random())), state)
        except IllegalMove:
            break
        last = actor
    return state
