// The JS verifier (verify.js, written from protocol/SPEC.md 2.13, 10.4 and 10.6) against the
// chance vectors the server's engines wrote (protocol/vectors/chance/) and SPEC 10's generator
// vector (protocol/vectors/fairness.json).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { CommitRng, sha256, verifyChance } from "../verify.js";

const VECTORS = new URL("../../../protocol/vectors/", import.meta.url);
const fairness = JSON.parse(readFileSync(new URL("fairness.json", VECTORS), "utf8"));

test("sha256 and the commit generator reproduce SPEC 10's vector", () => {
  assert.equal(sha256(fairness.seed), fairness.seed_sha256);
  assert.equal(sha256(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  for (const c of fairness.commits) {
    assert.equal(sha256(c.material), c.sha256);
    const rng = new CommitRng(fairness.seed, c.seq);
    assert.deepEqual([0, 1, 2, 3].map(() => rng.getrandbits(32)), c.getrandbits32);
    assert.deepEqual(new CommitRng(fairness.seed, c.seq).shuffle([...Array(10).keys()]), c.shuffle_range_10);
  }
});

const chanceDir = new URL("chance/", VECTORS);
for (const file of readdirSync(chanceDir).sort()) {
  const cases = JSON.parse(readFileSync(new URL(file, chanceDir), "utf8"));
  for (const { header, commit } of cases) {
    const name = `${header.game} ${header.players}p ${JSON.stringify(header.options)}`;
    const record = [{ ...header, commits: 1 }, commit];

    test(`the start of ${name} draws what the engine drew`, () => {
      assert.deepEqual(verifyChance(record), { ok: true, checked: [1] });
    });

    test(`a changed outcome in the start of ${name} is named at seq 1`, () => {
      const events = structuredClone(commit.events);
      // the shuffled list of each game's start (SPEC 10.6)
      const drawn = ["order", "deck_order", "draw_pile", "cards"];
      const e = events.find((x) => drawn.some((k) => Array.isArray(x[k])));
      const field = drawn.find((k) => Array.isArray(e[k]));
      [e[field][0], e[field][1]] = [e[field][1], e[field][0]];
      const verdict = verifyChance([record[0], { ...commit, events }]);
      assert.equal(verdict.ok, false);
      assert.equal(verdict.seq, 1);
    });

    test(`a wrong seed for ${name} fails the commitment`, () => {
      const verdict = verifyChance([{ ...record[0], seed: "0".repeat(64) }, commit]);
      assert.deepEqual([verdict.ok, verdict.seq], [false, 0]);
      assert.match(verdict.reason, /seed_sha256/);
    });
  }
}
