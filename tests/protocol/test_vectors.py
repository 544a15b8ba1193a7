"""protocol/vectors/ and SPEC.md against each other and against protocol/*.py.

The vectors are exact frames recorded from the real server by make_vectors.py; a client in
any language can run the same checks: decode each file, compare with index.json, re-encode.
"""

from __future__ import annotations

import hashlib
import random
import re
from pathlib import Path

import msgpack
import orjson
import pytest

from protocol.codec import decode, encode
from protocol.errors import ERROR_CODES, ProtocolError
from protocol.messages import CLIENT_TYPES, parse_client
from protocol.patch import apply
from tools.make_vectors import GEN_START, SPEC, VECTORS, fill_spec, render_blocks

INDEX = orjson.loads((VECTORS / "index.json").read_bytes())
NAMES = [e["name"] for e in INDEX]
SERVER_TYPES = {"welcome", "view", "patch", "ack", "reject", "legal_moves", "presence", "finished", "clock",
                "error", "left", "pong"}
SPEC_TEXT = SPEC.read_text()


def _section(number: int) -> str:
    m = re.search(rf"^## {number}\. .*?(?=^## \d+\. |\Z)", SPEC_TEXT, re.S | re.M)
    assert m, f"SPEC.md has no section {number}"
    return m.group(0)


# -- the files --------------------------------------------------------------------------------

def test_every_vector_file_is_in_the_index_and_back():
    on_disk = {p.stem for p in VECTORS.glob("*.msgpack")}
    json_disk = {p.stem for p in VECTORS.glob("*.json")} - {"index", "invalid", "http", "fairness", "close", "v2"}
    assert on_disk == set(NAMES) == json_disk
    assert len(NAMES) == len(set(NAMES))


@pytest.mark.parametrize("entry", INDEX, ids=NAMES)
@pytest.mark.parametrize("encoding", ["json", "msgpack"])
def test_each_vector_decodes_to_its_index_value_and_re_encodes_byte_for_byte(entry, encoding):
    data = (VECTORS / f"{entry['name']}.{encoding}").read_bytes()
    frame = data.decode() if encoding == "json" else data
    value = decode(frame, encoding)
    assert value == entry["value"]
    assert value["type"] == entry["type"]
    assert encode(value, encoding) == data


@pytest.mark.parametrize("entry", INDEX, ids=NAMES)
def test_the_msgpack_vectors_use_str_never_bin(entry):
    data = (VECTORS / f"{entry['name']}.msgpack").read_bytes()
    # With raw=False a msgpack str decodes to str and a bin to bytes.
    def walk(v):
        assert not isinstance(v, bytes)
        if isinstance(v, dict):
            assert all(isinstance(k, str) for k in v)
            for x in v.values():
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)
        else:
            assert v is None or isinstance(v, (bool, int, str)), type(v)  # no floats, no ext types
    walk(msgpack.unpackb(data, raw=False))


@pytest.mark.parametrize("entry", [e for e in INDEX if e["direction"] == "client"],
                         ids=[e["name"] for e in INDEX if e["direction"] == "client"])
def test_client_vectors_pass_parse_client_unchanged(entry):
    assert parse_client(entry["value"]) == entry["value"]


def test_the_vectors_cover_every_message_type():
    client = {e["type"] for e in INDEX if e["direction"] == "client"}
    server = {e["type"] for e in INDEX if e["direction"] == "server"}
    assert client == set(CLIENT_TYPES)
    assert server == SERVER_TYPES


def test_view_at_0_plus_patches_1_and_2_is_the_replay_at_2():
    by = {e["name"]: e["value"] for e in INDEX}
    waiting, start, second = by["view_waiting"], by["patch_start"], by["patch"]
    assert (waiting["seq"], start["seq"], second["seq"]) == (0, 1, 2)
    at_one = apply(waiting["doc"], start["ops"])
    # Pixies shows every audience the same table, so seat 1's full view at seq 1 is seat 0's too.
    assert at_one == by["view"]["doc"]
    at_two = apply(at_one, second["ops"])
    replay = next(c for c in orjson.loads((VECTORS / "http.json").read_bytes()) if c["name"] == "replay")
    assert replay["response"]["seq"] == 2
    assert at_two == {"view": replay["response"]["view"], "status": replay["response"]["status"]}
    assert by["patch_resync"] == second


def test_the_final_patch_and_finished_agree():
    by = {e["name"]: e["value"] for e in INDEX}
    final, finished = by["patch_final"], by["finished"]
    assert final["seq"] == finished["seq"]
    (result,) = [op["value"] for op in final["ops"] if op["path"] == ["status", "result"]]
    assert result == finished["result"]


# frame_too_large is the session's check, before decoding: tests/e2e/test_bad_input.py has it.
@pytest.mark.parametrize("case", [c for c in orjson.loads((VECTORS / "invalid.json").read_bytes())
                                  if c["code"] != "frame_too_large"], ids=lambda c: c["name"])
def test_invalid_frames_are_refused_with_their_code(case):
    if "msgpack_hex" in case:
        frame, encoding = bytes.fromhex(case["msgpack_hex"]), "msgpack"
    else:
        frame, encoding = case["json"], case["connection"]
    with pytest.raises(ProtocolError) as e:
        parse_client(decode(frame, encoding))
    assert e.value.code == case["code"]


def test_the_fairness_vector_follows_the_spec_derivation():
    fair = orjson.loads((VECTORS / "fairness.json").read_bytes())
    assert hashlib.sha256(fair["seed"].encode()).hexdigest() == fair["seed_sha256"]
    for c in fair["commits"]:
        material = "teahouse/v1/" + fair["seed"] + "/" + str(c["seq"])
        assert material == c["material"]
        digest = hashlib.sha256(material.encode()).digest()
        assert digest.hex() == c["sha256"]
        rng = random.Random(int.from_bytes(digest, "big"))
        assert [rng.getrandbits(32) for _ in range(4)] == c["getrandbits32"]
        deck = list(range(10))
        random.Random(int.from_bytes(digest, "big")).shuffle(deck)
        assert deck == c["shuffle_range_10"]


def test_the_fairness_vector_matches_the_servers_commit_rng():
    from service.games.chance import commit_rng, seed_commitment

    fair = orjson.loads((VECTORS / "fairness.json").read_bytes())
    assert seed_commitment(fair["seed"]) == fair["seed_sha256"]
    for c in fair["commits"]:
        rng = commit_rng(fair["seed"], c["seq"])
        assert [rng.getrandbits(32) for _ in range(4)] == c["getrandbits32"]


def test_the_example_match_commits_to_the_seed_it_reveals():
    http = {c["name"]: c for c in orjson.loads((VECTORS / "http.json").read_bytes())}
    finished = orjson.loads((VECTORS / "finished.json").read_bytes())
    created = http["create"]["response"]
    assert hashlib.sha256(finished["seed"].encode()).hexdigest() == created["seed_sha256"]
    assert http["log"]["response"]["seed"] == finished["seed"]


# -- SPEC.md ---------------------------------------------------------------------------------

def test_the_specs_generated_blocks_match_the_vector_files():
    assert fill_spec(SPEC_TEXT, render_blocks()) == SPEC_TEXT


def test_the_spec_shows_every_vector_and_every_http_call_except_the_listed_extras():
    shown = set(GEN_START.findall(SPEC_TEXT))
    http = {f"http.{c['name']}" for c in orjson.loads((VECTORS / "http.json").read_bytes())}
    listed_in_prose = {n for n in NAMES if n.startswith("error_") and f"`{n}`" in _section(5)}
    assert set(NAMES) - shown - listed_in_prose == set()
    assert http - shown == set()


def test_every_client_and_server_message_has_a_spec_subsection():
    for kind in CLIENT_TYPES:
        assert re.search(rf"^### 4\.\d+ `{kind}`$", SPEC_TEXT, re.M), kind
    for kind in SERVER_TYPES:
        assert re.search(rf"^### 5\.\d+ `{kind}`$", SPEC_TEXT, re.M), kind


def _table_codes(section: str) -> dict[str, str]:
    rows = re.findall(r"^\| `([a-z_]+)` \| ([^|]+) \|", section, re.M)
    return {code: meaning.strip() for code, meaning in rows}


def test_spec_error_codes_are_exactly_those_of_errors_py():
    table = _table_codes(_section(7).split("### 7.2")[0])
    assert set(table) == set(ERROR_CODES)
    for code, meaning in ERROR_CODES.items():
        assert table[code] == meaning, code


def test_the_spec_states_the_limits_the_code_uses():
    from protocol import messages

    limits = _section(9)
    for field, limit in [("match", messages.MATCH_ID_MAX), ("id", messages.MOVE_ID_MAX),
                         ("token", messages.TOKEN_MAX)]:
        assert re.search(rf"^\| `{field}`[^|]*\| {limit} code points", limits, re.M), field
    welcome = orjson.loads((VECTORS / "welcome.json").read_bytes())
    assert str(welcome["max_frame"]) in limits


def test_every_close_code_is_specified():
    closes = _section(8)
    for code in (1000, 1001, 1009, 4406, 4408):
        assert re.search(rf"^\| {code} \|", closes, re.M), code
    close = orjson.loads((VECTORS / "close.json").read_bytes())
    assert close["code"] == 4406 and len(close["reason"].encode()) <= 123


def test_spec_sections_are_numbered_1_to_12():
    numbers = [int(n) for n in re.findall(r"^## (\d+)\. ", SPEC_TEXT, re.M)]
    assert numbers == list(range(1, 13))


def test_vectors_live_where_the_spec_says():
    assert (VECTORS / "index.json").exists() and "protocol/vectors/" in SPEC_TEXT


def test_every_server_message_protocol_builds_is_specified_and_has_a_vector():
    # A new builder in protocol/messages.py must come with a SPEC subsection and a vector.
    import protocol.messages as m

    built = set(re.findall(r'return \{"type": "([a-z_]+)"', Path(m.__file__).read_text()))
    assert built == SERVER_TYPES
