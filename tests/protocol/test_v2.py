"""Protocol v2's compact patches (SPEC §12): the vectors, and exactness over real playouts."""

from __future__ import annotations

from pathlib import Path

import msgpack
import orjson
import pytest

from protocol.codec import decode, encode
from protocol.patch import PatchError, apply, diff
from protocol.v2 import Expander, KeyTable, compact_patch
from service.games import GAMES, get_game
from service.games.playout import playout

VECTORS = Path(__file__).resolve().parents[2] / "protocol" / "vectors" / "v2.json"


def test_the_vectors_expand_to_their_v1_messages_in_both_encodings():
    cases = orjson.loads(VECTORS.read_bytes())
    assert [c["name"] for c in cases] == ["view", "patch_start", "patch", "ack"]
    for wire in ("v2.msgpack", "v2.json"):
        ex = Expander()
        for c in cases:
            frame = bytes.fromhex(c["msgpack_hex"]) if wire == "v2.msgpack" else c["json"].encode()
            got = ex.expand(decode(frame, wire))
            want = c["v1"]
            if c["name"] == "view":
                assert got["keys"] and got["ref"] == 1
                got = {k: v for k, v in got.items() if k not in ("ref", "keys")}
            assert got == want, c["name"]


def test_a_move_costs_a_few_dozen_bytes_in_v2():
    cases = {c["name"]: c for c in orjson.loads(VECTORS.read_bytes())}
    # The commit's sentences (`said`, SPEC 3.14) are the same words in both versions: the
    # saving is in the ops, so it is measured without them.
    words = len(encode({"said": cases["patch"]["v1"].get("said", [])}, "msgpack"))
    v2 = len(bytes.fromhex(cases["patch"]["msgpack_hex"])) - words
    assert v2 * 5 < len(encode(cases["patch"]["v1"], "msgpack")) - words
    assert bytes.fromhex(cases["ack"]["msgpack_hex"]) == msgpack.packb([1, 1, 2, "a-1"])


@pytest.mark.parametrize("game_id", GAMES)
def test_expanding_compact_patches_rebuilds_every_document(game_id):
    """Server side: one KeyTable per audience, learnt from the first document; client side: an
    Expander fed the view then every patch. Every audience's document must come out exact."""
    game = get_game(game_id)
    players = game.min_players + 1 if game.max_players > game.min_players else game.min_players
    steps = list(playout(game, players, f"v2-{game_id}"))
    for audience in [*range(players), None]:
        first = {"view": game.view(steps[0].after, audience), "status": game.status(steps[0].after)}
        table = KeyTable()
        table.learn(first)
        ex = Expander()
        ex.expand({"type": "view", "match": "m", "seq": 1, "seat": audience, "doc": first, "ref": 7,
                   "keys": list(table.keys)})
        client, prev = first, first
        for step in steps[1:]:
            doc = {"view": game.view(step.after, audience), "status": game.status(step.after)}
            message = {"type": "patch", "match": "m", "seq": step.seq, "ops": diff(prev, doc)}
            # JSON is the stricter encoding for v2 (its map keys come back as strings)
            frame = encode(compact_patch(7, step.seq, message, table), "v2.json")
            got = ex.expand(decode(frame, "v2.json"))
            assert got == message
            client = apply(client, got["ops"])
            assert client == doc
            prev = doc


def test_said_is_a_trailing_array_and_other_fields_ride_in_the_trailing_map():
    # SPEC 12.3: an array where a header would stand is the patch's `said`, sent without its
    # name; a map after it holds any other field.
    table = KeyTable(["view"])
    message = {"type": "patch", "match": "m", "seq": 3, "ops": [{"op": "replace", "path": ["view"], "value": 1}],
               "said": ["Ana played the red 3."]}
    compact = compact_patch(2, 3, message, table)
    assert compact == [0, 2, 3, 2 + 32, -1, 1, ["Ana played the red 3."]]
    ex = Expander()
    ex.expand({"type": "view", "match": "m", "seq": 2, "seat": None, "doc": {"view": 0}, "ref": 2, "keys": ["view"]})
    assert ex.expand(compact) == message
    assert ex.expand([0, 2, 4, 34, -1, 2, [], {"final": True}]) == {
        "type": "patch", "match": "m", "seq": 4, "ops": [{"op": "replace", "path": ["view"], "value": 2}],
        "said": [], "final": True}


def test_a_sentence_said_again_is_interned_then_sent_as_its_index():
    # SPEC 12.3: inside said, an integer k is the key table's entry k.
    table = KeyTable(["view"])
    ex = Expander()
    ex.expand({"type": "view", "match": "m", "seq": 1, "seat": None, "doc": {"view": 0}, "ref": 2, "keys": ["view"]})
    said: set[str] = set()
    frames = []
    for seq in (2, 3, 4):
        message = {"type": "patch", "match": "m", "seq": seq, "ops": [], "said": ["Ana passes.", f"turn {seq}"]}
        frames.append(compact_patch(2, seq, message, table, said))
        assert ex.expand(decode(encode(frames[-1], "v2.json"), "v2.json")) == message
        said.update(message["said"])
    assert frames[0] == [0, 2, 2, ["Ana passes.", "turn 2"]]  # first said: as it is
    assert frames[1] == [0, 2, 3, 3, "Ana passes.", [1, "turn 3"]]  # said again: interned
    assert frames[2] == [0, 2, 4, [1, "turn 4"]]  # and then one index


@pytest.mark.parametrize("frame", [
    [0, 2, 4, [5]],  # a sentence index outside the table
    [0, 2, 4, [True]],  # neither a string nor an index
    [0, 2, 4, ["a"], 34, -1, 2],  # an op after said
    [0, 2, 4, ["a"], ["b"]],  # said twice
    [0, 2, 4, {"x": 1}, 34, -1, 2],  # an op after the extras map
])
def test_said_and_extras_end_the_op_stream(frame):
    ex = Expander()
    ex.expand({"type": "view", "match": "m", "seq": 2, "seat": None, "doc": {"view": 0}, "ref": 2, "keys": ["view"]})
    with pytest.raises(PatchError):
        ex.expand(frame)


@pytest.mark.parametrize("frame", [
    [0, 9, 3],                       # an unknown ref
    [0, 1, 3, 2 + 32],               # a path running past the end
    [0, 1, 3, 2 + 32, -1],           # a value running past the end
    [0, 1, 3, 2 + 32, -5, 1],        # a key index outside the table
    [0, 1, 3, "x"],                  # not a header
    [0, 1, 3, 3, 5],                 # an intern without a string
    [7, 1, 3],                       # an unknown frame kind
])
def test_malformed_v2_frames_are_patch_errors(frame):
    ex = Expander()
    ex.expand({"type": "view", "match": "m", "seq": 2, "seat": None, "doc": {"view": 0}, "ref": 1, "keys": ["view"]})
    with pytest.raises(PatchError):
        ex.expand(frame)
