"""Every view matches its game's published JSON Schema (protocol/schemas/<id>.view.json,
served at /api/games/<id>/view-schema): random matches of every seat count, every audience,
every commit, with seeds other than those the schemas were made from."""

from __future__ import annotations

from pathlib import Path

import jsonschema
import orjson
import pytest

from service.games import GAMES, get_game
from service.games.playout import playout

SCHEMAS = Path(__file__).resolve().parents[2] / "protocol" / "schemas"


def validator(game_id: str) -> jsonschema.Draft202012Validator:
    schema = orjson.loads((SCHEMAS / f"{game_id}.view.json").read_bytes())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


@pytest.mark.parametrize("game_id", GAMES)
def test_every_view_matches_the_published_schema(game_id):
    g = get_game(game_id)
    check = validator(game_id)
    checked = 0
    for players in range(g.min_players, g.max_players + 1):
        check.validate(g.view(g.initial({}, players), None))
        for step in playout(g, players, f"view-schema-check-{game_id}-{players}"):
            for audience in [*range(players), None]:
                errors = list(check.iter_errors(g.view(step.after, audience)))
                assert not errors, f"seq {step.seq}, audience {audience}: {errors[0].message} at {list(errors[0].path)}"
                checked += 1
    assert checked > 100


@pytest.mark.parametrize("game_id", GAMES)
def test_the_schema_is_strict_enough_to_fail(game_id):
    """A schema that accepts anything documents nothing: a view with an unknown field, or a
    field of the wrong type, is refused."""
    g = get_game(game_id)
    check = validator(game_id)
    view = g.view(g.initial({}, g.min_players), None)
    assert not check.is_valid({**view, "__not_a_field__": 1})
    key = sorted(view)[0]
    assert not check.is_valid({**view, key: {"__wrong": ["type"]}})
