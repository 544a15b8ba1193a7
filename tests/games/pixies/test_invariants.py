"""Invariants of spec 4.1 and 4.4 checked along random matches of every size."""

from __future__ import annotations

import os

import pytest

from service.games.pixies import GAME
from service.games.pixies.data import CARD_IDS, CARDS
from service.games.playout import playout

MATCHES = 20 if os.environ.get("TEAHOUSE_LONG") == "1" else 2


def cards_held(grid):
    return sum((c["up"] is not None) + (c["down"] is not None) for c in grid)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_cells_stay_in_one_of_the_four_states_and_rounds_end_evenly(players):
    for k in range(MATCHES):
        for step in playout(GAME, players, f"inv-{players}-{k}"):
            state = step.after
            for grid in state["areas"]:
                for n, cell in enumerate(grid, start=1):
                    if cell["up"] is not None:
                        assert CARDS[cell["up"]]["number"] == n  # a face-up card sits on its number
                    elif cell["down"] is not None:
                        assert CARDS[cell["down"]]["number"] != n  # a lone back never fits its cell
            # every card is in exactly one place
            placed = [c for grid in state["areas"] for cell in grid for c in cell.values() if c is not None]
            if state["phase"] == "drafting":
                assert sorted(placed + state["market"] + state["deck"]) == CARD_IDS
            if "round_scored" in [e["type"] for e in step.events]:
                before = step.before
                for event in step.events:
                    if event["type"] == "round_scored":
                        break
                    before = GAME.evolve(before, event)
                held = {cards_held(grid) for grid in before["areas"]}
                assert len(held) == 1 and held.pop() >= 9  # everyone took as many cards, at least 9
