"""Protocol v2's compact frames (SPEC §12): the vectors, and exactness over real playouts."""

from __future__ import annotations

from pathlib import Path

import msgpack
import orjson
import pytest

from protocol.codec import encode
from protocol.patch import PatchError, apply, diff
from protocol.v2 import (
    Expander,
    KeyTable,
    SentenceTable,
    compact_ack,
    compact_finished,
    compact_patch,
    compact_presence,
    decode_frame,
    without_said,
)
from service.games import GAMES, get_game
from service.games.playout import playout

VECTORS = Path(__file__).resolve().parents[2] / "protocol" / "vectors" / "v2.json"
VIEW = {"type": "view", "match": "m", "seq": 2, "seat": None, "doc": {"view": 0}, "ref": 2, "keys": ["view"],
        "paths": [], "sentences": []}


def test_the_vectors_expand_to_their_v1_messages_in_both_encodings():
    cases = orjson.loads(VECTORS.read_bytes())
    assert [c["name"] for c in cases] == ["view", "patch_start", "patch", "ack", "presence", "finished"]
    for encoding in ("msgpack", "json"):
        ex = Expander()
        for c in cases:
            frame = bytes.fromhex(c["msgpack_hex"]) if encoding == "msgpack" else c["json"].encode()
            got = ex.expand(decode_frame(frame, encoding))
            want = c["v1"]
            if c["name"] == "view":
                assert got["keys"] and got["ref"] == 1
                got = {k: v for k, v in got.items() if k not in ("ref", "keys", "paths", "sentences")}
            assert got == want, c["name"]


def test_a_msgpack_compact_frame_is_its_elements_without_the_array_header():
    # SPEC 12.1: a binary frame that starts with a map is a message; anything else is a compact
    # frame, its elements one after another.
    frame = compact_ack(1, 12, "m10")
    assert frame == [5, 12, "m10"]
    data = encode(frame, "v2.msgpack")
    assert data == bytes.fromhex("050c") + msgpack.packb("m10")
    assert decode_frame(data, "msgpack") == frame
    long = [4, 70, *([38, -1, 1] * 10)]  # 32 elements: a msgpack array16 header would be 3 bytes
    assert encode(long, "v2.msgpack") == b"".join(msgpack.packb(x) for x in long)
    assert decode_frame(encode(long, "v2.msgpack"), "msgpack") == long
    assert decode_frame(encode({"type": "pong"}, "v2.msgpack"), "msgpack") == {"type": "pong"}
    with pytest.raises(PatchError):
        decode_frame(b"\x04\xd9", "msgpack")  # a string cut short


def test_a_move_costs_a_few_dozen_bytes_in_v2():
    cases = {c["name"]: c for c in orjson.loads(VECTORS.read_bytes())}
    # The commit's sentences (`said`, SPEC 3.14) are the same words in both versions: the
    # saving is in the ops, so it is measured without them.
    words = len(encode({"said": cases["patch"]["v1"].get("said", [])}, "msgpack"))
    v2 = len(bytes.fromhex(cases["patch"]["msgpack_hex"])) - words
    assert v2 * 5 < len(encode(cases["patch"]["v1"], "msgpack")) - words
    assert bytes.fromhex(cases["ack"]["msgpack_hex"]) == bytes([4 * 1 + 1, 2]) + msgpack.packb("a-1")


@pytest.mark.parametrize("game_id", GAMES)
def test_expanding_compact_patches_rebuilds_every_document(game_id):
    """Server side: one KeyTable per audience, learnt from the first document, one SentenceTable;
    client side: an Expander fed the view then every patch. Every audience's document must come
    out exact, in both encodings."""
    game = get_game(game_id)
    players = game.min_players + 1 if game.max_players > game.min_players else game.min_players
    steps = list(playout(game, players, f"v2-{game_id}"))
    for audience in [*range(players), None]:
        first = {"view": game.view(steps[0].after, audience), "status": game.status(steps[0].after)}
        table = KeyTable()
        table.learn(first)
        sentences = SentenceTable()
        expanders = {"json": Expander(), "msgpack": Expander()}
        for ex in expanders.values():
            ex.expand({"type": "view", "match": "m", "seq": 1, "seat": audience, "doc": first, "ref": 7,
                       "keys": list(table.keys), "paths": [], "sentences": []})
        client, prev = first, first
        interned = 0
        for step in steps[1:]:
            doc = {"view": game.view(step.after, audience), "status": game.status(step.after)}
            said = [f"seat {step.seq % players} moved."]
            message = {"type": "patch", "match": "m", "seq": step.seq, "ops": diff(prev, doc), "said": said}
            compact = compact_patch(7, step.seq, message, table, sentences.compact(said))
            interned += sum(1 for x in compact[2:] if type(x) is int and x < 0)
            for encoding, ex in expanders.items():
                got = ex.expand(decode_frame(encode(compact, f"v2.{encoding}"), encoding))
                assert got == message, encoding
            client = apply(client, got["ops"])
            assert client == doc
            prev = doc
        assert interned > 0  # some path was replaced often enough to be sent by its index


def test_a_path_replaced_again_is_interned_then_sent_as_its_index():
    # SPEC 12.3: kind 3 with a path is a replace that appends the path to the path table; a
    # negative header is a replace at the table's path -1 - H.
    table = KeyTable(["view", "turn"])
    ex = Expander()
    ex.expand({**VIEW, "keys": ["view", "turn"]})
    frames = []
    for seq in (3, 4, 5):
        message = {"type": "patch", "match": "m", "seq": seq, "ops": [
            {"op": "replace", "path": ["view", "turn"], "value": seq}]}
        frames.append(compact_patch(2, seq, message, table))
        assert ex.expand(frames[-1]) == message
    assert frames[0] == [8, 3, 2 + 32 * 2, -1, -2, 3]  # inline
    assert frames[1] == [8, 4, 3 + 32 * 2, -1, -2, 4]  # inline, interned as path 0
    assert frames[2] == [8, 5, -1, 5]  # path 0
    # the view hands a connection the table: a later connection reads the same frames
    late = Expander()
    late.expand({**VIEW, "keys": ["view", "turn"], "paths": [[-1, -2]]})
    assert late.expand(frames[2])["ops"] == [{"op": "replace", "path": ["view", "turn"], "value": 5}]


def test_said_is_a_trailing_array_and_other_fields_ride_in_the_trailing_map():
    # SPEC 12.3: an array where a header would stand is the patch's `said`, sent without its
    # name; a map after it holds any other field.
    table = KeyTable(["view"])
    message = {"type": "patch", "match": "m", "seq": 3, "ops": [{"op": "replace", "path": ["view"], "value": 1}],
               "said": ["Ana played the red 3."]}
    compact = compact_patch(2, 3, message, table)
    assert compact == [8, 3, 2 + 32, -1, 1, ["Ana played the red 3."]]
    ex = Expander()
    ex.expand(VIEW)
    assert ex.expand(compact) == message
    assert ex.expand([8, 4, 34, -1, 2, [], {"final": True}]) == {
        "type": "patch", "match": "m", "seq": 4, "ops": [{"op": "replace", "path": ["view"], "value": 2}],
        "said": [], "final": True}


def test_a_sentence_said_again_is_interned_then_sent_as_its_index():
    # SPEC 12.3: inside said, [s] appends s to the sentence table, an integer k is its entry k.
    table = KeyTable(["view"])
    sentences = SentenceTable()
    ex = Expander()
    ex.expand(VIEW)
    frames = []
    for seq in (2, 3, 4):
        said = ["Ana passes.", f"turn {seq}"]
        message = {"type": "patch", "match": "m", "seq": seq, "ops": [], "said": said}
        frames.append(compact_patch(2, seq, message, table, sentences.compact(said)))
        assert ex.expand(decode_frame(encode(frames[-1], "v2.json"), "json")) == message
    assert frames[0] == [8, 2, ["Ana passes.", "turn 2"]]  # first said: as it is
    assert frames[1] == [8, 3, [["Ana passes."], "turn 3"]]  # said again: interned
    assert frames[2] == [8, 4, [0, "turn 4"]]  # and then one index
    late = Expander()
    late.expand({**VIEW, "sentences": list(sentences.sentences)})
    assert late.expand(frames[2])["said"] == ["Ana passes.", "turn 4"]


def test_presence_is_compact_too():
    ex = Expander()
    ex.expand(VIEW)
    frame = compact_presence(2, [True, False, True], 4)
    assert frame == [11, [True, False, True], 4]
    assert ex.expand(decode_frame(encode(frame, "v2.msgpack"), "msgpack")) == {
        "type": "presence", "match": "m", "seats": [True, False, True], "spectators": 4}
    assert len(encode(frame, "v2.msgpack")) == 6


def test_finished_is_compact_too():
    ex = Expander()
    ex.expand(VIEW)
    result = {"scores": [3, 1], "ranking": [0, 1], "winners": [0]}
    frame = compact_finished(2, 9, result, "ab" * 32)
    assert frame[0] == 4 * 2 + 2
    assert ex.expand(decode_frame(encode(frame, "v2.msgpack"), "msgpack")) == {
        "type": "finished", "match": "m", "seq": 9, "result": result, "seed": "ab" * 32}


@pytest.mark.parametrize("frame", [
    [8, 4, [5]],  # a sentence index outside the table
    [8, 4, [True]],  # neither a string nor an index
    [8, 4, [["a", "b"]]],  # an interned sentence is one string
    [8, 4, ["a"], 34, -1, 2],  # an op after said
    [8, 4, ["a"], ["b"]],  # said twice
    [8, 4, {"x": 1}, 34, -1, 2],  # an op after the extras map
])
def test_said_and_extras_end_the_op_stream(frame):
    ex = Expander()
    ex.expand(VIEW)
    with pytest.raises(PatchError):
        ex.expand(frame)


@pytest.mark.parametrize("frame", [
    [36, 3],                      # an unknown ref (9)
    [4, 3, 2 + 32],               # a path running past the end
    [4, 3, 2 + 32, -1],           # a value running past the end
    [4, 3, 2 + 32, -5, 1],        # a key index outside the table
    [4, 3, -1, 1],                # a path index outside the (empty) path table
    [4, 3, 2 + 32, -1, {"7": 1}],  # a key index inside a value outside the table
    [4, 3, "x"],                  # not a header
    [4, 3, 3, 5],                 # an intern without a string
    [7, [True]],                  # a presence without its spectators
    [7, 1, 3],                    # a presence whose seats are not a list
    [4, "3"],                     # a seq that is not an integer
    [5, 3],                       # an ack without its id
    [6, 3, None],                 # a finished without its seed
    ["x", 3],                     # not a frame head
])
def test_malformed_v2_frames_are_patch_errors(frame):
    ex = Expander()
    ex.expand({**VIEW, "ref": 1})
    with pytest.raises(PatchError):
        ex.expand(frame)


def test_a_quiet_patch_is_the_same_frame_without_its_said():
    # SPEC 4.1 (`hello` said: false): the patch keeps everything but the sentences.
    table = KeyTable(["view"])
    message = {"type": "patch", "match": "m", "seq": 3, "ops": [{"op": "replace", "path": ["view"], "value": [1]}],
               "said": ["Ana passes."], "final": True}
    compact = compact_patch(2, 3, message, table)
    assert without_said(compact, message) == [8, 3, 34, -1, [1], {"final": True}]
    plain = {k: v for k, v in message.items() if k != "final"}
    assert without_said(compact_patch(2, 3, plain, KeyTable(["view"])), plain) == [8, 3, 34, -1, [1]]
    ex = Expander()
    ex.expand(VIEW)
    assert ex.expand(without_said(compact, message)) == {k: v for k, v in message.items() if k != "said"}
