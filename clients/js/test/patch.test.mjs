// Patch apply (SPEC §6.3), checked against answers computed by protocol/patch.py.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { PatchError, applyPatch, clone, deepEqual } from "../teahouse.js";

const fixtures = JSON.parse(readFileSync(new URL("./fixtures/patch_cases.json", import.meta.url), "utf8"));

test("the fixtures hold edge cases and playouts of every game", () => {
  const names = fixtures.cases.map((c) => c.name);
  assert.ok(names.length > 100);
  for (const game of ["pixies", "china", "gugong", "khan", "hieroglyphs"]) {
    assert.ok(names.some((n) => n.startsWith(game + " ")), `no playout case for ${game}`);
  }
});

for (const c of fixtures.cases) {
  test(`apply: ${c.name}`, () => {
    const before = JSON.stringify(c.doc);
    const opsBefore = JSON.stringify(c.ops);
    if (c.expect && c.expect.error === true && !Array.isArray(c.expect) && Object.keys(c.expect).length === 1) {
      assert.throws(() => applyPatch(c.doc, c.ops), PatchError);
    } else {
      const got = applyPatch(c.doc, c.ops);
      assert.ok(deepEqual(got, c.expect), `got ${JSON.stringify(got).slice(0, 300)}`);
    }
    assert.equal(JSON.stringify(c.doc), before, "apply must not change its input document");
    assert.equal(JSON.stringify(c.ops), opsBefore, "apply must not change the ops");
  });
}

test("a value added is a copy: changing the result does not change the patch", () => {
  const ops = [{ op: "add", path: ["x"], value: { deep: [1] } }];
  const got = applyPatch({}, ops);
  got.x.deep.push(2);
  assert.deepEqual(ops[0].value, { deep: [1] });
});

test("__proto__ is an ordinary key, never the prototype", () => {
  const got = applyPatch({}, [{ op: "add", path: ["__proto__"], value: { polluted: true } }]);
  assert.equal(Object.getPrototypeOf(got), Object.prototype);
  assert.equal(got.polluted, undefined);
  assert.deepEqual(Object.keys(got), ["__proto__"]);
  assert.equal(({}).polluted, undefined);
});

test("deepEqual: key order is ignored, types are not", () => {
  assert.ok(deepEqual({ a: 1, b: [true] }, { b: [true], a: 1 }));
  assert.ok(!deepEqual([true], [1]));
  assert.ok(!deepEqual({ a: null }, {}));
  assert.ok(!deepEqual([], {}));
  assert.ok(!deepEqual({ a: 1 }, { a: 1, b: 2 }));
  assert.ok(deepEqual(clone({ x: [{ y: "z" }] }), { x: [{ y: "z" }] }));
});
