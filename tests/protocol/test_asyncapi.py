"""protocol/asyncapi.yaml: generated from the vectors, and every example fits its schema."""

from __future__ import annotations

import re
from typing import Any

import orjson
import pytest

from protocol.errors import ERROR_CODES
from protocol.messages import CLIENT_TYPES
from tools.make_vectors import ASYNCAPI, asyncapi_document, render_asyncapi

DOC = asyncapi_document()
SCHEMAS = DOC["components"]["schemas"]
EXAMPLES = [(kind, ex) for kind, m in DOC["components"]["messages"].items() for ex in m["examples"]]


def test_the_file_is_what_the_generator_renders_from_the_vectors():
    assert ASYNCAPI.read_text() == render_asyncapi()


def test_asyncapi_3_with_one_channel_at_ws():
    assert DOC["asyncapi"] == "3.0.0"
    assert [c["address"] for c in DOC["channels"].values()] == ["/ws"]


def test_the_server_receives_every_client_message_and_sends_every_server_message():
    ops = DOC["operations"].values()
    received = {m["$ref"].rsplit("/", 1)[1] for op in ops if op["action"] == "receive" for m in op["messages"]}
    sent = {m["$ref"].rsplit("/", 1)[1] for op in ops if op["action"] == "send" for m in op["messages"]}
    assert received == set(CLIENT_TYPES)
    assert sent | received == set(DOC["components"]["messages"])
    assert not sent & received


def test_every_ref_resolves():
    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if "$ref" in node:
                target: Any = DOC
                for part in node["$ref"].removeprefix("#/").split("/"):
                    target = target[part]
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)
    walk(DOC)


def test_the_error_schema_lists_the_protocol_error_codes():
    assert SCHEMAS["error"]["properties"]["code"]["enum"] == list(ERROR_CODES)


def test_every_message_has_an_example():
    assert all(m["examples"] for m in DOC["components"]["messages"].values())


# A small validator for the JSON Schema keywords the document uses.
def _errors(value: Any, schema: dict[str, Any], at: str = "") -> list[str]:
    if "$ref" in schema:
        return _errors(value, SCHEMAS[schema["$ref"].rsplit("/", 1)[1]], at)
    out: list[str] = []
    if "oneOf" in schema:
        matching = [s for s in schema["oneOf"] if not _errors(value, s, at)]
        if len(matching) != 1:
            out.append(f"{at}: matches {len(matching)} of oneOf")
    if "type" in schema:
        kinds = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        checks = {"object": lambda v: isinstance(v, dict), "array": lambda v: isinstance(v, list),
                  "string": lambda v: isinstance(v, str), "boolean": lambda v: isinstance(v, bool),
                  "null": lambda v: v is None,
                  "integer": lambda v: isinstance(v, int) and not isinstance(v, bool)}
        if not any(checks[k](value) for k in kinds):
            return [f"{at}: {value!r} is not {kinds}"]
    if "const" in schema and value != schema["const"]:
        out.append(f"{at}: {value!r} != {schema['const']!r}")
    if "enum" in schema and value not in schema["enum"]:
        out.append(f"{at}: {value!r} not in enum")
    if isinstance(value, str):
        if len(value) > schema.get("maxLength", len(value)) or len(value) < schema.get("minLength", 0):
            out.append(f"{at}: length {len(value)}")
    if isinstance(value, int) and not isinstance(value, bool) and value < schema.get("minimum", value):
        out.append(f"{at}: {value} below minimum")
    if isinstance(value, dict):
        out += [f"{at}.{k}: missing" for k in schema.get("required", []) if k not in value]
        for k, sub in schema.get("properties", {}).items():
            if k in value:
                out += _errors(value[k], sub, f"{at}.{k}")
    if isinstance(value, list) and "items" in schema:
        for i, v in enumerate(value):
            out += _errors(v, schema["items"], f"{at}[{i}]")
    return out


@pytest.mark.parametrize("kind, example", EXAMPLES, ids=[ex["name"] for _, ex in EXAMPLES])
def test_each_example_fits_its_message_schema(kind, example):
    assert _errors(example["payload"], SCHEMAS[kind]) == []
    assert orjson.loads(orjson.dumps(example["payload"])) == example["payload"]


@pytest.mark.parametrize("bad", [
    {"type": "join", "match": "m"},                                # no token
    {"type": "join", "match": "m", "token": "t", "since": True},   # bool for int
    {"type": "join", "match": "m", "token": "t", "since": -1},
    {"type": "move", "match": "m", "id": "", "command": {"type": "x"}},
    {"type": "move", "match": "m", "id": "a", "command": {}},
    {"type": "ping", "nonce": "x" * 65},
])
def test_the_schemas_refuse_what_parse_client_refuses(bad):
    assert _errors(bad, SCHEMAS[bad["type"]])


# -- protocol v2's view fields (SPEC 12.2) --------------------------------------------------------

def _spec_12_2_fields() -> dict[str, str]:
    from tools.make_vectors import SPEC

    part = SPEC.read_text().split("### 12.2 ", 1)[1].split("### 12.3 ", 1)[0]
    return dict(re.findall(r"^\| `([a-z_]+)` \| ([^|]+?) \|", part, re.M))


# SPEC's words for a type, as the JSON Schema that says the same
_SPEC_TYPES = {
    "integer ≥ 1": {"type": "integer", "minimum": 1},
    "array of strings": {"type": "array", "items": {"type": "string"}},
    "array of arrays of integers": {"type": "array", "items": {"type": "array", "items": {"type": "integer"}}},
}


def test_the_v2_view_fields_of_spec_12_2_are_in_the_view_schema_with_their_types():
    fields = _spec_12_2_fields()
    assert set(fields) == {"ref", "keys", "paths", "sentences"}
    view = SCHEMAS["view"]["properties"]
    for name, words in fields.items():
        schema = {k: v for k, v in view[name].items() if k != "description"}
        assert schema == _SPEC_TYPES[words], name
    assert not set(fields) & set(SCHEMAS["view"]["required"]), "v1 views have none of them"


def test_the_v2_view_vector_fits_the_view_schema_and_a_wrong_table_does_not():
    (case,) = [c for c in orjson.loads((ASYNCAPI.parent / "vectors" / "v2.json").read_bytes()) if c["name"] == "view"]
    sent = case["v2"]
    assert set(_spec_12_2_fields()) <= set(sent), "the vector is a v2 view"
    assert orjson.loads(case["json"]) == sent
    assert _errors(sent, SCHEMAS["view"]) == []
    for bad in ({"ref": 0}, {"keys": [1]}, {"paths": [["view"]]}, {"sentences": "x"}):
        assert _errors({**sent, **bad}, SCHEMAS["view"]), bad


def test_a_v2_welcome_and_an_error_naming_its_match_fit_their_schemas():
    """SPEC 12.1: welcome.protocol is 2 on v2; SPEC 5.10: an error carries the match its message named."""
    welcome = {"type": "welcome", "protocol": 2, "encoding": "json", "server": "s", "session": "x",
               "max_frame": 65536, "games": ["pixies"]}
    assert _errors(welcome, SCHEMAS["welcome"]) == []
    assert _errors({**welcome, "protocol": 3}, SCHEMAS["welcome"])
    stale = {"type": "error", "code": "stale", "message": "m", "ref": "a-1", "match": "Xq3vN8kPz2Lm", "seq": 9}
    assert _errors(stale, SCHEMAS["error"]) == []
    assert _errors({**stale, "match": 7}, SCHEMAS["error"])
