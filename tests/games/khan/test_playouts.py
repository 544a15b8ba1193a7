"""Random matches keep Khan's bookkeeping whole: 60 neutral yurts, 72 ruler cards and 38
tiles are always somewhere; rulers stand only on free land; the end phase comes after the
fifth removal. TEAHOUSE_LONG=1 plays more matches."""

from __future__ import annotations

import os

import pytest

from service.games.khan import GAME
from service.games.khan.data import BOARDS, CARD_IDS, REMOVALS_TO_END, TILES
from service.games.playout import playout

MATCHES = 20 if os.environ.get("TEAHOUSE_LONG") == "1" else 2


def check(s: dict) -> None:
    board = BOARDS[s["board"]]
    neutral_on_board = sum(1 for y in s["yurts"] if y == -1)
    assert neutral_on_board + s["supply"] + sum(s["camps"].values()) == 60
    cards = [*s["draw_pile"], *s["discard"], *(c for h in s["hands"] for c in h)]
    assert sorted(cards) == sorted(CARD_IDS)
    assert sum(s["tiles"].values()) + len(s["placed"]) == sum(t["count"] for t in TILES.values())
    for cell in s["rulers"].values():
        if cell is not None:
            assert board.is_land[cell] and s["yurts"][cell] is None and s["tile_at"][cell] is None
    assert s["end_phase"] == (len(s["removed"]) >= REMOVALS_TO_END)
    if s["end_phase"]:
        assert all(cell is None for cell in s["rulers"].values())
    assert all(len(h) <= 4 for h in s["hands"])


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_matches_keep_every_component(players):
    for k in range(MATCHES):
        last = None
        for step in playout(GAME, players, f"khan-invariants-{players}-{k}"):
            if step.seq > 1:
                check(step.after)
            last = step.after
        assert GAME.status(last)["finished"]
