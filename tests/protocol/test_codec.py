"""SPEC §1.4: the two encodings (protocol/codec.py)."""

from __future__ import annotations

import msgpack
import pytest

from protocol.codec import decode, encode
from protocol.errors import ProtocolError

SAMPLE = {"type": "move", "match": "Xq3vN8kPz2Lm", "id": "a-1", "seq": 2, "ok": True, "none": None,
          "command": {"type": "take_card", "card": "B07", "cells": [1, 2, 3]}, "text": "Gùgōng ✓"}


@pytest.mark.parametrize("encoding", ["msgpack", "json"])
def test_round_trip(encoding):
    assert decode(encode(SAMPLE, encoding), encoding) == SAMPLE


def test_json_is_compact_utf8_text():
    data = encode({"type": "ping", "nonce": "é"}, "json")
    assert data == '{"type":"ping","nonce":"é"}'.encode()


def test_msgpack_uses_str_not_bin_and_minimal_ints():
    data = encode({"a": "x", "n": 5, "big": 70000}, "msgpack")
    assert data == bytes.fromhex("83" "a161" "a178" "a16e" "05" "a3626967" "ce00011170")


def test_true_and_1_stay_distinct_in_both_encodings():
    for enc in ("msgpack", "json"):
        back = decode(encode({"a": True, "b": 1, "c": [False, 0]}, enc), enc)
        assert [type(back["a"]), type(back["b"]), type(back["c"][0]), type(back["c"][1])] == [bool, int, bool, int]


@pytest.mark.parametrize("frame", [
    b"\x82\xa4type",             # truncated map
    b"\xc1",                     # never-used byte
    b"\x91\x01\x02",             # an array then trailing bytes
    b"\xa2\xff\xfe",             # a str that is not UTF-8
    b"",                         # nothing
], ids=["truncated", "reserved-byte", "trailing-bytes", "bad-utf8", "empty"])
def test_junk_msgpack_is_bad_frame(frame):
    with pytest.raises(ProtocolError) as e:
        decode(frame, "msgpack")
    assert e.value.code == "bad_frame"


def test_a_text_frame_on_a_msgpack_connection_is_bad_frame():
    with pytest.raises(ProtocolError) as e:
        decode('{"type":"ping"}', "msgpack")
    assert e.value.code == "bad_frame"
    assert "binary" in e.value.message


@pytest.mark.parametrize("frame", ["{oops", "", "{\"type\":\"ping\"} x", "[1,", "NaN", b"\xff\xfe", "{'a': 1}"])
def test_junk_json_is_bad_frame(frame):
    with pytest.raises(ProtocolError) as e:
        decode(frame, "json")
    assert e.value.code == "bad_frame"


def test_a_binary_frame_of_utf8_json_is_accepted_on_a_json_connection():
    assert decode(b'{"type":"ping"}', "json") == {"type": "ping"}


def test_msgpack_bin_decodes_to_bytes_and_non_string_keys_survive_decoding():
    # The codec only decodes; parse_client is what refuses them (see test_messages.py).
    raw = msgpack.packb({"type": "leave", "match": b"x", 1: 2}, use_bin_type=True)
    assert decode(raw, "msgpack") == {"type": "leave", "match": b"x", 1: 2}


def test_the_error_message_names_the_encoding():
    with pytest.raises(ProtocolError) as e:
        decode("{oops", "json")
    assert "json" in e.value.message


@pytest.mark.parametrize("frame, encoding", [
    (b"\x91" * 100_000 + b"\xc0", "msgpack"),        # arrays nested 100 000 deep
    ("[" * 100_000 + "]" * 100_000, "json"),
    (b"\xdd\xff\xff\xff\xff", "msgpack"),           # claims 4 billion array items, holds none
    (b"\xdb\xff\xff\xff\xff", "msgpack"),           # claims a 4 GiB string
], ids=["deep-msgpack", "deep-json", "huge-array-header", "huge-str-header"])
def test_hostile_frames_are_bad_frame_not_a_crash(frame, encoding):
    with pytest.raises(ProtocolError) as e:
        decode(frame, encoding)
    assert e.value.code == "bad_frame"
