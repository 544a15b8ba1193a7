"""Regenerate protocol/openapi.json, the document the server serves at /api/openapi.json, from
protocol/openapi.yaml, the one that is edited.

    .venv/bin/python -m tools.make_openapi

The YAML refers to the games' view schemas as the files protocol/schemas/<id>.view.json; the JSON
carries them inline under components/schemas, so that a client generator given the one URL has the
whole document. The JSON is committed (package data, like the view schemas): the server then needs
no YAML parser, and an installed wheel serves the same bytes as a checkout.
tests/http/test_openapi.py fails when the committed JSON is not what this makes: run this after editing
the YAML and after `make schemas`.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import orjson
import yaml

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "protocol" / "openapi.yaml"
OUT = ROOT / "protocol" / "openapi.json"


def bundled(source: Path = SOURCE) -> dict[str, Any]:
    """The document with each schema that is a reference to a file beside it replaced by the
    file's schema (less `$schema` and `$id`, which would make it a resource of its own)."""
    doc = yaml.safe_load(source.read_text(encoding="utf-8"))
    schemas = doc["components"]["schemas"]
    for name, schema in schemas.items():
        target = schema.get("$ref", "") if list(schema) == ["$ref"] else ""
        if target and not target.startswith("#"):
            inline = orjson.loads((source.parent / target).read_bytes())
            inline.pop("$schema", None)
            inline.pop("$id", None)
            schemas[name] = inline
    return doc


def render(source: Path = SOURCE) -> bytes:
    return orjson.dumps(bundled(source), option=orjson.OPT_INDENT_2) + b"\n"


def main() -> int:
    OUT.write_bytes(render())
    print(f"{OUT.relative_to(ROOT)}: {len(bundled()['paths'])} paths")
    return 0


if __name__ == "__main__":
    sys.exit(main())
