"""Hidden information, checked independently of the engines' own `secrets()`.

For random matches of every game and seat count, at every commit, every string the rules spec
hides from an audience (tests/support/hidden.py, written from each spec's hidden-information
section) is absent from the exact msgpack bytes of that audience's view and of the patch the
server would send it.
"""

from __future__ import annotations

import os

import msgpack
import pytest

from service.games import GAMES, get_game
from service.games.playout import playout
from service.match.projection import Projection
from tests.support.hidden import forbidden

LONG = os.environ.get("TEAHOUSE_LONG") == "1"
PLAYOUTS = 10 if LONG else 1

CASES = [(g, n) for g in GAMES for n in range(get_game(g).min_players, get_game(g).max_players + 1)]


@pytest.mark.parametrize("game_id,players", CASES, ids=[f"{g}-{n}p" for g, n in CASES])
def test_no_audience_receives_what_its_spec_hides(game_id, players):
    g = get_game(game_id)
    audiences = [*range(players), None]
    checked = 0
    for k in range(PLAYOUTS):
        projection = Projection(g, "m")
        state0 = g.initial({}, players)
        for a in audiences:
            projection.watch(a, state0, 0)
        for step in playout(g, players, f"hidden-{game_id}-{players}-{k}"):
            frames = projection.advance(step.after, step.seq)
            for a in audiences:
                hidden = forbidden(game_id, step.after, a)
                view = msgpack.packb(g.view(step.after, a), use_bin_type=True)
                sent = frames[a].encoded("msgpack") if a in frames else b""
                for secret in hidden:
                    token = msgpack.packb(secret, use_bin_type=True)
                    assert token not in view, f"{secret!r} is in the view of {a} at seq {step.seq}"
                    assert token not in sent, f"{secret!r} is sent to {a} at seq {step.seq}"
                    checked += 1
    assert checked > 100, "the spec's hidden information never came up"
