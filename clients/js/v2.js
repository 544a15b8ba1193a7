// Protocol v2's compact frames (protocol/SPEC.md §12), expanded back into v1-shaped messages
// so that the rest of the SDK handles both versions alike. A port of protocol/v2.py's Expander.
//
//   patch  [0, ref, seq, op..., said?, extras?]    ack  [1, ref, seq, id]
//   op header H: kind = H % 4 (add, remove, replace, intern), keep = H >> 2 & 7, fresh = H >> 5;
//   path elements: i >= 0 an array index, -1 - k the key table's key k; inside values every
//   map key is a key index (a number in msgpack, its decimal string in JSON). An array where a
//   header would stand is the patch's `said` (an integer in it is the key table's sentence k);
//   a map there holds its other fields; both end the ops.

export const PATCH = 0;
export const ACK = 1;
const NAMES = ["add", "remove", "replace"];
const INTERN = 3;
const PATCH_FIELDS = new Set(["type", "match", "seq", "ops"]);

export class V2Error extends Error {
  constructor(message) {
    super(message);
    this.name = "V2Error";
  }
}

const isInt = (v) => typeof v === "number" && Number.isInteger(v);
const isMap = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

/** One per socket: remembers each match's ref and key table from its `view`. */
export class Expander {
  constructor() {
    this.matches = new Map(); // ref -> match id
    this.tables = new Map(); // ref -> [key, ...]
  }

  /** A decoded frame in, a v1-shaped message out; throws V2Error on a frame it cannot read. */
  expand(msg) {
    if (!Array.isArray(msg)) {
      if (isMap(msg) && msg.type === "view" && isInt(msg.ref)) {
        this.matches.set(msg.ref, msg.match);
        this.tables.set(msg.ref, Array.isArray(msg.keys) ? [...msg.keys] : []);
      }
      return msg;
    }
    if (msg.length < 3 || (msg[0] !== PATCH && msg[0] !== ACK)) throw new V2Error("not a v2 frame");
    const ref = msg[1];
    const match = this.matches.get(ref);
    if (match === undefined) throw new V2Error(`v2 frame for unknown ref ${ref}`);
    if (msg[0] === ACK) return { type: "ack", match, seq: msg[2], id: msg[3] };
    const out = { type: "patch", match, seq: msg[2], ops: [] };
    const keys = this.tables.get(ref);
    let prev = [];
    let i = 3;
    const n = msg.length;
    while (i < n) {
      const h = msg[i];
      if (Array.isArray(h)) {
        out.said = h.map((x) => {
          if (typeof x === "string") return x;
          if (!isInt(x) || x < 0 || x >= keys.length) throw new V2Error(`a sentence must be a string or a key index, not ${x}`);
          return keys[x];
        });
        i += 1;
        if (i < n && !(i + 1 === n && isMap(msg[i]))) throw new V2Error("only the extras map may follow a patch's said");
        continue;
      }
      if (isMap(h)) {
        if (i + 1 !== n) throw new V2Error("the extras map must end the patch");
        for (const k of Object.keys(h)) if (!PATCH_FIELDS.has(k)) out[k] = h[k];
        break;
      }
      if (!isInt(h) || h < 0) throw new V2Error(`bad op header ${h}`);
      const kind = h % 4;
      const keep = Math.floor(h / 4) % 8;
      const fresh = Math.floor(h / 32);
      if (kind === INTERN) {
        if (h !== INTERN || i + 1 >= n || typeof msg[i + 1] !== "string") throw new V2Error("an intern op is 3 and a string");
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
      out.ops.push(op);
      prev = path;
    }
    return out;
  }
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
