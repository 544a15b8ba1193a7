// Protocol v2 (SPEC §12): the shared vectors expand to their v1 messages in both encodings.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { encode } from "../msgpack.js";
import { Expander, V2Error, unpackFrame } from "../v2.js";
import { applyPatch, deepEqual } from "../teahouse.js";

const cases = JSON.parse(readFileSync(fileURLToPath(new URL("../../../protocol/vectors/v2.json", import.meta.url)), "utf8"));
const hex = (h) => new Uint8Array(h.match(/../g).map((b) => parseInt(b, 16)));
const VIEW = { type: "view", match: "m", seq: 2, seat: null, doc: { view: 0 }, ref: 2, keys: ["view"], paths: [], sentences: [] };

for (const encoding of ["msgpack", "json"]) {
  test(`v2 vectors expand to their v1 messages (${encoding})`, () => {
    const ex = new Expander();
    let doc = null;
    for (const c of cases) {
      const frame = encoding === "msgpack" ? unpackFrame(hex(c.msgpack_hex)) : JSON.parse(c.json);
      const got = ex.expand(frame);
      if (c.name === "view") {
        assert.equal(got.ref, 1);
        const { ref, keys, paths, sentences, ...rest } = got;
        assert.ok(keys.length > 10 && ref === 1 && Array.isArray(paths) && Array.isArray(sentences));
        assert.ok(deepEqual(rest, c.v1));
        doc = got.doc;
      } else {
        assert.ok(deepEqual(got, c.v1), `${c.name}: ${JSON.stringify(got)}`);
        if (got.type === "patch") {
          const before = JSON.stringify(doc);
          const next = applyPatch(doc, got.ops);
          assert.equal(JSON.stringify(doc), before, "applying leaves the old document as it was");
          doc = next;
        }
      }
    }
  });
}

test("a msgpack compact frame is its elements one after another; a map is a message", () => {
  const elements = [5, 12, "m10"];
  const bytes = new Uint8Array(elements.flatMap((x) => [...encode(x)]));
  assert.deepEqual(unpackFrame(bytes), elements);
  assert.deepEqual(unpackFrame(encode({ type: "pong" })), { type: "pong" });
  assert.throws(() => unpackFrame(new Uint8Array([4, 0xd9])));
});

test("v2 frames the expander cannot read throw V2Error", () => {
  const bad = [[36, 3], [4, 3, 34], [4, 3, 34, -1], [4, 3, 34, -5, 1], [4, 3, -1, 1], [4, 3, "x"], [4, 3, 3, 5],
    [7, 3], [5, 3], [6, 3, null], ["x", 3], [4, "3"]];
  for (const frame of bad) {
    const ex = new Expander();
    ex.expand({ ...VIEW, ref: 1 });
    assert.throws(() => ex.expand(frame), V2Error, JSON.stringify(frame));
  }
});

test("a path replaced again is interned, then sent as its index", () => {
  const ex = new Expander();
  ex.expand({ ...VIEW, keys: ["view", "turn"] });
  const op = (value) => [{ op: "replace", path: ["view", "turn"], value }];
  assert.deepEqual(ex.expand([8, 3, 2 + 64, -1, -2, 3]).ops, op(3));
  assert.deepEqual(ex.expand([8, 4, 3 + 64, -1, -2, 4]).ops, op(4)); // kind 3 with a path: interned as path 0
  assert.deepEqual(ex.expand([8, 5, -1, 5]).ops, op(5));
  const late = new Expander();
  late.expand({ ...VIEW, keys: ["view", "turn"], paths: [[-1, -2]] });
  assert.deepEqual(late.expand([8, 6, -1, 6]).ops, op(6));
});

test("ack, finished and presence are compact", () => {
  const ex = new Expander();
  ex.expand(VIEW);
  assert.deepEqual(ex.expand([11, [true, false], 3]), { type: "presence", match: "m", seats: [true, false], spectators: 3 });
  // An answer's presence may carry its reply and ref in a trailing map, as a patch carries extras.
  assert.deepEqual(ex.expand([11, [true, false], 3, { reply: "join", ref: "r-1" }]),
    { type: "presence", match: "m", seats: [true, false], spectators: 3, reply: "join", ref: "r-1" });
  for (const frame of [[11, [true]], [11, 1, 3], [11, [true], "3"], [11, [true], 3, "x"], [11, [true], 3, {}, {}]]) {
    assert.throws(() => ex.expand(frame), V2Error, JSON.stringify(frame));
  }
  assert.deepEqual(ex.expand([9, 7, "a-1"]), { type: "ack", match: "m", seq: 7, id: "a-1" });
  assert.deepEqual(ex.expand([10, 9, { winners: [0] }, "ab"]), { type: "finished", match: "m", seq: 9, result: { winners: [0] }, seed: "ab" });
});

test("said is a trailing array; other patch fields ride in the trailing map", () => {
  const ex = new Expander();
  ex.expand(VIEW);
  const got = ex.expand([8, 3, 34, -1, 1, ["Ana played the red 3."]]);
  assert.deepEqual(got, { type: "patch", match: "m", seq: 3, ops: [{ op: "replace", path: ["view"], value: 1 }],
    said: ["Ana played the red 3."] });
  assert.deepEqual(ex.expand([8, 4, 34, -1, 2, [], { final: true }]), { type: "patch", match: "m", seq: 4,
    ops: [{ op: "replace", path: ["view"], value: 2 }], said: [], final: true });
  // A sentence said again is appended to the sentence table ([s]) and then sent as its index.
  assert.deepEqual(ex.expand([8, 5, [["Ana passes."], "Bo passes."]]).said, ["Ana passes.", "Bo passes."]);
  assert.deepEqual(ex.expand([8, 6, [0]]).said, ["Ana passes."]);
  for (const frame of [[8, 5, ["a"], 34, -1, 2], [8, 5, ["a"], ["b"]], [8, 5, { x: 1 }, 34, -1, 2], [8, 7, [9]], [8, 7, [-1]], [8, 7, [["a", "b"]]]]) {
    assert.throws(() => ex.expand(frame), V2Error, JSON.stringify(frame));
  }
});
