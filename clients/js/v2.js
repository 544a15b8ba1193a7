// Protocol v2's compact frames (protocol/SPEC.md §12), expanded back into v1-shaped messages
// so that the rest of the SDK handles both versions alike. A port of the Python SDK's Expander (teahouse_client/v2.py).
//
//   h = 4 * ref + kind:  patch [h, seq, op..., said?, extras?]   ack [h + 1, seq, id]
//                        finished [h + 2, seq, result, seed]   presence [h + 3, seats, spectators]
//   In msgpack a compact frame is its elements one after another (no array header); a binary
//   frame that starts with a map is an ordinary message.
//   op header H >= 0: kind = H % 4 (add, remove, replace, intern), keep = H >> 2 & 7,
//   fresh = H >> 5; H = 3 interns a key (a string follows); kind 3 with a path is a replace
//   that appends its path to the path table; H < 0 is a replace at the path table's path -1 - H.
//   Path elements: i >= 0 an array index, -1 - k the key table's key k; inside values every map
//   key is a key index (a number in msgpack, its decimal string in JSON). An array where a
//   header would stand is the patch's `said` (a string is a sentence, [s] a sentence appended
//   to the sentence table, an integer k the table's sentence k); a map there holds the patch's
//   other fields; both end the ops.

import { decode as unpackOne, decodeAll } from "./msgpack.js";

export const PATCH = 0;
export const ACK = 1;
export const FINISHED = 2;
export const PRESENCE = 3;
const NAMES = ["add", "remove", "replace", "replace"];
const INTERN = 3;
const PATCH_FIELDS = new Set(["type", "match", "seq", "ops", "said"]);
const PRESENCE_FIELDS = new Set(["type", "match", "seats", "spectators"]);

export class V2Error extends Error {
  constructor(message) {
    super(message);
    this.name = "V2Error";
  }
}

const isInt = (v) => typeof v === "number" && Number.isInteger(v);
const isMap = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

/** A v2 msgpack binary frame to a value: a map (a message) or a compact frame's elements. */
export function unpackFrame(data) {
  const bytes = data instanceof Uint8Array ? data : new Uint8Array(data);
  const b = bytes[0];
  if ((b >= 0x80 && b < 0x90) || b === 0xde || b === 0xdf) return unpackOne(bytes);
  return decodeAll(bytes);
}

/** One per socket: remembers each match's ref and tables from its `view`. */
export class Expander {
  constructor() {
    this.matches = new Map(); // ref -> match id
    this.tables = new Map(); // ref -> {keys: [key, ...], paths: [[element, ...], ...], sentences: [...]}
  }

  /** A decoded frame in, a v1-shaped message out; throws V2Error on a frame it cannot read. */
  expand(msg) {
    if (!Array.isArray(msg)) {
      if (isMap(msg) && msg.type === "view" && isInt(msg.ref)) {
        const paths = Array.isArray(msg.paths) ? msg.paths : [];
        if (!paths.every((p) => Array.isArray(p) && p.every(isInt))) throw new V2Error("a view's path table holds something else than paths");
        this.matches.set(msg.ref, msg.match);
        this.tables.set(msg.ref, {
          keys: Array.isArray(msg.keys) ? [...msg.keys] : [],
          paths: paths.map((p) => [...p]),
          sentences: Array.isArray(msg.sentences) ? [...msg.sentences] : [],
        });
      }
      return msg;
    }
    if (msg.length < 2 || !isInt(msg[0]) || msg[0] < 0) throw new V2Error("not a v2 frame");
    const ref = Math.floor(msg[0] / 4);
    const kind = msg[0] % 4;
    const match = this.matches.get(ref);
    if (match === undefined) throw new V2Error(`v2 frame for unknown ref ${ref}`);
    if (kind === PRESENCE) {
      const extras = msg.length === 4 ? msg[3] : {};
      if (msg.length < 3 || msg.length > 4 || !Array.isArray(msg[1]) || !isInt(msg[2]) || !isMap(extras)) {
        throw new V2Error("a presence is [h, seats, spectators, extras?]");
      }
      // (the extras map, like a patch's, carries fields such as an answer's `reply` and `ref`)
      const out = {};
      for (const [k, v] of Object.entries(extras)) if (!PRESENCE_FIELDS.has(k)) out[k] = v;
      return { ...out, type: "presence", match, seats: msg[1], spectators: msg[2] };
    }
    const seq = msg[1];
    if (!isInt(seq)) throw new V2Error("a v2 frame's seq must be an integer");
    if (kind === ACK) {
      if (msg.length !== 3) throw new V2Error("an ack is [h, seq, id]");
      return { type: "ack", match, seq, id: msg[2] };
    }
    if (kind === FINISHED) {
      // (a rated match's rating changes follow as the extras map: [h, seq, result, seed, {...}])
      const extras = msg.length === 5 ? msg[4] : {};
      if ((msg.length !== 4 && msg.length !== 5) || extras === null || typeof extras !== "object" || Array.isArray(extras)) {
        throw new V2Error("a finished is [h, seq, result, seed] or [h, seq, result, seed, extras]");
      }
      const out = {};
      for (const [k, v] of Object.entries(extras)) if (!["type", "match", "seq", "result", "seed"].includes(k)) out[k] = v;
      return { ...out, type: "finished", match, seq, result: msg[2], seed: msg[3] };
    }
    const out = { type: "patch", match, seq, ops: [] };
    const { keys, paths, sentences } = this.tables.get(ref);
    let prev = [];
    let i = 2;
    const n = msg.length;
    while (i < n) {
      const h = msg[i];
      if (Array.isArray(h)) {
        out.said = h.map((x) => said(x, sentences));
        i += 1;
        if (i < n && !(i + 1 === n && isMap(msg[i]))) throw new V2Error("only the extras map may follow a patch's said");
        continue;
      }
      if (isMap(h)) {
        if (i + 1 !== n) throw new V2Error("the extras map must end the patch");
        for (const k of Object.keys(h)) if (!PATCH_FIELDS.has(k)) out[k] = h[k];
        break;
      }
      if (!isInt(h)) throw new V2Error(`bad op header ${h}`);
      if (h < 0) { // a replace at an interned path
        if (-h > paths.length) throw new V2Error(`path index ${-1 - h} is not in the path table`);
        if (i + 1 >= n) throw new V2Error("an op's value runs past the end of the patch");
        const path = paths[-1 - h];
        out.ops.push({ op: "replace", path: path.map((p) => element(p, keys)), value: unpackValue(msg[i + 1], keys) });
        prev = path;
        i += 2;
        continue;
      }
      const kind = h % 4;
      const keep = Math.floor(h / 4) % 8;
      const fresh = Math.floor(h / 32);
      if (h === INTERN) {
        if (i + 1 >= n || typeof msg[i + 1] !== "string") throw new V2Error("an intern op is 3 and a string");
        keys.push(msg[i + 1]);
        i += 2;
        continue;
      }
      if (keep > prev.length || i + 1 + fresh > n) throw new V2Error("an op's path runs past the end of the patch");
      const path = prev.slice(0, keep).concat(msg.slice(i + 1, i + 1 + fresh));
      i += 1 + fresh;
      const op = { op: NAMES[kind], path: path.map((p) => element(p, keys)) };
      if (kind !== 1) {
        if (i >= n) throw new V2Error("an op's value runs past the end of the patch");
        op.value = unpackValue(msg[i], keys);
        i += 1;
      }
      if (kind === INTERN) paths.push(path);
      out.ops.push(op);
      prev = path;
    }
    return out;
  }
}

function said(x, sentences) {
  if (typeof x === "string") return x;
  if (Array.isArray(x) && x.length === 1 && typeof x[0] === "string") {
    sentences.push(x[0]);
    return x[0];
  }
  if (!isInt(x) || x < 0 || x >= sentences.length) throw new V2Error(`a sentence must be a string, [string] or a sentence index, not ${x}`);
  return sentences[x];
}

function element(p, keys) {
  if (!isInt(p)) throw new V2Error(`a path element must be an integer, not ${p}`);
  if (p >= 0) return p;
  if (-p > keys.length) throw new V2Error(`key index ${-1 - p} is not in the key table`);
  return keys[-1 - p];
}

function unpackValue(value, keys) {
  if (Array.isArray(value)) return value.map((v) => unpackValue(v, keys));
  if (isMap(value)) {
    const out = {};
    for (const k of Object.keys(value)) {
      const key = keys[Number(k)];
      if (key === undefined || !/^\d+$/.test(k)) throw new V2Error("a map key inside a value is not in the key table");
      Object.defineProperty(out, key, { value: unpackValue(value[k], keys), writable: true, enumerable: true, configurable: true });
    }
    return out;
  }
  return value;
}
