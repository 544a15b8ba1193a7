"""Fields beyond SPEC 2.1's common ones that a game documents in docs/games/<id>.md: Chinese
Squared's result `ranks`, Khan's copy of `status` inside its view."""

from __future__ import annotations

import itertools
from pathlib import Path

from service.games import get_game
from service.games.hieroglyphs.rules import status as hieroglyphs_status
from service.games.playout import playout

DOCS = Path(__file__).resolve().parents[2] / "docs" / "games"


def test_chinese_squared_ranks_are_places_in_seat_order_with_ties_repeated():
    assert "`ranks`" in (DOCS / "hieroglyphs.md").read_text()
    # docs/games/hieroglyphs.md: two seats tied for first, then one: [1, 1, 3]
    over = {"phase": "over", "players": 3,
            "result": {"reason": "x", "ranking": [[2, 0], [1]], "winners": [2, 0], "scores": [4, 1, 4]}}
    result = hieroglyphs_status(over)["result"]
    assert set(result) == {"scores", "ranking", "winners", "ranks"}
    assert result["ranks"] == [1, 3, 1]
    assert result["ranking"] == [2, 0, 1]
    four = {**over, "players": 4, "result": {**over["result"], "ranking": [[3], [0, 1], [2]], "scores": [2, 2, 1, 5],
                                            "winners": [3]}}
    assert hieroglyphs_status(four)["result"]["ranks"] == [2, 2, 4, 1]


def test_khans_view_status_is_always_the_documents_status():
    assert "always equal to `doc.status`" in (DOCS / "khan.md").read_text()
    game = get_game("khan")
    for step in itertools.islice(playout(game, 3, "documented extras"), 30):
        status = dict(game.status(step.after))
        for audience in (None, 0, 1, 2):
            assert game.view(step.after, audience)["status"] == status
