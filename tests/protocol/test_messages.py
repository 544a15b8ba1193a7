"""SPEC §4 and §5: the client messages parse_client accepts and refuses, and the server messages."""

from __future__ import annotations

import pytest

from protocol import messages
from protocol.errors import ERROR_CODES, ProtocolError
from protocol.messages import CLIENT_TYPES, parse_client

M = "Xq3vN8kPz2Lm"
CMD = {"type": "take_card", "card": "B07"}

VALID = [
    {"type": "hello"},
    {"type": "hello", "client": "x/1"},
    {"type": "hello", "said": False},
    {"type": "hello", "client": "x/1", "said": True},
    {"type": "join", "match": M, "token": "t" * 43},
    {"type": "join", "match": M, "token": "t", "since": 0},
    {"type": "spectate", "match": M},
    {"type": "spectate", "match": M, "since": 12},
    {"type": "leave", "match": M},
    {"type": "move", "match": M, "id": "a-1", "command": CMD},
    {"type": "move", "match": M, "id": "a-1", "command": CMD, "seat": 0},
    {"type": "move", "match": M, "id": "a-1", "command": {"type": "x", "a": [{"b": [1, None, True]}], "c": {}}},
    {"type": "legal", "match": M},
    {"type": "resync", "match": M, "since": 0},
    {"type": "ping"},
    {"type": "ping", "nonce": 0},
    {"type": "ping", "nonce": "n" * 64},
]


def test_the_v1_client_types():
    assert set(CLIENT_TYPES) == {"hello", "join", "spectate", "leave", "move", "legal", "resync", "ping"}


@pytest.mark.parametrize("msg", VALID, ids=lambda m: m["type"])
def test_valid_messages_parse_to_themselves(msg):
    assert parse_client(msg) == msg


def test_every_client_type_has_a_valid_example():
    assert {m["type"] for m in VALID} == set(CLIENT_TYPES)


def test_unknown_fields_are_dropped():
    assert parse_client({"type": "leave", "match": M, "extra": [1], "seat": 3}) == {"type": "leave", "match": M}


def _code(msg) -> str:
    with pytest.raises(ProtocolError) as e:
        parse_client(msg)
    return e.value.code


# Required fields of each type, and a valid base for it.
REQUIRED = {
    "join": ({"type": "join", "match": M, "token": "t"}, ["match", "token"]),
    "spectate": ({"type": "spectate", "match": M}, ["match"]),
    "leave": ({"type": "leave", "match": M}, ["match"]),
    "move": ({"type": "move", "match": M, "id": "a", "command": CMD}, ["match", "id", "command"]),
    "legal": ({"type": "legal", "match": M}, ["match"]),
    "resync": ({"type": "resync", "match": M, "since": 1}, ["match", "since"]),
}


@pytest.mark.parametrize("kind, field", [(k, f) for k, (_, fs) in REQUIRED.items() for f in fs])
def test_a_missing_required_field_is_bad_field(kind, field):
    base = dict(REQUIRED[kind][0])
    del base[field]
    assert _code(base) == "bad_field"


# (type, field, valid base) for every typed field, optional ones included.
FIELDS = [
    ("hello", "client", "str"), ("join", "match", "str"), ("join", "token", "str"), ("join", "since", "int"),
    ("spectate", "match", "str"), ("spectate", "since", "int"), ("leave", "match", "str"),
    ("move", "match", "str"), ("move", "id", "str"), ("move", "command", "map"), ("move", "seat", "int"),
    ("legal", "match", "str"), ("resync", "match", "str"), ("resync", "since", "int"), ("hello", "said", "bool"),
]
BASE = {"hello": {"type": "hello"}, **{k: v for k, (v, _) in REQUIRED.items()}}
WRONG = {"str": [1, None, True, ["x"], {"a": "b"}, b"bytes", 1.5],
         "int": ["1", None, 1.0, [1], {"a": 1}, True, False],
         "map": ["x", 1, None, [CMD], True],
         "bool": ["false", 0, 1, None, [False], {"a": False}]}


@pytest.mark.parametrize("kind, field, want", FIELDS)
def test_a_field_of_the_wrong_type_is_bad_field(kind, field, want):
    for wrong in WRONG[want]:
        msg = {**BASE[kind], field: wrong}
        assert _code(msg) == "bad_field", (field, wrong)


@pytest.mark.parametrize("kind, field", [(k, f) for k, f, w in FIELDS if w == "int"] + [("ping", "nonce")])
def test_a_bool_is_never_an_int(kind, field):
    assert _code({**BASE.get(kind, {"type": kind}), field: True}) == "bad_field"
    assert _code({**BASE.get(kind, {"type": kind}), field: False}) == "bad_field"


@pytest.mark.parametrize("kind, field", [(k, f) for k, f, w in FIELDS if w == "int"] + [("ping", "nonce")])
def test_negative_integers_are_refused_and_zero_and_large_accepted(kind, field):
    base = BASE.get(kind, {"type": kind})
    assert _code({**base, field: -1}) == "bad_field"
    assert parse_client({**base, field: 0})[field] == 0
    assert parse_client({**base, field: 2**64 - 1})[field] == 2**64 - 1


@pytest.mark.parametrize("kind, field, limit", [
    ("join", "match", 64), ("join", "token", 128), ("move", "id", 64), ("hello", "client", 200),
    ("ping", "nonce", 64), ("spectate", "match", 64), ("leave", "match", 64), ("legal", "match", 64),
    ("resync", "match", 64), ("move", "match", 64),
])
def test_string_limits_count_code_points(kind, field, limit):
    base = BASE.get(kind, {"type": kind})
    assert parse_client({**base, field: "é" * limit})[field] == "é" * limit
    assert _code({**base, field: "x" * (limit + 1)}) == "bad_field"


def test_nonce_is_an_int_or_a_string_only():
    for wrong in (None, 1.5, [1], {"a": 1}, b"x"):
        assert _code({"type": "ping", "nonce": wrong}) == "bad_field"


@pytest.mark.parametrize("command", [
    {},                                   # no type
    {"type": 3},                          # type not a string
    {"type": None},
    {"type": "take_card", 1: "x"},        # a non-string key at the top
    {"type": "take_card", "a": {2: 1}},   # ... nested in a map
    {"type": "take_card", "a": [[{None: 1}]]},  # ... nested in lists
    {"type": "take_card", "a": {(1, 2): 1}},
    {"type": "take_card", "a": {b"k": 1}},  # a msgpack bin key
], ids=["no-type", "int-type", "null-type", "int-key", "nested-int-key", "key-in-lists", "tuple-key", "bin-key"])
def test_bad_commands_are_bad_field(command):
    assert _code({"type": "move", "match": M, "id": "a", "command": command}) == "bad_field"


def _nested(depth: int):
    value: object = 1
    for _ in range(depth):
        value = {"a": value}
    return value


def test_commands_nest_at_most_32_levels():
    ok = {"type": "move", "match": M, "id": "a", "command": {"type": "x", "v": _nested(31)}}
    assert parse_client(ok)["command"]["v"] == _nested(31)
    too_deep = {"type": "move", "match": M, "id": "a", "command": {"type": "x", "v": _nested(40)}}
    assert _code(too_deep) == "bad_field"
    lists = {"type": "move", "match": M, "id": "a", "command": {"type": "x", "v": [[[[[[[[[[[[[[[[[
        [[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}}
    assert _code(lists) == "bad_field"


@pytest.mark.parametrize("obj", [[], [{"type": "ping"}], "ping", 1, None, True, b"x"])
def test_not_a_map(obj):
    assert _code(obj) == "not_a_map"


@pytest.mark.parametrize("obj", [{}, {"match": M}, {"type": 1}, {"type": None}, {"type": ["ping"]}, {"type": True}])
def test_a_missing_or_non_string_type_is_bad_field(obj):
    assert _code(obj) == "bad_field"


@pytest.mark.parametrize("kind", ["shout", "Ping", "welcome", "view", "patch", "", "x" * 1000])
def test_unknown_types(kind):
    with pytest.raises(ProtocolError) as e:
        parse_client({"type": kind})
    assert e.value.code == "unknown_type"
    assert len(e.value.message) < 200  # the echo of an unknown type is cut short


def test_error_messages_name_the_message_and_the_field():
    with pytest.raises(ProtocolError) as e:
        parse_client({"type": "resync", "match": M, "since": "1"})
    assert "resync" in e.value.message and "since" in e.value.message


def test_protocol_error_only_takes_known_codes():
    with pytest.raises(AssertionError):
        ProtocolError("no_such_code", "x")
    for code in ERROR_CODES:
        assert ProtocolError(code, "m").code == code


# -- server messages (SPEC §5) -------------------------------------------------------------------

def test_server_message_builders_have_the_spec_fields():
    built = {
        "welcome": messages.welcome("json", "s1", "teahouse/0.1", 65536, ["pixies"]),
        "view": messages.view(M, 0, None, {"view": {}, "status": {}}),
        "patch": messages.patch(M, 1, []),
        "ack": messages.ack(M, "a-1", 2),
        "reject": messages.reject(M, "a-1", "not_your_turn", "m"),
        "error": messages.error("bad_field", "m"),
        "presence": messages.presence(M, [True, False], 0),
        "legal_moves": messages.legal_moves(M, 1, []),
        "finished": messages.finished(M, 9, None, "s"),
        "clock": messages.clock(M, 3, 1_780_000_600_000),
        "left": messages.left(M),
        "pong": messages.pong(None),
    }
    fields = {
        "welcome": {"protocol", "encoding", "server", "session", "max_frame", "games"},
        "view": {"match", "seq", "seat", "doc"}, "patch": {"match", "seq", "ops"},
        "ack": {"match", "id", "seq"}, "reject": {"match", "id", "code", "message"},
        "error": {"code", "message", "ref"}, "presence": {"match", "seats", "spectators"},
        "legal_moves": {"match", "seq", "moves", "page", "pages", "total"}, "finished": {"match", "seq", "result", "seed"},
        "clock": {"match", "seq", "deadline"}, "left": {"match"}, "pong": {"nonce"},
    }
    for kind, msg in built.items():
        assert msg["type"] == kind
        assert set(msg) == fields[kind] | {"type"}, kind
    assert built["welcome"]["protocol"] == 1
    assert built["error"]["ref"] is None


def test_an_empty_move_id_is_refused():
    # Regression: "" was accepted, and every later move with id "" was answered with the
    # first one's ack as an idempotent retry, so those moves were silently dropped.
    assert _code({"type": "move", "match": M, "id": "", "command": CMD}) == "bad_field"


@pytest.mark.parametrize("leaf", [1.5, 2.0, b"B07", bytearray(b"x"), (1, 2), {1, 2}],
                         ids=["float", "integral-float", "bin", "bytearray", "tuple", "set"])
def test_commands_hold_only_plain_data(leaf):
    # Regression: a msgpack bin or ext value, or a float, went through to the game and, if the
    # game ignored the field, into the log, which then could not be served as JSON.
    for command in ({"type": "x", "v": leaf}, {"type": "x", "v": [{"w": leaf}]}):
        assert _code({"type": "move", "match": M, "id": "a", "command": command}) == "bad_field"


def test_msgpack_ext_values_in_a_command_are_refused():
    import msgpack

    from protocol.codec import decode

    raw = msgpack.packb({"type": "move", "match": M, "id": "a", "command": {"type": "x", "v": msgpack.ExtType(1, b"x")}})
    assert _code(decode(raw, "msgpack")) == "bad_field"
