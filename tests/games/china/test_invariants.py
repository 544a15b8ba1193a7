"""Invariants along random matches: cards are conserved (spec 5.8), pieces are conserved,
the emissary limit always holds (spec 5.1), every player gets the same number of turns (6.4)."""

from __future__ import annotations

import pytest

from service.games.china import GAME
from service.games.china.data import PROVINCE_SPACES, PROVINCES
from service.games.playout import playout
from tests.games.china.helpers import assert_conserved


@pytest.mark.parametrize("players", [3, 4, 5])
def test_random_match_invariants(players):
    turns = [0] * players
    for step in playout(GAME, players, f"invariants-{players}"):
        s = step.after
        if s["phase"] == "waiting":
            continue
        assert_conserved(s)
        for p in range(players):
            built = sum(1 for who in s["houses"].values() if who == p)
            sent = sum(s["emissaries"][pid][p] for pid in PROVINCES)
            assert built + s["supply"][p]["houses"] == 20
            assert sent + s["supply"][p]["emissaries"] == 8
        for pid in PROVINCES:
            owners = [s["houses"][sp] for sp in PROVINCE_SPACES[pid]]
            top = max([owners.count(p) for p in range(players)])
            assert sum(s["emissaries"][pid]) <= top
            if None not in owners:
                assert s["scored"][pid]
        for e in step.events:
            if e["type"] in ("turn_ended", "game_ended"):
                turns[step.before["active"]] += 1
    assert GAME.status(s)["finished"]
    assert len(set(turns)) == 1, turns
