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


def _private_values(schema: dict, value, path: tuple = ()):
    """The paths of `value` holding a value (not null) where the schema says `x-private`."""
    if schema.get("x-private") and value is not None:
        yield path
        return
    if isinstance(value, dict):
        props = schema.get("properties")
        for k, v in value.items():
            sub = props.get(k, {}) if props is not None else schema.get("additionalProperties") or {}
            yield from _private_values(sub, v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _private_values(schema.get("items") or {}, v, (*path, i))


def _marked(schema: dict):
    """The names of the properties marked `x-private`, at any depth."""
    for k, v in (schema.get("properties") or {}).items():
        if v.get("x-private"):
            yield k
        yield from _marked(v)
    for key in ("items", "additionalProperties"):
        if isinstance(schema.get(key), dict):
            yield from _marked(schema[key])


# docs/games/<id>.md: what only a seat sees (its hand, its own part of the view)
PRIVATE = {"china": "hand", "gugong": "hand", "khan": "hand", "hieroglyphs": "you"}


@pytest.mark.parametrize("game_id", GAMES)
def test_x_private_marks_what_only_a_seats_view_holds(game_id):
    """A property marked `x-private` never holds a value in a live match's spectators' view, and a
    seat's view does hold one there (the marks say which fields are private to a seat)."""
    g = get_game(game_id)
    schema = orjson.loads((SCHEMAS / f"{game_id}.view.json").read_bytes())
    marked = set(_marked(schema))
    if game_id in PRIVATE:
        assert PRIVATE[game_id] in marked
    else:
        assert not marked, "pixies shows every audience the same table"
    seen_in_seats = False
    for step in playout(g, g.min_players, f"x-private-{game_id}"):
        if not g.status(step.after)["finished"]:  # after game over everything may be shown
            assert list(_private_values(schema, g.view(step.after, None))) == [], step.seq
        seen_in_seats = seen_in_seats or any(list(_private_values(schema, g.view(step.after, s)))
                                             for s in range(g.min_players))
    assert seen_in_seats == bool(marked)


@pytest.mark.parametrize("game_id", GAMES)
def test_every_property_marked_x_private_is_named_in_the_games_page(game_id):
    """docs/games/<id>.md says what only a seat sees: each marked property is named there."""
    schema = orjson.loads((SCHEMAS / f"{game_id}.view.json").read_bytes())
    doc = (Path(__file__).resolve().parents[2] / "docs" / "games" / f"{game_id}.md").read_text()
    assert [name for name in sorted(set(_marked(schema))) if f"`{name}`" not in doc] == []
