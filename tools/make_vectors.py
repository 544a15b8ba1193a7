"""Regenerate protocol/vectors/ and the generated examples in protocol/SPEC.md.

    .venv/bin/python -m tools.make_vectors

Nothing here is hand-typed: the script starts a real server process (`teahouse serve` on a free
port, a temporary SQLite store), plays a 2-player pixies match against it over real WebSocket
connections (one JSON, two msgpack), and records what the server answered. Randomness the server
draws from the OS (seed, match ids, seat tokens, session ids) and the clock are pinned to fixed
values in that process (`--serve`, below) so the output is stable; everything else is the
server's own behaviour. Each recorded message is then encoded with protocol.codec, exactly as
service.match.projection.Frame encodes it.

Outputs:
- protocol/vectors/<name>.json and <name>.msgpack: one message per file, the exact frame bytes;
- protocol/vectors/index.json: name, direction, type, description and decoded value of each;
- protocol/vectors/invalid.json: client frames the server refuses, with the error code it sends;
- protocol/vectors/http.json: HTTP lobby calls with the status and body the app answered;
- the blocks between `<!-- gen:NAME -->` and `<!-- /gen -->` in protocol/SPEC.md.

    .venv/bin/python -m tools.make_vectors --check

records the same session again and lists the committed files that differ from what the server
sends now (exit status 1 if any): tests/protocol/test_vectors_against_the_server.py runs it, so
a vector that disagrees with the server fails a test. tests/protocol/test_vectors.py checks the
files against each other and against SPEC.md.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import itertools
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgpack
import orjson

from protocol.codec import decode, encode

ROOT = Path(__file__).resolve().parents[1]
VECTORS = ROOT / "protocol" / "vectors"
SPEC = ROOT / "protocol" / "SPEC.md"

SEED = hashlib.sha256(b"teahouse protocol v1 example seed").hexdigest()
MATCH = "Xq3vN8kPz2Lm"
FORK = "fK7dQ2wLx9Ty"
TOKENS = ["q6Jm1Yc3T0kVbZr8sWl2nE4uXo9aHd5gRf7iPe0yKtA", "Hb2Wn8Lc4Qz6Vr0Tk9Xs3Mj7Pd1Fg5Ya8Ue2Oi6Rl4"]

DEBUG = bool(os.environ.get("VECTORS_DEBUG"))
GEN_START = re.compile(r"<!-- gen:([A-Za-z0-9_.-]+) -->\n.*?<!-- /gen -->", re.S)


# -- rendering (shared with the tests) ----------------------------------------------------------

def hex_lines(data: bytes, width: int = 64) -> str:
    h = data.hex()
    return "\n".join(h[i:i + width] for i in range(0, len(h), width))


def render_frame(name: str, vectors: Path = VECTORS) -> str:
    """The SPEC block of one vector: its JSON text frame and its msgpack frame as hex."""
    j = (vectors / f"{name}.json").read_bytes()
    m = (vectors / f"{name}.msgpack").read_bytes()
    return (f"JSON text frame ({len(j)} bytes), `vectors/{name}.json`:\n\n```json\n{j.decode()}\n```\n\n"
            f"msgpack binary frame ({len(m)} bytes, hex), `vectors/{name}.msgpack`:\n\n```text\n{hex_lines(m)}\n```\n")


def _inline(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{orjson.dumps(k).decode()}: {_inline(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_inline(v) for v in value) + "]"
    return orjson.dumps(value).decode()


def _pretty(value: Any, indent: int = 0, width: int = 96) -> str:
    """Indented JSON that keeps short maps and arrays on one line."""
    flat = _inline(value)
    if not isinstance(value, (dict, list)) or not value or indent + len(flat) <= width:
        return flat
    pad = " " * (indent + 2)
    if isinstance(value, dict):
        items = [f"{pad}{orjson.dumps(k).decode()}: {_pretty(v, indent + 2, width)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
    items = [pad + _pretty(v, indent + 2, width) for v in value]
    return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"


def render_http(call: dict[str, Any]) -> str:
    req = f"{call['method']} {call['path']}"
    if call.get("body") is not None:
        body = call["body"] if isinstance(call["body"], str) else orjson.dumps(call["body"]).decode()
        req += f"\nContent-Type: {call.get('request_type', 'application/json')}\n\n{body}"
    resp = call["response"]
    if isinstance(resp, str):
        shown = resp
    else:
        shown = _pretty(resp)
    note = f"\n\n{call['note']}" if call.get("note") else ""
    return (f"```http\n{req}\n```\n\n→ `{call['status']}` ({call['content_type']})\n\n"
            f"```{'json' if not isinstance(resp, str) else 'text'}\n{shown}\n```{note}\n")


def render_blocks(vectors: Path = VECTORS) -> dict[str, str]:
    """Every generated SPEC block, by name, from the files in `vectors`."""
    blocks: dict[str, str] = {}
    index = orjson.loads((vectors / "index.json").read_bytes())
    for entry in index:
        blocks[entry["name"]] = render_frame(entry["name"], vectors)
    for call in orjson.loads((vectors / "http.json").read_bytes()):
        blocks[f"http.{call['name']}"] = render_http(call)
    invalid = orjson.loads((vectors / "invalid.json").read_bytes())
    rows = ["| name | frame sent (JSON text, or msgpack hex) | error code |", "|---|---|---|"]
    for v in invalid:
        shown = v["json"] if "json" in v else f"msgpack `{v['msgpack_hex']}`"
        shown = shown.replace("|", "\\|")
        rows.append(f"| {v['name']} | `{shown}` | `{v['code']}` |" if "json" in v
                    else f"| {v['name']} | {shown} | `{v['code']}` |")
    blocks["invalid"] = "\n".join(rows) + "\n"
    fair = orjson.loads((vectors / "fairness.json").read_bytes())
    blocks["fairness"] = f"```json\n{_pretty(fair)}\n```\n"
    close = orjson.loads((vectors / "close.json").read_bytes())
    blocks["close_4406"] = f"```text\nclose code {close['code']}, reason: {close['reason']}\n```\n"
    return blocks


def fill_spec(text: str, blocks: dict[str, str]) -> str:
    def sub(m: re.Match[str]) -> str:
        name = m.group(1)
        if name not in blocks:
            raise KeyError(f"SPEC.md asks for an unknown generated block {name!r}")
        return f"<!-- gen:{name} -->\n{blocks[name]}<!-- /gen -->"
    return GEN_START.sub(sub, text)


# -- the AsyncAPI document -------------------------------------------------------------------------

ASYNCAPI = ROOT / "protocol" / "asyncapi.yaml"
CLIENT_MESSAGES = ["hello", "join", "spectate", "leave", "move", "legal", "resync", "ping"]
SERVER_MESSAGES = ["welcome", "view", "patch", "ack", "reject", "legal_moves", "presence", "finished", "clock",
                   "error", "left", "pong"]
# request -> the server messages that answer it (AsyncAPI 3 `reply`)
REPLIES = {"hello": ["welcome", "error"], "join": ["view", "patch", "finished", "clock", "presence", "error"],
           "spectate": ["view", "patch", "finished", "clock", "presence", "error"], "leave": ["left", "error"],
           "move": ["ack", "reject", "error"], "legal": ["legal_moves", "error"],
           "resync": ["view", "patch", "presence", "error"], "ping": ["pong", "error"]}


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _obj(kind: str, required: list[str], props: dict[str, Any], description: str) -> dict[str, Any]:
    return {"type": "object", "description": description, "required": ["type", *required],
            "properties": {"type": {"type": "string", "const": kind}, **props}}


def asyncapi_schemas() -> dict[str, Any]:
    from protocol.errors import ERROR_CODES
    from protocol.messages import MATCH_ID_MAX, MOVE_ID_MAX, REF_MAX, TOKEN_MAX

    match = _ref("MatchId")
    answer_ref = {"type": "string", "maxLength": REF_MAX,
                  "description": "Optional; the presence that ends the answer carries it back (SPEC 3.1)."}
    return {
        "MatchId": {"type": "string", "maxLength": MATCH_ID_MAX, "description": "A match id (server ids: 12 URL-safe characters)."},
        "MoveId": {"type": "string", "minLength": 1, "maxLength": MOVE_ID_MAX,
                   "description": "The client's id for a move; unique per move of a seat; reuse it only to retry."},
        "Seq": {"type": "integer", "minimum": 0, "description": "A commit number: 1, 2, 3, ... (0: before the start)."},
        "Seat": {"type": "integer", "minimum": 0, "description": "A seat number, 0 to players - 1."},
        "Command": {"type": "object", "required": ["type"], "properties": {"type": {"type": "string"}},
                    "description": "A game command (docs/games/<id>.md). Keys are strings at every depth; at most 32 levels deep."},
        "Status": {"type": "object", "required": ["phase", "to_act", "finished", "result"], "properties": {
            "phase": {"type": "string"}, "to_act": {"type": "array", "items": _ref("Seat")},
            "finished": {"type": "boolean"}, "result": {"type": ["object", "null"]}},
            "description": "The game's status, the same for every audience."},
        "Document": {"type": "object", "required": ["view", "status"], "properties": {
            "view": {"type": "object", "description": "The game's view for this audience (docs/games/<id>.md)."},
            "status": _ref("Status")}, "description": "What patches apply to (SPEC section 6)."},
        "PatchOp": {"oneOf": [
            {"type": "object", "required": ["op", "path", "value"], "properties": {
                "op": {"type": "string", "enum": ["add", "replace"]}, "path": _ref("Path"), "value": {}}},
            {"type": "object", "required": ["op", "path"], "properties": {
                "op": {"type": "string", "const": "remove"}, "path": _ref("Path")}}],
            "description": "One operation; SPEC section 6.3 gives the exact apply rules."},
        "Path": {"type": "array", "items": {"type": ["string", "integer"]},
                 "description": "Map keys (strings) and array indexes (integers) from the document's root."},
        # client -> server
        "hello": _obj("hello", [], {"client": {"type": "string", "maxLength": 200},
                                    "said": {"type": "boolean", "default": True,
                                             "description": "false: this connection's patches leave out said "
                                                            "(SPEC 4.1), for a client that shows no sentences."},
                                    "said_keys": {"type": "boolean", "default": False,
                                                  "description": "true: this connection's patches carry said_keys "
                                                                 "beside said (SPEC 3.14, 4.1): each sentence's "
                                                                 "message key and parameters."}},
                      "The first message of a session. Answered by welcome."),
        "join": _obj("join", ["match", "token"], {"match": match, "token": {"type": "string", "maxLength": TOKEN_MAX},
                                                  "since": _ref("Seq"), "ref": answer_ref},
                     "Play a seat with its token. Answered, in this order, by view (or patches after since), finished if over, clock if running, then presence with reply, which ends the answer."),
        "spectate": _obj("spectate", ["match"], {
            "match": match, "since": _ref("Seq"), "ref": answer_ref,
            "key": {"type": "string", "maxLength": TOKEN_MAX,
                    "description": "A private match's spectator key, from the answer that created it (SPEC 2.4): "
                                   "a match with spectators \"link\" needs it (else the error spectator_key); one "
                                   "with spectators \"off\" answers spectators_off."}},
            "Watch as a spectator. Answered like join; in a match with a spectator delay (SPEC 2.4) the view and "
            "patches come at the public seq, and no clock."),
        "leave": _obj("leave", ["match"], {"match": match}, "Stop watching a match. Answered by left."),
        "move": _obj("move", ["match", "id", "command"], {
            "match": match, "id": _ref("MoveId"), "command": _ref("Command"), "seat": _ref("Seat"),
            "at": {"type": "integer", "minimum": 0, "description": "The seq of the document the move was decided on: at another seq the "
                                                 "move is refused with the error stale (SPEC 3.5), unless its id was "
                                                 "already committed."}},
                     "Play a command. Answered by ack (after the patch), reject or error, all with the same id."),
        "legal": _obj("legal", ["match"], {"match": match, "page": {"type": "integer", "minimum": 0}},
                      "Ask for the seat's legal moves (page: which page of a long list, default 0). Answered by legal_moves."),
        "resync": _obj("resync", ["match", "since"], {"match": match, "since": _ref("Seq"), "ref": answer_ref},
                       "Ask for what follows seq since: patches, or a full view, then presence with reply, which ends the answer."),
        "ping": _obj("ping", [], {"nonce": {"oneOf": [{"type": "integer", "minimum": 0},
                                                      {"type": "string", "maxLength": 64}]}},
                     "Application-level ping, allowed before hello. Answered by pong."),
        # server -> client
        "welcome": _obj("welcome", ["protocol", "encoding", "server", "session", "max_frame", "games"], {
            "protocol": {"type": "integer", "enum": [1, 2],
                         "description": "1 on teahouse.v1.*, 2 on teahouse.v2.* (SPEC 12.1)."}, "encoding": {"type": "string", "enum": ["msgpack", "json"]},
            "server": {"type": "string"}, "session": {"type": "string"}, "max_frame": {"type": "integer"},
            "games": {"type": "array", "items": {"type": "string"}}}, "The answer to hello."),
        "view": _obj("view", ["match", "seq", "seat", "doc"], {
            "match": match, "seq": _ref("Seq"), "seat": {"type": ["integer", "null"], "minimum": 0},
            "doc": _ref("Document"),
            "ref": {"type": "integer", "minimum": 1, "description": "Protocol v2 only: the number naming this match "
                                                                    "in compact frames (SPEC 12.2)."},
            "keys": {"type": "array", "items": {"type": "string"}, "description": "Protocol v2 only: the key table."},
            "paths": {"type": "array", "items": {"type": "array", "items": {"type": "integer"}},
                      "description": "Protocol v2 only: the path table, each path in its wire form."},
            "sentences": {"type": "array", "items": {"type": "string"},
                          "description": "Protocol v2 only: the match's sentence table."}},
            "A full document; it replaces what the client held."),
        "patch": _obj("patch", ["match", "seq", "ops"], {
            "match": match, "seq": _ref("Seq"), "ops": {"type": "array", "items": _ref("PatchOp")},
            "said": {"type": "array", "items": {"type": "string"},
                     "description": "The commit's sentences for people, in English; the same for every audience "
                                    "(SPEC section 5.3). Optional: clients that do not show words ignore it, "
                                    "or say `said: false` in hello to get none."},
            "said_keys": {"type": "array",
                          "items": {"anyOf": [{"type": "null"}, {
                              "type": "object", "required": ["key", "params"],
                              "properties": {"key": {"type": "string"}, "params": {"type": "object"}}}]},
                          "description": "Parallel to said: each sentence's message key and parameters, or null "
                                         "(SPEC 3.14), to say it in the reader's language. Only on a connection "
                                         "whose hello said `said_keys: true`, and only when some sentence has a key."}},
            "The change from seq - 1 to seq of the audience's document."),
        "ack": _obj("ack", ["match", "id", "seq"], {"match": match, "id": _ref("MoveId"), "seq": _ref("Seq")},
                    "The move is commit seq."),
        "reject": _obj("reject", ["match", "id", "code", "message"], {
            "match": match, "id": _ref("MoveId"), "code": {"type": "string"}, "message": {"type": "string"}},
            "The game refused the move; code is the game's (docs/games/<id>.md)."),
        "legal_moves": _obj("legal_moves", ["match", "seq", "moves", "page", "pages", "total"], {
            "match": match, "seq": _ref("Seq"), "moves": {"type": "array", "items": _ref("Command")},
            "labels": {"type": "array", "items": {"type": "string"},
                       "description": "A short English label per move, parallel to moves, as the seat sees it."},
            "page": {"type": "integer", "minimum": 0, "description": "Which page of the list this is (SPEC 3.6)."},
            "pages": {"type": "integer", "minimum": 1, "description": "How many pages the list at seq has."},
            "total": {"type": "integer", "minimum": 0, "description": "How many moves all the pages hold."}},
            "The commands the seat may send at seq (one page of them)."),
        "presence": _obj("presence", ["match", "seats", "spectators"], {
            "match": match, "seats": {"type": "array", "items": {"type": "boolean"}},
            "spectators": {"type": "integer", "minimum": 0},
            "reply": {"type": "string", "enum": ["join", "spectate", "resync"],
                      "description": "Only in the presence that ends the answer to that request (SPEC 3.1); a "
                                     "broadcast presence never has it. Sent as this map in v2 too."},
            "ref": {"type": "string", "description": "With reply: the request's ref, if it carried one."}},
            "Who is connected, over every node."),
        "finished": _obj("finished", ["match", "seq", "result", "seed"], {
            "match": match, "seq": _ref("Seq"), "result": {"type": ["object", "null"]},
            "seed": {"type": "string", "description": "The revealed seed (SPEC section 10)."},
            "ratings": {"type": "array", "description": "Only for a rated match: each seat's rating change (SPEC 2.16, 5.8).",
                        "items": {"type": "object", "required": ["player", "before", "after", "change", "rd", "provisional"]}}},
            "The match is over."),
        "error": _obj("error", ["code", "message", "ref"], {
            "code": {"type": "string", "enum": list(ERROR_CODES)}, "message": {"type": "string"},
            "ref": {"type": ["string", "null"]}, "match": {"type": "string", "maxLength": MATCH_ID_MAX,
                                                 "description": "The match the failed message named, if any."},
            "retry_after_ms": {"type": "integer", "minimum": 0,
                               "description": "rate_limited only: send the same message again after this many ms."},
            "seq": {"type": "integer", "minimum": 0, "description": "stale only: the match's seq now (the move's at was another)."}},
            "A protocol error; the connection stays open, the match is unchanged."),
        "clock": _obj("clock", ["match", "seq", "deadline"], {
            "match": match, "seq": _ref("Seq"),
            "deadline": {"type": ["integer", "null"], "description": "Milliseconds since the Unix epoch; null: no clock runs."},
            "banks": {"type": "array", "items": {"type": "integer", "minimum": 0},
                      "description": "Only under a Fischer clock (SPEC 3.10): each seat's bank at seq, in milliseconds."}},
            "The turn clock (matches created with turn_seconds or a time_control): the seats to act at seq must move "
            "by deadline, or the server plays for them (a bot, a random or the first legal move: the match's absent "
            "option)."),
        "left": _obj("left", ["match"], {"match": match}, "The answer to leave."),
        "pong": _obj("pong", ["nonce"], {"nonce": {"type": ["integer", "string", "null"]}}, "The answer to ping."),
    }


def asyncapi_document(vectors: Path = VECTORS) -> dict[str, Any]:
    index = orjson.loads((vectors / "index.json").read_bytes())
    schemas = asyncapi_schemas()
    messages: dict[str, Any] = {}
    for kind in CLIENT_MESSAGES + SERVER_MESSAGES:
        examples, hexes = [], {}
        for e in index:
            if e["type"] != kind:
                continue
            examples.append({"name": e["name"], "summary": e["description"], "payload": e["value"]})
            hexes[e["name"]] = (vectors / f"{e['name']}.msgpack").read_bytes().hex()
        messages[kind] = {"name": kind, "title": kind, "summary": schemas[kind]["description"],
                          "payload": {"$ref": f"#/components/schemas/{kind}"}, "examples": examples,
                          "x-msgpack-hex": hexes}
    operations: dict[str, Any] = {}
    for kind in CLIENT_MESSAGES:
        op: dict[str, Any] = {"action": "receive", "channel": {"$ref": "#/channels/ws"},
                              "summary": f"A client sends {kind}.",
                              "messages": [{"$ref": f"#/channels/ws/messages/{kind}"}]}
        op["reply"] = {"channel": {"$ref": "#/channels/ws"},
                       "messages": [{"$ref": f"#/channels/ws/messages/{r}"} for r in REPLIES[kind]]}
        operations[f"receive_{kind}"] = op
    for kind in SERVER_MESSAGES:
        operations[f"send_{kind}"] = {"action": "send", "channel": {"$ref": "#/channels/ws"},
                                      "summary": f"The server sends {kind}.",
                                      "messages": [{"$ref": f"#/channels/ws/messages/{kind}"}]}
    head = ("the first element is h = 4 * ref + kind (kind 0 patch, 1 ack, 2 finished, 3 presence). In msgpack a "
            "compact frame is sent as its elements one after another, without the array's header (SPEC 12.1). ")
    schemas["patch_v2"] = {
        "type": "array", "minItems": 2,
        "description": ("Protocol v2's patch (SPEC 12.3): [4 * ref, seq, op stream..., said?, extras?]; " + head
                        + "Each op is a header H. H >= 0: kind = H % 4 (add, remove, replace, intern), keep = "
                        "H // 4 % 8, fresh = H // 32; its fresh path elements (>= 0 an array index, -1-k the key "
                        "table's key k), then the value for add and replace; H = 3 is a key intern followed by a "
                        "string; kind 3 with a path is a replace that appends the path to the path table. H < 0: "
                        "a replace at the path table's path -1-H, then the value. A trailing array is the patch's "
                        "said (a string, [string] appended to the sentence table, or a sentence index); a "
                        "trailing map holds its other fields."),
        "prefixItems": [{"type": "integer", "minimum": 4, "multipleOf": 4}, {"type": "integer", "minimum": 0}],
    }
    schemas["ack_v2"] = {
        "type": "array", "minItems": 3, "maxItems": 3,
        "description": "Protocol v2's ack (SPEC 12.3): [4 * ref + 1, seq, id]; " + head,
        "prefixItems": [{"type": "integer", "minimum": 5}, {"type": "integer", "minimum": 1}, {"type": "string"}],
    }
    schemas["presence_v2"] = {
        "type": "array", "minItems": 3, "maxItems": 3,
        "description": "Protocol v2's presence (SPEC 12.3): [4 * ref + 3, seats, spectators]; " + head,
        "prefixItems": [{"type": "integer", "minimum": 7}, {"type": "array", "items": {"type": "boolean"}},
                        {"type": "integer", "minimum": 0}],
    }
    schemas["finished_v2"] = {
        "type": "array", "minItems": 4, "maxItems": 5,
        "description": "Protocol v2's finished (SPEC 12.3): [4 * ref + 2, seq, result, seed], and for a rated match "
                       "the extras map {\"ratings\": [...]}; " + head,
        "prefixItems": [{"type": "integer", "minimum": 6}, {"type": "integer", "minimum": 1},
                        {"type": ["object", "null"]}, {"type": "string"}, {"type": "object"}],
    }
    return {
        "asyncapi": "3.0.0",
        "info": {
            "title": "Teahouse protocol",
            "version": "1",
            "description": (
                "The WebSocket protocol (v1, and v2 below) of a Teahouse board-game server, seen from the server: it\n"
                "receives the client messages and sends the server messages. protocol/SPEC.md is the\n"
                "normative text (session rules, patch semantics, error and close codes, limits, fair\n"
                "randomness); this document gives the same messages as schemas with examples.\n"
                "\n"
                "Each message travels in one of two encodings, chosen by the WebSocket subprotocol:\n"
                "teahouse.v1.json (UTF-8 text frames, JSON) or teahouse.v1.msgpack (binary frames,\n"
                "MessagePack). The payloads are the same; every example gives the JSON value as\n"
                "`payload`, and the message's `x-msgpack-hex` maps each example's name to its exact msgpack frame. Generated by\n"
                "tools/make_vectors.py from frames recorded from the real server.\n"
                "Receivers ignore fields they do not know.\n"
                "\n"
                "Protocol v2 (subprotocols teahouse.v2.msgpack and teahouse.v2.json, SPEC section 12)\n"
                "is the same protocol with `patch`, `ack`, `finished` and `presence` sent as compact arrays\n"
                "(the schemas patch_v2, ack_v2, finished_v2 and presence_v2; in msgpack their elements follow one another\n"
                "without an array header) and `view` carrying `ref`, `keys`, `paths` and `sentences`;\n"
                "`welcome.protocol` is 2, and the presence that ends an answer (with `reply`) stays a map.\n"
                "Its vectors are in protocol/vectors/v2.json."),
        },
        "defaultContentType": "application/json",
        "servers": {
            "local": {"host": "localhost:8000", "protocol": "ws",
                      "description": "`teahouse serve` on this machine (default port 8000)."},
            "tls": {"host": "{host}", "protocol": "wss", "description": "A deployment behind TLS.",
                    "variables": {"host": {"default": "teahouse.example.org"}}},
        },
        "channels": {
            "ws": {
                "address": "/ws",
                "title": "A Teahouse session",
                "description": ("One WebSocket connection. Offer teahouse.v2.msgpack, teahouse.v2.json, teahouse.v1.msgpack\n"
                                "and/or teahouse.v1.json in\n"
                                "Sec-WebSocket-Protocol; none of them: the server closes with 4406. A client\n"
                                "that does not read fast enough (512 frames queued) is closed with 4408.\n"
                                "Frames over 64 KiB are answered with error frame_too_large, over 1 MiB\n"
                                "closed with 1009. permessage-deflate is not used."),
                "messages": {k: {"$ref": f"#/components/messages/{k}"} for k in CLIENT_MESSAGES + SERVER_MESSAGES},
                "bindings": {"ws": {"bindingVersion": "0.1.0", "method": "GET", "headers": {
                    "type": "object", "required": ["Sec-WebSocket-Protocol"], "properties": {
                        "Sec-WebSocket-Protocol": {"type": "string",
                                                   "description": "teahouse.v2.msgpack, teahouse.v2.json, "
                                                                  "teahouse.v1.msgpack, teahouse.v1.json: one or "
                                                                  "more in order of preference"}}}}},
            },
        },
        "operations": operations,
        "components": {"messages": messages, "schemas": schemas},
    }


_PLAIN_KEY = re.compile(r"^[A-Za-z_$][A-Za-z0-9_.$-]*$")


def _scalar(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    return orjson.dumps(v).decode()  # a JSON string is a valid YAML double-quoted scalar


def _key(k: str) -> str:
    return k if _PLAIN_KEY.match(k) and k not in ("null", "true", "false", "y", "n", "yes", "no", "on", "off") \
        else orjson.dumps(k).decode()


def to_yaml(value: Any, indent: int = 0) -> list[str]:
    """Block-style YAML for plain data (maps, lists, str, int, bool, None). Small on purpose."""
    pad = " " * indent
    lines: list[str] = []
    if isinstance(value, dict):
        for k, v in value.items():
            if isinstance(v, (dict, list)) and v:
                lines.append(f"{pad}{_key(k)}:")
                lines.extend(to_yaml(v, indent + 2))
            elif isinstance(v, str) and "\n" in v:
                lines.append(f"{pad}{_key(k)}: |-")
                lines.extend(f"{pad}  {line}" if line else "" for line in v.split("\n"))
            else:
                lines.append(f"{pad}{_key(k)}: {_scalar(v) if not isinstance(v, (dict, list)) else ('{}' if isinstance(v, dict) else '[]')}")
    elif isinstance(value, list):
        for item in value:
            if isinstance(item, (dict, list)) and item:
                sub = to_yaml(item, indent + 2)
                lines.append(f"{pad}- {sub[0].lstrip()}")
                lines.extend(sub[1:])
            else:
                lines.append(f"{pad}- {_scalar(item) if not isinstance(item, (dict, list)) else ('{}' if isinstance(item, dict) else '[]')}")
    else:
        lines.append(pad + _scalar(value))
    return lines


def render_asyncapi(vectors: Path = VECTORS) -> str:
    head = "# Generated by tools/make_vectors.py from protocol/vectors/; do not edit by hand.\n"
    return head + "\n".join(to_yaml(asyncapi_document(vectors))) + "\n"


# -- capturing a real session ---------------------------------------------------------------------

class Recorder:
    def __init__(self) -> None:
        self.frames: dict[str, tuple[str, dict[str, Any], str]] = {}
        self.http: list[dict[str, Any]] = []
        self.invalid: list[dict[str, Any]] = []

    def keep(self, name: str, direction: str, message: dict[str, Any], description: str) -> None:
        assert name not in self.frames, name
        self.frames[name] = (direction, message, description)


class Conn:
    """A WebSocket connection (websockets' client) speaking one encoding, decoding what arrives."""

    def __init__(self, ws: Any, encoding: str) -> None:
        self.ws, self.encoding = ws, encoding
        self.doc: dict[str, Any] | None = None
        self.seq = -1

    def send(self, msg: Any) -> Any:
        data = encode(msg, self.encoding)
        self.ws.send(data if self.encoding == "msgpack" else data.decode())
        return msg

    def send_raw(self, data: bytes | str) -> None:
        self.ws.send(data)

    def recv(self) -> dict[str, Any]:
        frame = self.ws.recv(timeout=RECV_TIMEOUT_S)
        if self.encoding == "msgpack":
            assert isinstance(frame, bytes), "a msgpack connection must receive binary frames"
        else:
            assert isinstance(frame, str), "a json connection must receive text frames"
        msg = decode(frame, self.encoding)
        if DEBUG:
            print(self.encoding, "<-", msg)
        self._track(msg)
        return msg

    def _track(self, msg: dict[str, Any]) -> None:
        from protocol.patch import apply

        if msg["type"] == "view":
            self.doc, self.seq = msg["doc"], msg["seq"]
        elif msg["type"] == "patch" and msg["seq"] == self.seq + 1:
            self.doc, self.seq = apply(self.doc, msg["ops"]), msg["seq"]

    def expect(self, *kinds: str) -> list[dict[str, Any]]:
        got = [self.recv() for _ in kinds]
        assert [m["type"] for m in got] == list(kinds), (kinds, got)
        return got


def _pinned(module: types.ModuleType, **overrides: Any) -> types.ModuleType:
    """A stand-in for `module` with some functions replaced; everything else is the real one."""

    class Pinned(types.ModuleType):
        def __getattr__(self, name: str) -> Any:
            return getattr(module, name)

    stand_in = Pinned(module.__name__)
    for name, fn in overrides.items():
        setattr(stand_in, name, fn)
    return stand_in


@contextlib.contextmanager
def _pinned_randomness() -> Iterator[None]:
    """Pin the server's seed, ids, tokens, session ids and wall clock; restore them after."""
    import secrets
    import time

    import service.http.lobby_routes
    import service.match.clock
    import service.match.lobby
    import service.match.runtime
    import service.ws.session

    clock = itertools.count(1_780_000_000_000, 1_250)
    ids = iter([MATCH, FORK, "Rw5tY8uI1oPa", "Zx2cV4bN6mQs", "Lk9jH7gF5dSa"])
    tokens = iter(TOKENS + [base64.urlsafe_b64encode(hashlib.sha256(b"token %d" % i).digest()).decode()[:43]
                            for i in range(100)])
    seeds = iter([SEED] + [hashlib.sha256(b"seed %d" % i).hexdigest() for i in range(100)])
    # (the creation's invites and spectator keys: a stream of their own, so that the seat tokens stay TOKENS)
    links = iter(base64.urlsafe_b64encode(hashlib.sha256(b"link %d" % i).digest()).decode()[:43] for i in range(100))
    sessions = iter(f"5e55{i:012x}" for i in itertools.count(1))
    # Only the wall clock is pinned (commit and creation times); monotonic and sleep stay real.
    fake_time = _pinned(time, time=lambda: next(clock) / 1000)
    pins = [(service.match.lobby, "new_seed", lambda: next(seeds)),
            (service.match.lobby, "new_match_id", lambda: next(ids)),
            (service.match.lobby, "secrets", _pinned(secrets, token_urlsafe=lambda n=32: next(tokens))),
            (service.match.lobby, "time", fake_time),
            (service.http.lobby_routes, "new_secret", lambda: next(links)),
            (service.match.runtime, "time", fake_time),
            (service.match.clock, "time", fake_time),
            (service.ws.session, "secrets", _pinned(secrets, token_hex=lambda n=8: next(sessions)))]
    saved = [(module, name, getattr(module, name)) for module, name, _ in pins]
    try:
        for module, name, value in pins:
            setattr(module, name, value)
        yield
    finally:
        for module, name, value in saved:
            setattr(module, name, value)


RECV_TIMEOUT_S = 30.0
READY_TIMEOUT_S = 60.0


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def serve_pinned(port: int, store_url: str) -> int:
    """The server process: `teahouse serve` with the randomness and the clock pinned."""
    from service import cli

    with _pinned_randomness():
        return cli.main(["serve", "--host", "127.0.0.1", "--port", str(port), "--store", store_url,
                         "--log-level", "warning", "--no-access-log"])


@contextlib.contextmanager
def _server() -> Iterator[str]:
    """A real server process on a free port, its URL while the block runs."""
    import httpx

    with tempfile.TemporaryDirectory(prefix="teahouse-vectors-") as tmp:
        port = _free_port()
        proc = subprocess.Popen([sys.executable, "-m", "tools.make_vectors", "--serve", str(port),
                                 f"sqlite:{tmp}/store"], cwd=ROOT)
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + READY_TIMEOUT_S
            while True:
                if proc.poll() is not None:
                    raise RuntimeError(f"the server exited with {proc.returncode} before it answered")
                try:
                    if httpx.get(f"{url}/health/live", timeout=1.0).status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                if time.monotonic() > deadline:
                    raise RuntimeError(f"the server did not answer within {READY_TIMEOUT_S:g} s")
                time.sleep(0.1)
            yield url
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def capture(rec: Recorder) -> None:
    import httpx

    with _server() as url, httpx.Client(base_url=url, timeout=RECV_TIMEOUT_S) as http:
        _session(rec, http, url.replace("http://", "ws://") + "/ws")


def _session(rec: Recorder, http: Any, ws_url: str) -> None:
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    def websocket(*subprotocols: str) -> Any:
        return connect(ws_url, subprotocols=list(subprotocols), compression=None,  # type: ignore[arg-type]
                       open_timeout=RECV_TIMEOUT_S, close_timeout=RECV_TIMEOUT_S)

    def call(name: str, method: str, path: str, body: Any = None, note: str = "",
             keep: Any = None, send_type: str = "application/json") -> Any:
        kw: dict[str, Any] = {}
        if isinstance(body, str):
            kw["content"] = body.encode()
            kw["headers"] = {"Content-Type": send_type}
        elif body is not None:
            kw["json"] = body
        r = http.request(method, path, **kw)
        ctype = r.headers.get("content-type", "").split(";")[0]
        data = r.json() if ctype == "application/json" else r.text
        shown = keep(data) if keep else data
        rec.http.append({"name": name, "method": method, "path": path, "body": body, "status": r.status_code,
                         "content_type": ctype, "response": shown, "note": note})
        if send_type != "application/json":
            rec.http[-1]["request_type"] = send_type
        return data

    call("health", "GET", "/health")
    call("games", "GET", "/api/games")
    call("create", "POST", "/api/matches", {"game": "pixies", "players": 2, "options": {"first_player": 0}})
    call("create_unknown_game", "POST", "/api/matches", {"game": "chess", "players": 2})
    call("create_bad_players", "POST", "/api/matches", {"game": "pixies", "players": 9})
    call("create_bad_field", "POST", "/api/matches", {"game": "pixies", "players": "two"})
    call("create_bad_json", "POST", "/api/matches", "{not json")
    call("create_text_plain", "POST", "/api/matches", '{"game": "pixies", "players": 2}', send_type="text/plain",
         note="a body that is not sent as application/json is refused, whatever it holds")
    call("list", "GET", "/api/matches?state=open")
    call("get", "GET", f"/api/matches/{MATCH}")
    call("get_unknown", "GET", "/api/matches/nope")
    call("not_found", "GET", "/api/nothing-here",
         note="Paths outside the API answer Starlette's plain-text 404 (and 405 for a wrong method).")

    # -- the WebSocket session -------------------------------------------------------------
    with websocket("teahouse.v2.cbor") as ws:
        try:
            ws.recv(timeout=RECV_TIMEOUT_S)
            raise AssertionError("expected a close")
        except ConnectionClosed as exc:
            assert exc.rcvd is not None, "the server closed without a close frame"
            rec.unsupported = (exc.rcvd.code, exc.rcvd.reason)  # type: ignore[attr-defined]

    with websocket("teahouse.v1.json") as wa, websocket("teahouse.v1.msgpack") as ws_spec:
        a, s = Conn(wa, "json"), Conn(ws_spec, "msgpack")
        assert wa.subprotocol == "teahouse.v1.json"
        assert ws_spec.subprotocol == "teahouse.v1.msgpack"

        rec.keep("ping", "client", a.send({"type": "ping", "nonce": 1}), "ping, allowed even before hello")
        rec.keep("pong", "server", a.expect("pong")[0], "answer to ping, echoing its nonce")
        a.send({"type": "join", "match": MATCH, "token": TOKENS[0]})
        rec.keep("error_hello_required", "server", a.expect("error")[0], "a message other than hello or ping before hello")
        rec.keep("hello", "client", a.send({"type": "hello", "client": "example-client/1.0"}), "first message of a session")
        rec.keep("welcome", "server", a.expect("welcome")[0], "answer to hello")
        a.send({"type": "hello"})
        rec.keep("error_already_greeted", "server", a.expect("error")[0], "a second hello")
        rec.keep("ping_without_nonce", "client", a.send({"type": "ping"}), "ping without a nonce")
        rec.keep("pong_without_nonce", "server", a.expect("pong")[0], "answer to a ping without nonce")

        a.send({"type": "join", "match": MATCH, "token": "not-a-token"})
        rec.keep("error_bad_token", "server", a.expect("error")[0], "join with a token of no seat")
        a.send({"type": "spectate", "match": "nope"})
        rec.keep("error_unknown_match", "server", a.expect("error")[0], "join or spectate of an unknown match")
        a.send({"type": "legal", "match": MATCH})
        rec.keep("error_not_joined", "server", a.expect("error")[0], "a match message before join/spectate")

        seat0 = call("take_seat", "POST", f"/api/matches/{MATCH}/seats", {"name": "Ada"})
        rec.keep("join", "client", a.send({"type": "join", "match": MATCH, "token": seat0["token"]}),
                 "take seat 0 of the match with the token from POST /api/matches/{match}/seats")
        rec.keep("view_waiting", "server", a.expect("view", "presence")[0],
                 "full document of seat 0 before the match starts (seq 0)")

        rec.keep("hello_said_keys", "client", s.send({"type": "hello", "said_keys": True}),
                 "a session whose patches carry each sentence's message key too (SPEC 3.14)")
        s.expect("welcome")
        rec.keep("spectate", "client", s.send({"type": "spectate", "match": MATCH}), "watch the match as a spectator")
        s.expect("view", "presence")
        rec.keep("presence", "server", a.expect("presence")[0],
                 "who is connected: seat 0 has a connection, seat 1 none, one spectator")

        call("take_seat_taken", "POST", f"/api/matches/{MATCH}/seats", {"seat": 0, "name": "Eve"})
        call("take_seat_bad", "POST", f"/api/matches/{MATCH}/seats", {"seat": 7})
        seat1 = call("take_seat_second", "POST", f"/api/matches/{MATCH}/seats", {"seat": 1, "name": "Bo"},
                     note="The last free seat is taken: the server commits `{\"type\": \"start\"}` (seq 1) "
                          "and every watcher receives its patch.")
        rec.keep("patch_start", "server", a.expect("patch")[0], "seat 0's patch for commit 1, the start")
        s.expect("patch")
        call("take_seat_full", "POST", f"/api/matches/{MATCH}/seats", {})
        call("log_live", "GET", f"/api/matches/{MATCH}/log")
        call("replay_live_seat", "GET", f"/api/matches/{MATCH}/replay?seat=1")
        call("fork_live", "POST", f"/api/matches/{MATCH}/fork", {"seq": 1})

        with websocket("teahouse.v1.msgpack", "teahouse.v1.json") as wb:
            b = Conn(wb, "msgpack")
            b.send({"type": "hello", "client": "example-bot"})
            rec.keep("welcome_msgpack", "server", b.expect("welcome")[0],
                     "answer to hello on a msgpack connection")
            rec.keep("join_since", "client", b.send({"type": "join", "match": MATCH, "token": seat1["token"], "since": 0}),
                     "join seat 1 holding the document at seq 0: patches since then, or a full view")
            rec.keep("view", "server", b.expect("view", "presence")[0],
                     "seat 1's full document at seq 1 (its audience had no kept patches)")
            a.expect("presence")
            s.expect("presence")

            rec.keep("legal", "client", a.send({"type": "legal", "match": MATCH}), "ask for seat 0's legal moves")
            legal = a.expect("legal_moves")[0]
            rec.keep("legal_moves", "server", legal, "seat 0's legal moves at seq 1, with a label for each")
            b.send({"type": "legal", "match": MATCH})
            rec.keep("legal_moves_none", "server", b.expect("legal_moves")[0], "not this seat's turn: no moves")

            rec.keep("move", "client", a.send({"type": "move", "match": MATCH, "id": "a-1",
                                               "command": legal["moves"][0]}),
                     "seat 0 plays a command taken from legal_moves")
            p2, ack = a.expect("patch", "ack")
            rec.keep("patch", "server", p2, "seat 0's patch for commit 2 (sent before the ack), with what it did in said")
            rec.keep("ack", "server", ack, "the move a-1 is commit 2")
            b.expect("patch")
            rec.keep("patch_spectator", "server", s.expect("patch")[0],
                     "the spectator's patch for commit 2: its own ops, the same sentences in said, and (its hello "
                     "asked for them) their message keys in said_keys")
            a.send({"type": "move", "match": MATCH, "id": "a-1", "command": legal["moves"][0]})
            rec.keep("ack_retry", "server", a.expect("ack")[0],
                     "the same move id again: the same ack, nothing committed")
            a.send({"type": "move", "match": MATCH, "id": "a-1", "at": 1, "command": legal["moves"][0]})
            assert a.expect("ack")[0] == ack, "a committed id answers its ack whatever its at says"
            rec.keep("move_stale", "client", a.send({"type": "move", "match": MATCH, "id": "a-s", "at": 1,
                                                      "command": legal["moves"][1]}),
                     "a move decided at seq 1, sent when the match is at seq 2")
            rec.keep("error_stale", "server", a.expect("error")[0],
                     "the move was decided at another seq: nothing committed; seq is the match's seq now")
            rec.keep("move_with_seat", "client", a.send({"type": "move", "match": MATCH, "id": "a-2", "seat": 0,
                                                         "command": legal["moves"][1]}),
                     "a move naming its seat (optional; checked against the joined seat)")
            rec.keep("reject", "server", a.expect("reject")[0], "the game refuses the move with its own code")
            a.send({"type": "move", "match": MATCH, "id": "a-3", "seat": 1, "command": legal["moves"][1]})
            rec.keep("error_wrong_seat", "server", a.expect("error")[0], "a move naming another seat")
            s.send({"type": "move", "match": MATCH, "id": "s-1", "command": {"type": "take_card"}})
            rec.keep("error_not_seated", "server", s.expect("error")[0], "a spectator tried to move")

            rec.keep("resync", "client", a.send({"type": "resync", "match": MATCH, "since": 1}),
                     "seat 0 holds seq 1 and asks for what follows")
            rec.keep("patch_resync", "server", a.expect("patch", "presence")[0], "the kept patch after seq 1")
            a.send({"type": "resync", "match": MATCH, "since": 99})
            a.expect("view", "presence")
            rec.keep("resync_ref", "client", a.send({"type": "resync", "match": MATCH, "since": a.seq, "ref": "r-1"}),
                     "a resync holding the latest seq, with a ref")
            rec.keep("presence_reply", "server", a.expect("presence")[0],
                     "the presence that ends the answer to a resync: reply and the request's ref")

            # protocol faults, each answered by an error that leaves the session open
            faults: list[tuple[str, bytes | str, str]] = [
                ("not JSON", "{oops", "bad_frame"),
                ("text frame on msgpack", '{"type":"ping"}', "bad_frame"),
                ("truncated msgpack", bytes.fromhex("82a474797065"), "bad_frame"),
                ("not a map", "[1,2]", "not_a_map"),
                ("no type", '{"match":"x"}', "bad_field"),
                ("unknown type", '{"type":"shout"}', "unknown_type"),
                ("missing field", '{"type":"resync","match":"Xq3vN8kPz2Lm"}', "bad_field"),
                ("wrong type", '{"type":"resync","match":"Xq3vN8kPz2Lm","since":"1"}', "bad_field"),
                ("bool for int", '{"type":"resync","match":"Xq3vN8kPz2Lm","since":true}', "bad_field"),
                ("negative int", '{"type":"resync","match":"Xq3vN8kPz2Lm","since":-1}', "bad_field"),
                ("float for int", '{"type":"resync","match":"Xq3vN8kPz2Lm","since":1.0}', "bad_field"),
                ("id too long", '{"type":"move","match":"Xq3vN8kPz2Lm","id":"' + "x" * 65
                 + '","command":{"type":"take_card"}}', "bad_field"),
                ("command without type", '{"type":"move","match":"Xq3vN8kPz2Lm","id":"a-9","command":{}}',
                 "bad_field"),
                ("non-string key in command", msgpack.packb(
                    {"type": "move", "match": MATCH, "id": "a-9", "command": {"type": "take_card", 1: 1}}),
                 "bad_field"),
                ("empty move id", '{"type":"move","match":"Xq3vN8kPz2Lm","id":"","command":{"type":"take_card"}}',
                 "bad_field"),
                ("float in a command", '{"type":"move","match":"Xq3vN8kPz2Lm","id":"a-9","command":'
                 '{"type":"take_card","target_cell":3.0}}', "bad_field"),
                ("bin where a string is expected", msgpack.packb(
                    {"type": "leave", "match": MATCH.encode()}, use_bin_type=True), "bad_field"),
            ]
            for name, frame, code in faults:
                conn = s if name == "text frame on msgpack" else (b if isinstance(frame, bytes) else a)
                conn.send_raw(frame)
                err = conn.expect("error")[0]
                assert err["code"] == code, (name, err)
                entry: dict[str, Any] = {"name": name, "code": code}
                if isinstance(frame, bytes):
                    entry["msgpack_hex"] = frame.hex()
                else:
                    entry["json"] = frame
                    entry["connection"] = "msgpack" if conn is s else "json"
                rec.invalid.append(entry)
                if name == "bool for int":
                    rec.keep("error_bad_field", "server", err, "a field of the wrong type")
                if name == "unknown type":
                    rec.keep("error_unknown_type", "server", err, "a message type v1 does not know")
                if name == "not JSON":
                    rec.keep("error_bad_frame", "server", err, "a frame that does not decode")
            big = {"type": "ping", "nonce": "x", "pad": "y" * 70_000}
            a.send(big)
            err = a.expect("error")[0]
            assert err["code"] == "frame_too_large"
            rec.keep("error_frame_too_large", "server", err, "a frame above 64 KiB")
            rec.invalid.append({"name": "frame above 64 KiB", "json": '{"type":"ping","pad":"y…(70000)"}',
                                "connection": "json", "code": "frame_too_large"})

            # play the match to its end with the first legal move of whoever is to act
            conns = {0: a, 1: b}
            n = 0
            while not a.doc["status"]["finished"]:
                seat = a.doc["status"]["to_act"][0]
                c = conns[seat]
                c.send({"type": "legal", "match": MATCH})
                moves = c.expect("legal_moves")[0]["moves"]
                n += 1
                sent = c.send({"type": "move", "match": MATCH, "id": f"m{n}", "at": c.seq, "command": moves[-1]})
                if n == 1:
                    rec.keep("move_at", "client", sent, "a move that says the seq it was decided on (at)")
                got = c.expect("patch")
                others = [x for x in (a, b, s) if x is not c]
                for o in others:
                    o.expect("patch")
                if got[0]["ops"] and c.doc["status"]["finished"]:
                    fin = c.expect("finished", "ack")[0]
                    for o in others:
                        o.expect("finished")
                    rec.keep("finished", "server", fin, "the match is over: result and revealed seed")
                    rec.keep("patch_final", "server", got[0], "seat's patch for the final commit")
                else:
                    c.expect("ack")
            last_seq = a.seq
            # Close b and wait until the server has let go of it (everyone sees its presence go).
            wb.close()
            a.expect("presence")
            s.expect("presence")

        rec.keep("leave", "client", a.send({"type": "leave", "match": MATCH}), "stop watching the match")
        rec.keep("left", "server", a.expect("left")[0], "answer to leave")
        rec.keep("presence_after", "server", s.expect("presence")[0], "nobody holds a seat any more")
        s.send({"type": "resync", "match": MATCH, "since": last_seq - 1})
        s.expect("patch", "presence")
        s.send({"type": "resync", "match": MATCH, "since": last_seq})
        s.expect("presence")  # nothing missed: the answer is the presence alone
        rec.keep("spectate_since", "client", s.send({"type": "spectate", "match": MATCH, "since": last_seq}),
                 "spectate again holding the latest seq: nothing to catch up")
        s.expect("finished", "presence")

    def short_log(data: dict[str, Any]) -> dict[str, Any]:
        verify_log(data)
        return {**data, "commits": data["commits"][:2] + ["… (one entry per commit; shortened here)"]}

    call("log", "GET", f"/api/matches/{MATCH}/log", keep=short_log,
         note="The example's `commits` list is shortened to its first two entries.")
    call("replay", "GET", f"/api/matches/{MATCH}/replay?seq=2&seat=1")
    call("replay_bad_seq", "GET", f"/api/matches/{MATCH}/replay?seq=9999")
    call("fork", "POST", f"/api/matches/{MATCH}/fork", {"seq": 2})
    call("fork_bad_seq", "POST", f"/api/matches/{MATCH}/fork", {"seq": last_seq})

    # A match with a turn clock (long enough never to fire while this runs).
    clocked = call("create_clocked", "POST", "/api/matches",
                   {"game": "pixies", "players": 2, "options": {"first_player": 0}, "turn_seconds": 600})
    call("create_bad_clock", "POST", "/api/matches", {"game": "pixies", "players": 2, "turn_seconds": 0})
    call("create_unknown_field", "POST", "/api/matches", {"game": "pixies", "players": 2, "turn_secnds": 600},
         note="a misspelt field is refused, not dropped: the match would have had no clock")
    for _ in range(2):
        assert http.post(f"/api/matches/{clocked['match']}/seats", json={}).status_code == 201
    with websocket("teahouse.v1.msgpack") as wc:
        c = Conn(wc, "msgpack")
        c.send({"type": "hello"})
        c.expect("welcome")
        c.send({"type": "spectate", "match": clocked["match"]})
        rec.keep("clock", "server", c.expect("view", "clock", "presence")[1],
                 "the turn clock of a match created with turn_seconds 600: the seats to act have until deadline")


def verify_log(log: dict[str, Any]) -> None:
    """SPEC §10, done here so the SPEC's claim is checked against the real log."""
    from service.games import get_game
    from service.games.chance import commit_rng

    assert hashlib.sha256(log["seed"].encode()).hexdigest() == log["seed_sha256"]
    game = get_game(log["game"])
    state = game.initial(log["options"], log["players"])
    for c in log["commits"]:
        events = game.decide(state, c["seat"], c["command"], commit_rng(log["seed"], c["seq"]))
        assert events == c["events"], c["seq"]
        for e in events:
            state = game.evolve(state, e)
    assert game.status(state)["result"] == log["result"]


def fairness_vector() -> dict[str, Any]:
    """The commit rng of SPEC §10, spelled out step by step for the example seed."""
    import random

    out: dict[str, Any] = {"seed": SEED, "seed_sha256": hashlib.sha256(SEED.encode()).hexdigest(), "commits": []}
    for seq in (1, 2, 77):
        material = f"teahouse/v1/{SEED}/{seq}"
        digest = hashlib.sha256(material.encode()).digest()
        rng = random.Random(int.from_bytes(digest, "big"))
        words = [rng.getrandbits(32) for _ in range(4)]
        rng = random.Random(int.from_bytes(digest, "big"))
        deck = list(range(10))
        rng.shuffle(deck)
        out["commits"].append({"seq": seq, "material": material, "sha256": digest.hex(),
                               "getrandbits32": words, "shuffle_range_10": deck})
    return out


# -- writing -----------------------------------------------------------------------------------

def v2_vectors(rec: Recorder) -> list[dict[str, Any]]:
    """Protocol v2 (SPEC §12): seat 0's recorded view, patches, ack and finished in their v2
    forms, built by the server's own code (protocol.v2 with one KeyTable and one SentenceTable,
    as service.match.projection keeps them), each with its v1 message, so a client can check that it
    expands v2 back to v1 exactly."""
    from protocol.v2 import (
        KeyTable,
        SentenceTable,
        compact_ack,
        compact_finished,
        compact_patch,
        compact_presence,
    )

    ref = 1
    view = rec.frames["view_waiting"][1]
    table = KeyTable()
    table.learn(view["doc"])
    sentences = SentenceTable()
    out: list[dict[str, Any]] = []

    def add(name: str, v1: dict[str, Any], v2: Any, description: str) -> None:
        out.append({"name": name, "description": description, "v1": v1, "v2": v2,
                    "msgpack_hex": encode(v2, "v2.msgpack").hex(), "json": encode(v2, "v2.json").decode()})

    add("view", view, {**view, "ref": ref, "keys": list(table.keys), "paths": [], "sentences": []},
        "seat 0's full view at seq 0: the v1 view plus ref, the key table and the (empty) path and "
        "sentence tables")
    for name in ("patch_start", "patch"):
        msg = rec.frames[name][1]
        said = sentences.compact(msg["said"]) if msg.get("said") is not None else None
        add(name, msg, compact_patch(ref, msg["seq"], msg, table, said), f"{rec.frames[name][2]}, compact")
    ack = rec.frames["ack"][1]
    add("ack", ack, compact_ack(ref, ack["seq"], ack["id"]), "the ack of move a-1, compact")
    pres = rec.frames["presence"][1]
    add("presence", pres, compact_presence(ref, pres["seats"], pres["spectators"]), "a presence, compact")
    fin = rec.frames["finished"][1]
    add("finished", fin, compact_finished(ref, fin["seq"], fin["result"], fin["seed"]),
        "the end of a match (the vector of 5.8), compact; in msgpack its elements follow one another")
    return out


def write_vectors(rec: Recorder, vectors: Path = VECTORS) -> None:
    """The vector files of a recorded session, into `vectors` (emptied of old ones first)."""
    vectors.mkdir(parents=True, exist_ok=True)
    for old in vectors.glob("*.msgpack"):
        old.unlink()
    for old in vectors.glob("*.json"):
        old.unlink()
    index = []
    for name, (direction, msg, description) in sorted(rec.frames.items(), key=lambda kv: (kv[1][0], kv[0])):
        (vectors / f"{name}.json").write_bytes(encode(msg, "json"))
        (vectors / f"{name}.msgpack").write_bytes(encode(msg, "msgpack"))
        index.append({"name": name, "direction": direction, "type": msg["type"], "description": description,
                      "value": msg})
    (vectors / "index.json").write_bytes(orjson.dumps(index, option=orjson.OPT_INDENT_2) + b"\n")
    (vectors / "invalid.json").write_bytes(orjson.dumps(rec.invalid, option=orjson.OPT_INDENT_2) + b"\n")
    (vectors / "fairness.json").write_bytes(orjson.dumps(fairness_vector(), option=orjson.OPT_INDENT_2) + b"\n")
    (vectors / "http.json").write_bytes(orjson.dumps(rec.http, option=orjson.OPT_INDENT_2) + b"\n")
    (vectors / "v2.json").write_bytes(orjson.dumps(v2_vectors(rec), option=orjson.OPT_INDENT_2) + b"\n")
    code, reason = rec.unsupported  # type: ignore[attr-defined]
    (vectors / "close.json").write_bytes(orjson.dumps({"offered": ["teahouse.v2.cbor"], "code": code,
                                                       "reason": reason}, option=orjson.OPT_INDENT_2) + b"\n")


def write(rec: Recorder) -> None:
    write_vectors(rec)
    SPEC.write_text(fill_spec(SPEC.read_text(), render_blocks()))
    ASYNCAPI.write_text(render_asyncapi())


def check(committed: Path = VECTORS) -> list[str]:
    """Record a session against a real server again and compare it with what is committed:
    the name of every vector file, and of SPEC.md or asyncapi.yaml, that the server's answers
    today would change ([] when they all agree). The server's own randomness and clock are
    pinned (`--serve`), so a difference is a change of behaviour, not chance."""
    rec = Recorder()
    capture(rec)
    with tempfile.TemporaryDirectory(prefix="teahouse-vectors-check-") as tmp:
        fresh = Path(tmp)
        write_vectors(rec, fresh)
        names = {p.name for p in fresh.iterdir()} | {p.name for p in committed.glob("*.json")} \
            | {p.name for p in committed.glob("*.msgpack")}
        differ = sorted(n for n in names if not (fresh / n).exists() or not (committed / n).exists()
                        or (fresh / n).read_bytes() != (committed / n).read_bytes())
        if fill_spec(SPEC.read_text(), render_blocks(fresh)) != SPEC.read_text():
            differ.append("SPEC.md")
        if render_asyncapi(fresh) != ASYNCAPI.read_text():
            differ.append("asyncapi.yaml")
    return differ


def main() -> int:
    if sys.argv[1:2] == ["--serve"]:
        return serve_pinned(int(sys.argv[2]), sys.argv[3])
    if sys.argv[1:2] == ["--check"]:
        differ = check()
        for name in differ:
            print(f"differs from what the server sends now: {name}")
        return 1 if differ else 0
    rec = Recorder()
    capture(rec)
    write(rec)
    print(f"{len(rec.frames)} frames, {len(rec.invalid)} invalid frames, {len(rec.http)} HTTP calls -> {VECTORS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
