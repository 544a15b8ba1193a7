"""Regenerate protocol/schemas/<id>.view.json: the JSON Schema of each game's view.

    .venv/bin/python -m tools.make_view_schemas

The schema is inferred from the views of many random matches (every seat count, every audience,
every commit), then committed and reviewed like code: it says which fields a view has, their
types, which are always there and which may be null. tests/conformance/test_view_schemas.py
checks live views against the committed files with `jsonschema`, so a view that changes shape
fails until the schema (and so the documentation) is updated.

A property marked `"x-private": true` is private to a seat: while the match is live it holds a
value (not null) only in a seat's view, never in the spectators' view, which is the public one (a
seat's hand, its own answers); after game over a game may show it to everyone. A client that shows a spectator's screen never finds it; a seat's view has it for
that seat alone.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from service.games import GAMES, get_game
from service.games.playout import playout

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "protocol" / "schemas"  # package data: the server serves these files (service/http/static.py)
PLAYOUTS = 8


class Shape:
    """What was seen at one place of a view: its JSON types, and for maps and arrays, inside."""

    def __init__(self) -> None:
        self.types: set[str] = set()
        self.props: dict[str, Shape] = {}
        self.seen_maps = 0
        self.present: dict[str, int] = {}
        self.items: Shape | None = None
        self.dynamic_keys = False
        self.valued: set[str] = set()  # keys seen with a value (not null) in any view
        self.public: set[str] = set()  # keys seen with a value in a spectators' view

    def add(self, value: Any, public: bool = False, ended: bool = False) -> None:
        """`public`: `value` is (inside) a spectators' view; `ended`: a view after game over, which
        shapes the schema but says nothing of privacy (a game may show everything then)."""
        if value is None:
            self.types.add("null")
        elif isinstance(value, bool):
            self.types.add("boolean")
        elif isinstance(value, int):
            self.types.add("integer")
        elif isinstance(value, str):
            self.types.add("string")
        elif isinstance(value, list):
            self.types.add("array")
            for v in value:
                self.items = self.items or Shape()
                self.items.add(v, public, ended)
        elif isinstance(value, dict):
            self.types.add("object")
            self.seen_maps += 1
            for k, v in value.items():
                self.present[k] = self.present.get(k, 0) + 1
                self.props.setdefault(k, Shape()).add(v, public, ended)
                if v is not None and not ended:
                    self.valued.add(k)
                    if public:
                        self.public.add(k)
        else:
            raise TypeError(type(value).__name__)

    def schema(self, under_private: bool = False) -> dict[str, Any]:
        """`under_private`: inside a property already marked private (its parts are not marked again)."""
        out: dict[str, Any] = {}
        types = sorted(self.types)
        out["type"] = types[0] if len(types) == 1 else types
        if "object" in self.types:
            # Maps keyed by data (seat numbers, card ids, cells...) are described by their values.
            if len(self.props) > 40 or (self.props and all(_datalike(k) for k in self.props)):
                merged = Shape()
                for p in self.props.values():
                    merged.merge(p)
                out["additionalProperties"] = merged.schema(under_private)
            else:
                out["properties"] = {k: self._property(k, v, under_private) for k, v in sorted(self.props.items())}
                out["required"] = sorted(k for k, n in self.present.items() if n == self.seen_maps)
                out["additionalProperties"] = False
        if "array" in self.types:
            out["items"] = self.items.schema(under_private) if self.items is not None else {}
        return out

    def _property(self, key: str, shape: Shape, under_private: bool) -> dict[str, Any]:
        private = not under_private and key in self.valued and key not in self.public
        schema = shape.schema(under_private or private)
        if private:
            schema = {"x-private": True, "description": "private to a seat: only in that seat's own view "
                                                        "(never in the spectators' view)", **schema}
        return schema

    def merge(self, other: Shape) -> None:
        self.types |= other.types
        self.valued |= other.valued
        self.public |= other.public
        self.seen_maps += other.seen_maps
        for k, n in other.present.items():
            self.present[k] = self.present.get(k, 0) + n
        for k, p in other.props.items():
            self.props.setdefault(k, Shape()).merge(p)
        if other.items is not None:
            self.items = self.items or Shape()
            self.items.merge(other.items)


def _datalike(key: str) -> bool:
    return key.isdigit() or any(c.isdigit() for c in key) or not key.isascii() or key.isupper()


def infer(game_id: str) -> dict[str, Any]:
    g = get_game(game_id)
    shape = Shape()
    for players in range(g.min_players, g.max_players + 1):
        for k in range(PLAYOUTS):
            shape.add(g.view(g.initial({}, players), None), public=True)
            for step in playout(g, players, f"schema-{game_id}-{players}-{k}"):
                for audience in [*range(players), None]:
                    # After game over a game may show everything (Chinese Squared's answers of the tasks
                    # still held): privacy is what a live match's spectators never see.
                    shape.add(g.view(step.after, audience), public=audience is None,
                              ended=g.status(step.after)["finished"])
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"/api/games/{game_id}/view-schema",
        "title": f"{g.name}: the view of a seat or of the spectators (doc.view)",
        **shape.schema(),
    }


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for game_id in GAMES:
        path = OUT / f"{game_id}.view.json"
        path.write_bytes(orjson.dumps(infer(game_id), option=orjson.OPT_INDENT_2) + b"\n")
        print(path.relative_to(ROOT))


if __name__ == "__main__":
    main()
