"""Nightly-sized random playouts: many matches of every game at one seat count, checked for the
interface's promises (a match ends, folding its log gives its state, nothing crashes). Marked
`slow`: `make test` and CI run them (the Makefile sets TEAHOUSE_SLOW=1), as does TEAHOUSE_LONG=1;
a bare pytest skips them to stay fast."""

from __future__ import annotations

import pytest

from service.games import GAMES, fold, get_game
from service.games.playout import playout

PLAYOUTS = 25


@pytest.mark.slow
@pytest.mark.parametrize("game_id", GAMES)
def test_nightly_sized_playouts_end_and_fold_back(game_id):
    g = get_game(game_id)
    players = (g.min_players + g.max_players + 1) // 2
    for k in range(PLAYOUTS):
        seed = f"nightly-{game_id}-{players}-{k}"
        state0 = g.initial({}, players)
        events, final = [], state0
        for step in playout(g, players, seed):
            events.extend(step.events)
            final = step.after
        assert g.status(final)["finished"], f"{seed} did not end"
        assert fold(g, events, state0) == final, f"{seed}: the log does not fold to the state"
