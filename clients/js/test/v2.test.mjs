// Protocol v2 (SPEC §12): the shared vectors expand to their v1 messages in both encodings.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { decode } from "../msgpack.js";
import { Expander, V2Error } from "../v2.js";
import { applyPatch, deepEqual } from "../teahouse.js";

const cases = JSON.parse(readFileSync(fileURLToPath(new URL("../../../protocol/vectors/v2.json", import.meta.url)), "utf8"));
const hex = (h) => new Uint8Array(h.match(/../g).map((b) => parseInt(b, 16)));

for (const encoding of ["msgpack", "json"]) {
  test(`v2 vectors expand to their v1 messages (${encoding})`, () => {
    const ex = new Expander();
    let doc = null;
    for (const c of cases) {
      const frame = encoding === "msgpack" ? decode(hex(c.msgpack_hex)) : JSON.parse(c.json);
      const got = ex.expand(frame);
      if (c.name === "view") {
        assert.equal(got.ref, 1);
        const { ref, keys, ...rest } = got;
        assert.ok(keys.length > 10 && ref === 1);
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

test("v2 frames the expander cannot read throw V2Error", () => {
  const bad = [[0, 9, 3], [0, 1, 3, 34], [0, 1, 3, 34, -1], [0, 1, 3, 34, -5, 1], [0, 1, 3, "x"], [0, 1, 3, 3, 5], [7, 1, 3]];
  for (const frame of bad) {
    const ex = new Expander();
    ex.expand({ type: "view", match: "m", seq: 2, seat: null, doc: { view: 0 }, ref: 1, keys: ["view"] });
    assert.throws(() => ex.expand(frame), V2Error, JSON.stringify(frame));
  }
});

test("said is a trailing array; other patch fields ride in the trailing map", () => {
  const ex = new Expander();
  ex.expand({ type: "view", match: "m", seq: 2, seat: null, doc: { view: 0 }, ref: 2, keys: ["view"] });
  const got = ex.expand([0, 2, 3, 34, -1, 1, ["Ana played the red 3."]]);
  assert.deepEqual(got, { type: "patch", match: "m", seq: 3, ops: [{ op: "replace", path: ["view"], value: 1 }],
    said: ["Ana played the red 3."] });
  assert.deepEqual(ex.expand([0, 2, 4, 34, -1, 2, [], { final: true }]), { type: "patch", match: "m", seq: 4,
    ops: [{ op: "replace", path: ["view"], value: 2 }], said: [], final: true });
  // A sentence said again is interned like a key and then sent as its index.
  assert.deepEqual(ex.expand([0, 2, 5, 3, "Ana passes.", [1, "Bo passes."]]).said, ["Ana passes.", "Bo passes."]);
  assert.deepEqual(ex.expand([0, 2, 6, [1]]).said, ["Ana passes."]);
  for (const frame of [[0, 2, 5, ["a"], 34, -1, 2], [0, 2, 5, ["a"], ["b"]], [0, 2, 5, { x: 1 }, 34, -1, 2], [0, 2, 7, [9]], [0, 2, 7, [-1]]]) {
    assert.throws(() => ex.expand(frame), V2Error, JSON.stringify(frame));
  }
});
