"""Edges of the wire contract an independent client tripped on (SPEC 1.2, 4.5, 7.1, 9): what an
unknown field may hold, the exact nesting limit, integers beyond 64 bits, and the fields the
answers' markers and stale-move protection add."""

from __future__ import annotations

import re

import msgpack
import orjson
import pytest

from protocol.codec import decode
from protocol.errors import ProtocolError
from protocol.messages import REF_MAX, answer_presence, error, parse_client, presence

M = "Xq3vN8kPz2Lm"
CMD = {"type": "take_card", "card": "B07"}


def _frame(msg: dict, encoding: str) -> bytes | str:
    return orjson.dumps(msg).decode() if encoding == "json" else msgpack.packb(msg, use_bin_type=True)


# -- unknown fields are ignored, whatever they hold (SPEC 7.1) ---------------------------------

@pytest.mark.parametrize("extra", [
    {1: "integer key"}, {"f": 1.5}, {"f": b"\x00bin"}, {"f": msgpack.ExtType(5, b"ext")},
    {"f": [{2: [3.25, None]}]},
], ids=["int key", "float", "bin", "ext", "nested"])
def test_an_unknown_field_may_hold_anything_and_is_dropped(extra):
    sent = {"type": "move", "match": M, "id": "a-1", "command": CMD, "later": extra}
    parsed = parse_client(decode(msgpack.packb(sent, use_bin_type=True), "msgpack"))
    assert parsed == {"type": "move", "match": M, "id": "a-1", "command": CMD}


@pytest.mark.parametrize("inside", [{1: 1}, {"x": 1.5}, {"x": b"bin"}, {"x": msgpack.ExtType(1, b"e")}],
                         ids=["int key", "float", "bin", "ext"])
def test_the_same_values_inside_a_command_are_bad_field(inside):
    sent = {"type": "move", "match": M, "id": "a-1", "command": {"type": "take_card", "card": inside}}
    with pytest.raises(ProtocolError) as e:
        parse_client(decode(msgpack.packb(sent, use_bin_type=True), "msgpack"))
    assert e.value.code == "bad_field"


def test_a_non_string_key_at_the_top_level_is_bad_field():
    with pytest.raises(ProtocolError) as e:
        parse_client(decode(msgpack.packb({"type": "ping", 7: 1}), "msgpack"))
    assert e.value.code == "bad_field"


# -- nesting: at most 1024 levels, the message's map included (SPEC 7.1, 9) ---------------------

def _nested(depth: int, encoding: str) -> bytes | str:
    """A ping whose unknown field `x` holds `depth - 1` arrays: `depth` levels in all."""
    if encoding == "json":
        return '{"type":"ping","x":' + "[" * (depth - 1) + "]" * (depth - 1) + "}"
    head = b"\x82" + msgpack.packb("type") + msgpack.packb("ping") + msgpack.packb("x")
    return head + b"\x91" * (depth - 2) + b"\x90"


def _spec_nesting_limit() -> int:
    """SPEC 9's frame nesting limit, which 7.1 restates in arrays inside a message's field."""
    from tools.make_vectors import SPEC

    text = SPEC.read_text()
    row = re.search(r"^\| frame nesting \(maps and arrays, the message's map included\) \| (\d+) levels \| `bad_frame` \|$",
                    text, re.M)
    assert row, "SPEC 9 states the frame nesting limit"
    limit = int(row.group(1))
    said = re.search(r"\((\d+)\s+arrays inside a message's field are accepted, (\d+) are `bad_frame`\)", text)
    assert said and [int(n) for n in said.groups()] == [limit - 1, limit], "SPEC 7.1 says the same limit"
    return limit


@pytest.mark.parametrize("encoding", ["json", "msgpack"])
def test_the_documented_nesting_limit_is_accepted_and_one_more_level_is_bad_frame(encoding):
    limit = _spec_nesting_limit()
    assert limit == 1024
    assert parse_client(decode(_nested(limit, encoding), encoding)) == {"type": "ping"}
    with pytest.raises(ProtocolError) as e:
        decode(_nested(limit + 1, encoding), encoding)
    assert e.value.code == "bad_frame"


# -- integers beyond 64 bits (SPEC 1.2) ----------------------------------------------------------

@pytest.mark.parametrize("literal", ["18446744073709551616", "-9223372036854775809", "1" + "0" * 40])
def test_a_json_integer_beyond_64_bits_is_bad_field_and_says_so(literal):
    with pytest.raises(ProtocolError) as e:
        decode(f'{{"type":"resync","match":"{M}","since":{literal}}}', "json")
    assert e.value.code == "bad_field"
    assert "beyond 64 bits" in e.value.message and "float" not in e.value.message


@pytest.mark.parametrize("literal", ["18446744073709551615", "-9223372036854775808", "1234567890123456789"])
def test_the_64_bit_extremes_are_integers(literal):
    msg = decode(f'{{"type":"resync","match":"{M}","since":{literal}}}', "json")
    assert msg["since"] == int(literal) and type(msg["since"]) is int


def test_long_digit_runs_inside_strings_are_not_integers():
    msg = decode('{"type":"ping","nonce":"123456789012345678901234567890"}', "json")
    assert parse_client(msg)["nonce"] == "123456789012345678901234567890"


# -- the fields stale moves and answer markers add (SPEC 4.2-4.7, 5.7, 5.10) --------------------

@pytest.mark.parametrize("msg", [
    {"type": "move", "match": M, "id": "a-1", "command": CMD, "at": 0},
    {"type": "move", "match": M, "id": "a-1", "command": CMD, "at": 77, "seat": 1},
    {"type": "join", "match": M, "token": "t", "ref": "j"},
    {"type": "spectate", "match": M, "since": 3, "ref": "r" * REF_MAX},
    {"type": "resync", "match": M, "since": 0, "ref": ""},
], ids=lambda m: m["type"])
def test_at_and_ref_are_accepted(msg):
    assert parse_client(msg) == msg


@pytest.mark.parametrize("msg", [
    {"type": "move", "match": M, "id": "a-1", "command": CMD, "at": -1},
    {"type": "move", "match": M, "id": "a-1", "command": CMD, "at": True},
    {"type": "move", "match": M, "id": "a-1", "command": CMD, "at": "3"},
    {"type": "join", "match": M, "token": "t", "ref": 5},
    {"type": "resync", "match": M, "since": 0, "ref": "r" * (REF_MAX + 1)},
], ids=lambda m: m["type"])
def test_a_bad_at_or_ref_is_bad_field(msg):
    with pytest.raises(ProtocolError) as e:
        parse_client(msg)
    assert e.value.code == "bad_field"


def test_the_answer_presence_and_the_stale_error():
    broadcast = presence(M, [True, False], 2)
    assert "reply" not in broadcast
    assert answer_presence(broadcast, "join") == {**broadcast, "reply": "join"}
    assert answer_presence(broadcast, "resync", "r-1") == {**broadcast, "reply": "resync", "ref": "r-1"}
    assert error("stale", "m", "a-1", M, seq=9)["seq"] == 9
    assert "seq" not in error("busy", "m", "a-1", M)
