// The shared protocol vectors (protocol/vectors/, written from a real session by the server's
// own tests): the JS SDK reads every JSON frame, and the patches chain from the first view.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { test } from "node:test";

import { applyPatch, deepEqual } from "../teahouse.js";

const dir = new URL("../../../protocol/vectors/", import.meta.url);
const have = existsSync(new URL("index.json", dir));
const load = (name) => JSON.parse(readFileSync(new URL(name, dir), "utf8"));

test("every JSON frame of the index decodes to its value", { skip: !have && "no protocol/vectors" }, () => {
  const index = load("index.json");
  assert.ok(index.length > 10);
  for (const entry of index) {
    const raw = readFileSync(new URL(`${entry.name}.json`, dir), "utf8");
    assert.ok(deepEqual(JSON.parse(raw), entry.value), entry.name);
    assert.equal(entry.value.type, entry.type, entry.name);
  }
});

test("view at seq 0 + patch 1 + patch 2 = the replay document at seq 2", { skip: !have && "no protocol/vectors" }, () => {
  const waiting = load("view_waiting.json");
  const start = load("patch_start.json");
  const second = load("patch.json");
  assert.equal(waiting.seq, 0);
  assert.equal(start.seq, waiting.seq + 1);
  assert.equal(second.seq, start.seq + 1);
  const atOne = applyPatch(waiting.doc, start.ops);
  // Pixies shows every audience the same table: seat 1's full view at seq 1 is seat 0's too.
  const seatOne = load("view.json");
  assert.equal(seatOne.seq, 1);
  assert.ok(deepEqual(atOne, seatOne.doc));
  const atTwo = applyPatch(atOne, second.ops);
  const replay = load("http.json").find((e) => e.path.includes("/replay") && e.response?.seq === 2);
  assert.ok(replay, "http.json has the replay at seq 2");
  assert.ok(deepEqual(atTwo, { view: replay.response.view, status: replay.response.status }));
  // the resync answer carries the same kept patch
  assert.ok(deepEqual(load("patch_resync.json").ops, second.ops));
});

test("the final patch and finished agree on the result", { skip: !have && "no protocol/vectors" }, () => {
  const final = load("patch_final.json");
  const finished = load("finished.json");
  assert.equal(final.seq, finished.seq);
  const result = final.ops.find((op) => deepEqual(op.path, ["status", "result"]));
  assert.ok(result, "the final patch sets status.result");
  assert.ok(deepEqual(result.value, finished.result));
});
