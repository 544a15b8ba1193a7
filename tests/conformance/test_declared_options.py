"""Every game declares its options (SPEC 2.3: `GET /api/games` serves them, the lobby builds its
form from them), and the declarations say what the engine does: the names are those of the
game's documented options table (docs/games/<id>.md), each declared range and choice is what
`initial` accepts and refuses, and a declared default plays as no option at all."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from service.games import GAMES, IllegalMove, get_game

DOCS = Path(__file__).resolve().parents[2] / "docs" / "games"


def documented_options(game: str) -> set[str]:
    """The option names in the first column of the table under the doc's Options heading."""
    text = (DOCS / f"{game}.md").read_text()
    section = re.split(r"\n### Options[^\n]*\n", text, maxsplit=1)[1]
    section = re.split(r"\n### ", section, maxsplit=1)[0]
    return set(re.findall(r"^\| `([a-z_]+)` \|", section, flags=re.M))


def refused(game, options: dict, players: int) -> bool:
    try:
        game.initial(options, players)
    except IllegalMove as exc:
        return exc.code == "bad_options"
    return False


def counts(game, spec) -> list[int]:
    return spec.get("players") or list(range(game.min_players, game.max_players + 1))


def completed(game, options: dict) -> dict:
    """`options` with every option that is declared required under them (at its least value)."""
    out = dict(options)
    for spec in game.options:
        applies = all(out.get(k) == v for k, v in spec.get("when", {}).items())
        if spec.get("required") and applies and spec["name"] not in out:
            out[spec["name"]] = spec["min"]
    return out


def base(spec) -> dict:
    """The other options a spec's `when` asks for."""
    return dict(spec.get("when", {}))


@pytest.mark.parametrize("game_id", GAMES)
def test_the_declared_options_are_the_documented_ones(game_id):
    declared = [o["name"] for o in get_game(game_id).options]
    assert len(declared) == len(set(declared))
    assert set(declared) == documented_options(game_id)


@pytest.mark.parametrize("game_id", GAMES)
def test_each_declared_range_and_choice_is_what_the_engine_takes(game_id):
    game = get_game(game_id)
    for spec in game.options:
        name, kind = spec["name"], spec["type"]
        assert spec["label"] and spec["help"], spec
        for n in counts(game, spec):
            ctx = base(spec)
            if kind == "seat":
                for seat in range(n):
                    game.initial({**ctx, name: seat}, n)
                assert refused(game, {**ctx, name: n}, n) and refused(game, {**ctx, name: -1}, n)
            elif kind == "integer":
                game.initial({**ctx, name: spec["min"]}, n)
                assert refused(game, {**ctx, name: spec["min"] - 1}, n)
                if "max" in spec:
                    game.initial({**ctx, name: spec["max"]}, n)
                    assert refused(game, {**ctx, name: spec["max"] + 1}, n)
            elif kind == "choice":
                for choice in spec["choices"]:
                    game.initial(completed(game, {**ctx, name: choice}), n)
                assert refused(game, {**ctx, name: "no such choice"}, n)
            elif kind == "boolean":
                game.initial({**ctx, name: True}, n)
                game.initial({**ctx, name: False}, n)
                assert refused(game, {**ctx, name: "yes"}, n)
            else:
                assert kind == "json", spec
                assert refused(game, {**ctx, name: "not a structure"}, n)


@pytest.mark.parametrize("game_id", GAMES)
def test_a_declared_default_plays_as_no_option(game_id):
    game = get_game(game_id)
    for spec in game.options:
        if spec.get("default") is None or spec.get("when"):
            continue
        n = counts(game, spec)[0]
        given, none = game.initial({spec["name"]: spec["default"]}, n), game.initial({}, n)
        # (a state may keep the options as they were given: that copy aside, nothing differs)
        assert {**given, "options": None} == {**none, "options": None}, spec


def test_a_required_option_is_refused_when_missing_and_one_that_does_not_apply_is_refused():
    hieroglyphs = get_game("hieroglyphs")
    assert refused(hieroglyphs, {"mode": "rounds"}, 2)
    assert refused(hieroglyphs, {"round_limit": 3}, 2)  # target mode, the default
    hieroglyphs.initial({"mode": "rounds", "round_limit": 3}, 2)


def test_an_option_outside_its_seat_counts_is_refused():
    china = get_game("china")
    side = next(o for o in china.options if o["name"] == "board_side")
    assert side["players"] == [4]
    assert refused(china, {"board_side": "B"}, 3) and refused(china, {"board_side": "A"}, 5)
