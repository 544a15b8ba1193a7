"""Determinized policy rollouts: improve on the greedy policy by playing it out (the rollout
algorithm of Tesauro & Galperin 1996 and Bertsekas, with the worlds of ISMCTS's determinization),
written once against the game interface.

The root moves are looked at one ply ahead in one sampled world (as the greedy bot judges),
and the CANDIDATES best go on. Then, world after world until the budget ends: a world the bot's
seat cannot tell from the real one is dealt (`Game.redeal` with keep={seat}), each candidate is
played in it, and from there every seat, the bot included, plays the greedy bot's move
(simple.greedy_move: the best lead one ply ahead by the evaluation hint, judged in a world
re-dealt from what that seat sees) until the bot is to act again at a turn boundary; there the
bot plays its greedy move once more (HORIZON_PLY) and the hint judges the end
(evaluation.rewards). The candidate with the best total wins.

Why the bot's own next move: much of a move's worth is what it lets the bot do next, which the
hint cannot see in a hand or a position (China: a card taken is worth the placement it pays
for next turn; the hint sees a hand only where it pays for two pieces). The greedy move at the
horizon shows it, with no further round of answers to scatter the ends (bench/bots_strength.py;
bench/notes/bots.md, "The bot's own move at the horizon").

Every candidate of one world plays from the same world, and ply k of every playout draws from
a generator seeded by (the world's stream, k) (common random numbers): the candidates meet the
same chance and the same re-deals as far as they let them, so the comparison is of what they
do more than of the world's noise. Without that (ISMCTS's tree over the same playouts, one
independent world per iteration) the same playouts won no more than par against greedy in
China (bench/notes/bots.md).

Where a budget affords DEEPEN_WORLDS worlds at that horizon, the playouts go on to the bot's
first turn boundary after DEEP_PLIES plies instead: in a game of one-command turns (Pixies) the
first boundary is one answer away and says little. Where worlds are few a longer horizon only
scatters the ends (Chinese Squared lost with it), so the depth follows the budget, not the game.

What it is for: the other seats answer a move the way a one-ply player would, not at random
as below ISMCTS's root, so it judges a move against sensible replies. Measured against the
greedy bot (bench/bots_strength.py; bench/notes/bots.md, "Policy rollouts"):
stronger than ISMCTS in China and Chinese Squared, as strong in Pixies and Gùgōng; dispatch.py
keeps ISMCTS where a ply lists thousands of moves (Khan), since a greedy ply looks at every one
of them.

Deterministic given the seed and an iteration budget (playouts: worlds x candidates); a time
budget only caps the work (the playouts it took are reported, so the move can be re-run).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

from service.bots.evaluation import rewards
from service.bots.ismcts import Budget, Choice, apply_move, key, one_ply_look
from service.bots.simple import determinize, greedy_move
from service.games.interface import Command, Game, State

CANDIDATES = 6      # root moves the rollouts compare: the one-ply look's best
LOOK_MOST = 256     # root moves looked at one ply ahead, at most
LOOK_SHARE = 0.3    # share of a time budget the look may take
ROLLOUT_CAP = 40    # plies at most in one rollout (a turn of many commands still ends); < 256: ply k's seed is stream * 256 + k + 1
DEEPEN_WORLDS = 60  # worlds the budget must afford at the first horizon before playouts go deeper
DEEP_PLIES = 6      # ... to the bot's first turn boundary after at least this many plies
HORIZON_PLY = 1     # 1: at the horizon the bot plays its greedy move before the hint judges


def search(game: Game, state: State, seat: int, players: int, rng: random.Random, budget: Budget) -> Choice:
    moves = game.legal_moves(state, seat)
    by_key = {key(m): m for m in moves}
    if len(by_key) == 1:
        return Choice(moves[0], 0, 0)
    clock = time.process_time if budget.cpu else time.monotonic
    start = clock()
    deadline = None if budget.seconds is None else start + budget.seconds
    look_until = None if budget.seconds is None else start + LOOK_SHARE * budget.seconds
    candidates = _candidates(game, state, seat, players, rng, by_key, clock, look_until)
    if len(candidates) == 1:
        return Choice(candidates[0], 0, 0)
    totals = [0.0] * len(candidates)
    worlds = 0
    # The iteration budget counts playouts, as ISMCTS's counts its iterations' playouts.
    most = max(1, budget.iterations // len(candidates))
    depth = 0
    began = clock()
    while worlds < most:
        # Only whole worlds count (each candidate played in it), so stop before one that would
        # not end in time: the time a world took so far says how long the next will take.
        if deadline is not None and worlds and clock() + (clock() - began) / worlds > deadline:
            break
        world = determinize(game, state, seat, rng)
        stream = rng.getrandbits(48)
        for i, command in enumerate(candidates):
            end = playout(game, world, seat, players, command, stream, depth)
            # A candidate this world refuses (another hand) counts as a loss in it.
            totals[i] += 0.0 if end is None else rewards(game, end, players)[seat]
        worlds += 1
        if worlds == 1:
            # A longer horizon sees more of what a move leads to, but its ends scatter more
            # (more plies of play after it), so it needs more worlds to tell moves apart: the
            # playouts go deeper only where the budget affords many worlds at the first one
            # (Pixies' short turns: yes; China, Chinese Squared: no; bench/notes/bots.md).
            affordable = most if deadline is None else (deadline - clock()) / max(1e-9, clock() - began) + 1
            depth = DEEP_PLIES if min(most, affordable) >= DEEPEN_WORLDS else 0
    # Ties (no world played, or equal totals) go to the look's order: the greedy choice first.
    best = max(range(len(candidates)), key=lambda i: (totals[i], -i))
    return Choice(candidates[best], worlds * len(candidates), worlds)


def _candidates(game: Game, state: State, seat: int, players: int, rng: random.Random,
                by_key: dict[bytes, Command], clock: Callable[[], float], until: float | None) -> list[Command]:
    """The CANDIDATES best root moves one ply ahead in one sampled world, best first."""
    looked, keys = one_ply_look(game, state, seat, players, rng, by_key, LOOK_MOST, clock, until)
    return [by_key[k] for _, k in looked[:CANDIDATES]] or [by_key[keys[0]]]


Policy = Callable[[Game, State, int, int, random.Random], Command]


def playout(game: Game, world: State, seat: int, players: int, command: Command, stream: int,
            min_plies: int = 0, policy: Policy = greedy_move) -> State | None:
    """`world` after `command` of `seat` and play by `policy` (the greedy bot) for every seat
    until `seat` is to act again at a turn boundary (a state where it acts and the seat that
    moved last is another) after at least `min_plies` plies, and then (HORIZON_PLY) the one
    move `policy` plays for `seat` there; or until the game ends, or ROLLOUT_CAP plies. None if
    the world refuses `command`.

    Ply k draws from its own generator, seeded by (stream, k): the candidates of one world
    meet the same chance and the same re-deals at the same ply, however many draws an earlier
    ply took."""
    state = apply_move(game, world, seat, command, random.Random(stream << 8))
    if state is None:
        return None
    last = seat
    for ply in range(ROLLOUT_CAP):
        status = game.status(state)
        if status["finished"] or not status["to_act"]:
            break
        actor = status["to_act"][0]
        horizon = actor == seat and last != seat and ply >= min_plies
        if horizon and not HORIZON_PLY:
            break
        rng = random.Random((stream << 8) + ply + 1)
        after = apply_move(game, state, actor, policy(game, state, actor, players, rng), rng)
        if after is None:
            break
        state, last = after, actor
        if horizon:
            break
    return state
