"""Consecutive views share what did not change: a part of a view that
is equal to the previous view's is, in most cases, the very same object, so the patch diff
settles it with `is`; and sharing never changes what a view says (a view equals one built from a
deep copy of the state, where nothing can be shared)."""

from __future__ import annotations

import copy

import pytest

from service.games import GAMES, get_game
from service.games.playout import playout


def _containers(view: dict) -> dict:
    return {k: v for k, v in view.items() if isinstance(v, (list, dict)) and v}


@pytest.mark.parametrize("game_id", GAMES)
def test_unchanged_parts_of_a_view_are_the_same_objects(game_id):
    g = get_game(game_id)
    players = g.min_players
    prev: dict = {}
    equal = identical = 0
    for i, step in enumerate(playout(g, players, f"sharing-{game_id}")):
        for audience in [*range(players), None]:
            view = g.view(step.after, audience)
            if i % 7 == 0:
                assert view == g.view(copy.deepcopy(step.after), audience)
            before = prev.get(audience)
            if before is not None:
                old = _containers(before)
                for key, value in _containers(view).items():
                    if key in old and old[key] == value:
                        equal += 1
                        identical += old[key] is value
            prev[audience] = view
    assert equal > 50
    # Before sharing, every container was built afresh (0%); parts computed from several state
    # parts (a board's coordinates, a claim) are still built each time.
    assert identical / equal >= 0.6, f"{game_id}: {identical} of {equal} unchanged parts shared"
