"""Where an ISMCTS rollout stops (service/bots/ismcts.py, `_rollout`), checked in every game
against what a turn boundary is, read from the plies the rollout really played:

- TURN: random plies of the seat that moved into the leaf only, until the seat to act is
  another one (none at all when the leaf is already at such a boundary);
- ROUND: until a boundary at which the searching seat is to act, i.e. every other seat has
  answered, and no earlier than the first such boundary;
- PLIES: ROLLOUT_PLIES plies at the most.

Every horizon also stops where the game is over, after ROLLOUT_CAP plies, or where a move list
is longer than ROLLOUT_MAX_MOVES (Khan's placements).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from service.bots import ismcts
from service.games import GAMES, get_game
from service.games.interface import Game, State
from service.games.playout import playout


class Recording:
    """The game, with every seat whose command was decided recorded in order."""

    def __init__(self, game: Game) -> None:
        self._game = game
        self.actors: list[int | None] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._game, name)

    def decide(self, state: State, seat: int | None, command: dict, rng: random.Random) -> list:
        events = self._game.decide(state, seat, command, rng)
        self.actors.append(seat)
        return events


def _leaves(game_id: str) -> list[tuple[State, int]]:
    """(state, the seat whose move led to it) along one random match, mid-turn and at boundaries."""
    g = get_game(game_id)
    steps = [st for st in playout(g, g.min_players, f"rollout-{game_id}") if st.seat is not None]
    return [(st.after, st.seat) for st in steps[:: max(1, len(steps) // 40)]]


def _rolled(game_id: str, searcher: Callable[[int, int], int]) -> Iterator[tuple[State, int, int, State, list, bool]]:
    """Every leaf rolled out with the horizon in force: (leaf, mover, searching seat, end,
    the seats that played the rollout's plies, whether the horizon is what stopped it: not
    the game's end, ROLLOUT_CAP, or a move list longer than ROLLOUT_MAX_MOVES)."""
    g = get_game(game_id)
    for k, (leaf, mover) in enumerate(_leaves(game_id)):
        seat = searcher(k, mover)
        rec = Recording(g)
        end = ismcts._rollout(rec, leaf, random.Random(k), mover, seat)  # type: ignore[arg-type]
        status = g.status(end)
        other = status["finished"] or len(rec.actors) >= ismcts.ROLLOUT_CAP \
            or len(g.legal_moves(end, status["to_act"][0])) > ismcts.ROLLOUT_MAX_MOVES
        yield leaf, mover, seat, end, rec.actors, not other


@pytest.mark.parametrize("game_id", GAMES)
def test_turn_horizon_ends_the_turn_under_way_and_no_more(game_id, monkeypatch):
    monkeypatch.setattr(ismcts, "ROLLOUT_HORIZON", ismcts.TURN)
    g = get_game(game_id)
    mid_turn = 0
    for leaf, mover, _, end, actors, by_horizon in _rolled(game_id, lambda k, mover: (mover + 1) % g.min_players):
        # No ply of another seat's turn is played.
        assert all(a == mover for a in actors)
        if by_horizon:
            assert g.status(end)["to_act"][0] != mover, "stopped inside the mover's turn"
        if g.status(leaf)["finished"] or g.status(leaf)["to_act"][0] != mover:
            assert actors == [], "the leaf is at a turn boundary already"
        else:
            mid_turn += 1
    assert mid_turn or game_id == "pixies", "some leaf must be inside a turn"


@pytest.mark.parametrize("game_id", GAMES)
def test_round_horizon_stops_at_the_first_boundary_where_the_searching_seat_is_to_act(game_id, monkeypatch):
    monkeypatch.setattr(ismcts, "ROLLOUT_HORIZON", ismcts.ROUND)
    g = get_game(game_id)
    answered = 0
    searcher = lambda k, mover: mover if k % 2 else (mover + 1) % g.min_players  # noqa: E731
    for _, mover, seat, end, actors, by_horizon in _rolled(game_id, searcher):
        trace = [mover, *actors]
        # Before every ply played: not yet a boundary handing the turn to `seat`.
        assert not any(b != a and b == seat for a, b in zip(trace, trace[1:], strict=False))
        if by_horizon:
            to_act = g.status(end)["to_act"][0]
            assert to_act == seat and to_act != trace[-1]
            if mover == seat:
                # From inside the searching seat's own turn: every other seat has answered
                # (in these games the turn passes round every seat before it comes back).
                assert set(actors) | {seat} == set(range(g.min_players))
                answered += 1
    assert answered or game_id == "khan", "some rollout must reach the answer"


@pytest.mark.parametrize("game_id", GAMES)
def test_plies_horizon_plays_at_most_rollout_plies(game_id, monkeypatch):
    monkeypatch.setattr(ismcts, "ROLLOUT_HORIZON", ismcts.PLIES)
    for _, _, _, _, actors, _ in _rolled(game_id, lambda k, mover: mover):
        assert len(actors) <= ismcts.ROLLOUT_PLIES
