"""The reference data clients fetch holds the board and none of the content set's answers."""

from __future__ import annotations

import json

from service.games.hieroglyphs import GAME, data


def _strings(value):
    if isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)
    elif isinstance(value, str):
        yield value


def test_reference_is_the_board_and_no_meaning_or_task_answer():
    ref = GAME.reference({}, 4)
    values = set(_strings(ref))
    content = json.loads((data._DATA / "default_content.json").read_text(encoding="utf-8"))
    assert not values & {ch["gloss"] for ch in content["characters"]}
    assert not values & {ch["char"] for ch in content["characters"]}
    assert not values & {t["question"] for t in content["tasks"]}
    assert ref == {"board": data.BOARD}
