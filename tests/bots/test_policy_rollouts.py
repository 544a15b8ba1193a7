"""The policy-rollout search (service/bots/rollouts.py) and which search plays a position
(service/bots/dispatch.py), checked in every game:

- a playout plays the candidate, then every seat's moves until the searching seat is to act
  again at a turn boundary (every other seat has answered), then that seat's one move there
  (HORIZON_PLY), and no further;
- ply k applies the policy's command of the seat the status names, with the generator of
  (stream, k);
- the search returns one of the seat's legal moves, the same every time for the same seed and
  iteration budget, and counts whole worlds (playouts = worlds x candidates);
- a position with more legal moves than ROLLOUT_MOST_MOVES is searched by ISMCTS, any other
  by the rollouts.
"""

from __future__ import annotations

import random

import pytest

from service.bots import dispatch, ismcts, rollouts
from service.bots.ismcts import Budget, key
from service.bots.simple import determinize, greedy_move
from service.games import GAMES, fold, get_game
from service.games.playout import playout


def _decisions(game_id: str, players: int, every: int = 30) -> list[tuple[dict, int]]:
    g = get_game(game_id)
    steps = [st for st in playout(g, players, f"policy-{game_id}-{players}") if st.seat is not None]
    return [(st.before, st.seat) for st in steps[:: max(1, len(steps) // every)]
            if len(g.legal_moves(st.before, st.seat)) <= dispatch.ROLLOUT_MOST_MOVES]


class Played:
    """The playouts' policy, with every ply it chose recorded: (seat, state, command)."""

    def __init__(self) -> None:
        self.plies: list[tuple[int, dict, dict]] = []

    def __call__(self, game, state, seat, players, rng):  # type: ignore[no-untyped-def]
        command = greedy_move(game, state, seat, players, rng)
        self.plies.append((seat, state, command))
        return command


def _played_out(game_id: str, every: int, min_plies: int = 0):
    g = get_game(game_id)
    players = g.min_players
    for k, (state, seat) in enumerate(_decisions(game_id, players, every)):
        played = Played()
        command = random.Random(k).choice(g.legal_moves(state, seat))
        end = rollouts.playout(g, state, seat, players, command, k, min_plies, played)
        assert end is not None
        yield g, seat, players, end, played.plies


@pytest.mark.parametrize("horizon_ply", [0, 1])
@pytest.mark.parametrize("min_plies", [0, rollouts.DEEP_PLIES])
@pytest.mark.parametrize("game_id", GAMES)
def test_a_playout_ends_where_the_seat_is_to_act_again_after_every_other_seat(game_id, min_plies, horizon_ply,
                                                                              monkeypatch):
    """Without the horizon ply the playout stops at the boundary; with it, the seat's one
    policy move there is the playout's last ply."""
    monkeypatch.setattr(rollouts, "HORIZON_PLY", horizon_ply)
    answered = 0
    for g, seat, players, end, plies in _played_out(game_id, 30, min_plies):
        trace = [seat, *(s for s, _, _ in plies)]
        # Pair i is ply i's actor after ply i-1's (the candidate's for i = 0): a boundary that
        # hands the turn back to the seat, once min_plies are played, is the horizon.
        horizons = [i for i, (a, b) in enumerate(zip(trace, trace[1:], strict=False))
                    if b != a and b == seat and i >= min_plies]
        assert horizons in ([], [len(plies) - 1]) if horizon_ply else horizons == []
        status = g.status(end)
        if status["finished"] or len(plies) >= rollouts.ROLLOUT_CAP:
            continue
        if horizon_ply:
            assert horizons == [len(plies) - 1], "the seat's horizon move is the last ply"
            ahead = plies[:-1]
        else:
            assert status["to_act"][0] == seat and trace[-1] != seat
            ahead = plies
        assert len(ahead) >= min_plies
        # The turn went round: every seat moved in the playout before the horizon.
        assert {seat, *(s for s, _, _ in ahead)} == set(range(players))
        answered += 1
    assert answered, "some playout must reach the seat's next turn"


@pytest.mark.parametrize("game_id", GAMES)
def test_a_playout_applies_each_ply_of_the_policy_with_the_generator_of_its_stream_and_ply(game_id):
    """Ply k of a playout with stream s decides the policy's command with the generator seeded
    by s * 256 + k + 1 (the candidate: s * 256), so every candidate of one world meets the same
    chance at the same ply. A policy that draws nothing (the first legal move) leaves that
    generator's first draw to the command, which the test replays."""
    g = get_game(game_id)
    players = g.min_players

    def first(game, state, seat, players, rng):  # type: ignore[no-untyped-def]
        command = game.legal_moves(state, seat)[0]
        plies.append((seat, state, command))
        return command

    def replayed(state, seat, command, seed):  # type: ignore[no-untyped-def]
        return fold(g, g.decide(state, seat, command, random.Random(random.Random(seed).random())), state)

    for k, (state, seat) in enumerate(_decisions(game_id, players, 12)):
        plies: list[tuple[int, dict, dict]] = []
        stream = 7000 + k
        command = g.legal_moves(state, seat)[-1]
        end = rollouts.playout(g, state, seat, players, command, stream, 0, first)
        states = [replayed(state, seat, command, stream << 8)]
        for ply, (actor, before, move) in enumerate(plies):
            assert before == states[-1] and g.status(before)["to_act"][0] == actor
            states.append(replayed(before, actor, move, (stream << 8) + ply + 1))
        assert end == states[-1]


@pytest.mark.parametrize("game_id", GAMES)
def test_the_search_plays_a_legal_move_the_same_for_the_same_seed_and_counts_whole_worlds(game_id):
    g = get_game(game_id)
    players = g.min_players
    for k, (state, seat) in enumerate(_decisions(game_id, players, 6)):
        legal = g.legal_moves(state, seat)
        a = rollouts.search(g, state, seat, players, random.Random(k), Budget(iterations=24))
        b = rollouts.search(g, state, seat, players, random.Random(k), Budget(iterations=24))
        assert a == b and a.command in legal
        distinct = len({key(m) for m in legal})
        if distinct > 1:
            # The look (no clock) sees every move, so the candidates are the six best, or all;
            # 24 playouts buy as many whole worlds as that many candidates fit.
            candidates = min(rollouts.CANDIDATES, distinct, rollouts.LOOK_MOST)
            assert a.visits == 24 // candidates and a.iterations == a.visits * candidates


@pytest.mark.parametrize("game_id", GAMES)
def test_the_branching_of_the_position_picks_the_search(game_id, monkeypatch):
    g = get_game(game_id)
    called: list[str] = []
    monkeypatch.setattr(rollouts, "search", lambda *a: called.append("rollouts") or ismcts.Choice({}, 0, 0))
    monkeypatch.setattr(ismcts, "search", lambda *a: called.append("ismcts") or ismcts.Choice({}, 0, 0))
    steps = [st for st in playout(g, g.min_players, f"dispatch-{game_id}") if st.seat is not None]
    wide = 0
    for st in steps[:: max(1, len(steps) // 30)]:
        called.clear()
        dispatch.search(g, st.before, st.seat, g.min_players, random.Random(0), Budget(iterations=1))
        many = len(g.legal_moves(st.before, st.seat)) > dispatch.ROLLOUT_MOST_MOVES
        assert called == (["ismcts"] if many else ["rollouts"])
        wide += many
    assert wide or game_id != "khan", "Khan's placements must reach ISMCTS"


@pytest.mark.parametrize("game_id", GAMES)
def test_a_playout_is_a_function_of_its_world_candidate_and_stream(game_id):
    g = get_game(game_id)
    players = g.min_players
    for k, (state, seat) in enumerate(_decisions(game_id, players, 6)):
        world = determinize(g, state, seat, random.Random(k))
        command = random.Random(k).choice(g.legal_moves(world, seat))
        assert rollouts.playout(g, world, seat, players, command, 1000 + k) == \
            rollouts.playout(g, world, seat, players, command, 1000 + k)
