// The msgpack codec against the shared vectors: every .msgpack frame decodes to the value of
// its .json twin, and encoding that value gives the very same bytes (smallest formats).
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { test } from "node:test";

import { MsgpackError, decode, encode } from "../msgpack.js";
import { deepEqual } from "../teahouse.js";

const dir = new URL("../../../protocol/vectors/", import.meta.url);
const have = existsSync(new URL("index.json", dir));
const hex = (b) => Buffer.from(b).toString("hex");

test("every msgpack vector decodes to its JSON value and encodes to its exact bytes", { skip: !have && "no protocol/vectors" }, () => {
  const index = JSON.parse(readFileSync(new URL("index.json", dir), "utf8"));
  let checked = 0;
  for (const entry of index) {
    const file = new URL(`${entry.name}.msgpack`, dir);
    if (!existsSync(file)) continue;
    const bytes = new Uint8Array(readFileSync(file));
    assert.ok(deepEqual(decode(bytes), entry.value), `${entry.name} decodes`);
    assert.equal(hex(encode(entry.value)), hex(bytes), `${entry.name} encodes byte for byte`);
    checked += 1;
  }
  assert.ok(checked > 30, `only ${checked} msgpack vectors`);
});

test("the invalid frames of the vectors do not decode", { skip: !have && "no protocol/vectors" }, () => {
  const invalid = JSON.parse(readFileSync(new URL("invalid.json", dir), "utf8"));
  const truncated = invalid.filter((c) => c.msgpack_hex && c.code === "bad_frame");
  assert.ok(truncated.length > 0);
  for (const c of truncated) assert.throws(() => decode(Buffer.from(c.msgpack_hex, "hex")), MsgpackError, c.name);
});

test("integers take the smallest format at every boundary, and round-trip", () => {
  const cases = [
    [0, "00"], [127, "7f"], [128, "cc80"], [255, "ccff"], [256, "cd0100"], [65535, "cdffff"],
    [65536, "ce00010000"], [4294967295, "ceffffffff"], [4294967296, "cf0000000100000000"],
    [-1, "ff"], [-32, "e0"], [-33, "d0df"], [-128, "d080"], [-129, "d1ff7f"], [-32768, "d18000"],
    [-32769, "d2ffff7fff"], [-2147483648, "d280000000"], [-2147483649, "d3ffffffff7fffffff"],
    [Number.MAX_SAFE_INTEGER, "cf001fffffffffffff"],
  ];
  for (const [n, want] of cases) {
    assert.equal(hex(encode(n)), want, String(n));
    assert.equal(decode(encode(n)), n);
  }
  assert.equal(decode(encode(2n ** 64n - 1n)), 2n ** 64n - 1n);
});

test("strings, containers and their length boundaries round-trip", () => {
  for (const n of [0, 31, 32, 255, 256, 65535, 65536]) {
    const s = "x".repeat(n);
    assert.equal(decode(encode(s)), s);
    const arr = Array.from({ length: Math.min(n, 70000) }, (_, i) => i % 3 === 0);
    assert.ok(deepEqual(decode(encode(arr)), arr));
  }
  const map = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, { nested: [null, "é故", -5] }]));
  assert.ok(deepEqual(decode(encode(map)), map));
  assert.equal(hex(encode("é")), "a2c3a9");
  assert.equal(hex(encode({})), "80");
  assert.equal(hex(encode(1.5)), "cb3ff8000000000000");
});

test("decode refuses what protocol v1 does not carry", () => {
  assert.throws(() => decode(Uint8Array.of(0x81, 0xff, 0x02)), /keys must be strings/); // key -1
  assert.throws(() => decode(Uint8Array.of(0x81, 0xc3, 0x02)), /keys must be strings/); // key true
  // a v2 key index (SPEC §12.3) reads as its decimal string, as in JSON
  assert.deepEqual(decode(Uint8Array.of(0x81, 0x01, 0x02)), { 1: 2 });
  assert.throws(() => decode(Uint8Array.of(0xd4, 0x01, 0x02)), /ext types/);
  assert.throws(() => decode(Uint8Array.of(0xc0, 0xc0)), /after the value/);
  assert.throws(() => decode(Uint8Array.of(0xa2, 0xff, 0xfe)), /UTF-8/);
  const proto = decode(encode(JSON.parse('{"__proto__": {"x": 1}}')));
  assert.equal(Object.getPrototypeOf(proto), Object.prototype);
  assert.deepEqual(Object.keys(proto), ["__proto__"]);
});
