"""The bots see only their seat's information, are deterministic given their seed, and play
legal moves in every game.

No peeking: a bot given a state whose hidden parts (per each rules file's
hidden-information section, tests/support/hidden_parts.py) were moved around by hand chooses
exactly the same move as on the real state, for every game, seat and sampled position.
"""

from __future__ import annotations

import random

import pytest

from service.bots import bot_rng, ismcts, play, rollouts
from service.bots.ismcts import Budget
from service.bots.simple import greedy_move
from service.games import GAMES, get_game
from service.games.playout import playout
from tests.support.hidden_parts import HIDDEN, scramble

CASES = [(gid, n) for gid in GAMES for n in sorted({get_game(gid).min_players, get_game(gid).max_players})]


def _positions(game_id: str, players: int, count: int = 8) -> list[tuple[dict, int]]:
    """Positions spread over one random match where some seat has a real choice and something is hidden."""
    g = get_game(game_id)
    steps = [st for st in playout(g, players, f"bots-{game_id}-{players}") if st.seat is not None]
    out = []
    for st in steps[len(steps) // (count + 1):: max(1, len(steps) // (count + 1))]:
        if len(g.legal_moves(st.before, st.seat)) > 1:
            out.append((st.before, st.seat))
    return out[:count]


@pytest.mark.parametrize("searcher", [ismcts.search, rollouts.search], ids=["ismcts", "rollouts"])
@pytest.mark.parametrize("game_id,players", CASES, ids=[f"{g}-{n}p" for g, n in CASES])
def test_no_peeking_searches_play_the_same_on_scrambled_hidden_parts(game_id, players, searcher):
    g = get_game(game_id)
    positions = _positions(game_id, players)
    assert positions
    moved = 0
    for k, (state, seat) in enumerate(positions):
        keep = frozenset({seat})
        scrambled = scramble(game_id, state, keep, random.Random(50 + k))
        if game_id != "pixies":
            moved += HIDDEN[game_id](scrambled, keep) != HIDDEN[game_id](state, keep)
        real = searcher(g, state, seat, players, random.Random(k), Budget(iterations=24))
        fake = searcher(g, scrambled, seat, players, random.Random(k), Budget(iterations=24))
        assert real.command == fake.command and real.iterations == fake.iterations > 0
        assert searcher is not ismcts.search or real.iterations == 24
        assert greedy_move(g, state, seat, players, random.Random(k)) == \
            greedy_move(g, scrambled, seat, players, random.Random(k))
    assert moved or game_id == "pixies", "the scramble must really move hidden parts"


@pytest.mark.parametrize("game_id", GAMES)
def test_bots_are_deterministic_given_their_seed_and_play_legal_moves(game_id):
    g = get_game(game_id)
    players = g.min_players
    state, seat = _positions(game_id, players, 2)[-1]
    legal = g.legal_moves(state, seat)
    for strength in (0, 1, 2):
        # An iteration budget only: a time cap would make the count depend on the machine's load.
        budget = Budget(iterations=16) if strength >= 2 else None
        a = play(game_id, state, seat, players, strength, "seed-a", budget)
        assert a.command in legal
        assert play(game_id, state, seat, players, strength, "seed-a", budget) == a


def test_bot_rng_depends_on_seed_and_place():
    assert bot_rng("s", 3, 1).random() == bot_rng("s", 3, 1).random()
    assert bot_rng("s", 3, 1).random() != bot_rng("s", 4, 1).random()
    assert bot_rng("s", 3, 1).random() != bot_rng("t", 3, 1).random()
