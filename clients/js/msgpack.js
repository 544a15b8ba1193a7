// A small MessagePack codec for protocol v1's plain data (SPEC §1.2, §1.4): maps with string
// keys, arrays, strings, integers, booleans and null. No dependencies and no build step.
//
// encode() picks the smallest format for every value, as the server's encoder does, so a
// message encodes to the same bytes as in protocol/vectors/. decode() reads every format a
// conforming encoder may produce (floats and bin too); ext types and trailing bytes are errors.

export class MsgpackError extends Error {
  constructor(message) {
    super(message);
    this.name = "MsgpackError";
  }
}

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder("utf-8", { fatal: true });

/** One value to MessagePack bytes. */
export function encode(value) {
  const w = new Writer();
  w.value(value, 0);
  return w.bytes();
}

class Writer {
  constructor() {
    this.buf = new Uint8Array(256);
    this.view = new DataView(this.buf.buffer);
    this.len = 0;
  }

  bytes() {
    return this.buf.slice(0, this.len);
  }

  room(n) {
    if (this.len + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.len + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }

  u8(b) {
    this.room(1);
    this.buf[this.len++] = b;
  }

  head(b, n, size) {
    // a format byte followed by an unsigned big-endian length or value of `size` bytes
    this.room(1 + size);
    this.buf[this.len++] = b;
    if (size === 1) this.view.setUint8(this.len, n);
    else if (size === 2) this.view.setUint16(this.len, n);
    else if (size === 4) this.view.setUint32(this.len, n);
    this.len += size;
  }

  raw(bytes) {
    this.room(bytes.length);
    this.buf.set(bytes, this.len);
    this.len += bytes.length;
  }

  value(v, depth) {
    if (depth > 512) throw new MsgpackError("value nested too deeply");
    if (v === null || v === undefined) return this.u8(0xc0);
    if (v === false) return this.u8(0xc2);
    if (v === true) return this.u8(0xc3);
    if (typeof v === "number") return Number.isInteger(v) ? this.int(v) : this.float(v);
    if (typeof v === "bigint") return this.bigint(v);
    if (typeof v === "string") return this.str(v);
    if (v instanceof Uint8Array) return this.bin(v);
    if (Array.isArray(v)) {
      const n = v.length;
      if (n < 16) this.u8(0x90 | n);
      else if (n < 0x10000) this.head(0xdc, n, 2);
      else this.head(0xdd, n, 4);
      for (const item of v) this.value(item, depth + 1);
      return;
    }
    if (typeof v === "object") {
      const keys = Object.keys(v).filter((k) => v[k] !== undefined);
      const n = keys.length;
      if (n < 16) this.u8(0x80 | n);
      else if (n < 0x10000) this.head(0xde, n, 2);
      else this.head(0xdf, n, 4);
      for (const k of keys) {
        this.str(k);
        this.value(v[k], depth + 1);
      }
      return;
    }
    throw new MsgpackError(`cannot encode a ${typeof v}`);
  }

  int(n) {
    if (!Number.isSafeInteger(n)) return this.bigint(BigInt(n));
    if (n >= 0) {
      if (n < 0x80) return this.u8(n);
      if (n < 0x100) return this.head(0xcc, n, 1);
      if (n < 0x10000) return this.head(0xcd, n, 2);
      if (n < 0x100000000) return this.head(0xce, n, 4);
      return this.bigint(BigInt(n));
    }
    if (n >= -32) return this.u8(n & 0xff);
    this.room(9);
    if (n >= -0x80) {
      this.buf[this.len++] = 0xd0;
      this.view.setInt8(this.len, n);
      this.len += 1;
    } else if (n >= -0x8000) {
      this.buf[this.len++] = 0xd1;
      this.view.setInt16(this.len, n);
      this.len += 2;
    } else if (n >= -0x80000000) {
      this.buf[this.len++] = 0xd2;
      this.view.setInt32(this.len, n);
      this.len += 4;
    } else {
      this.bigint(BigInt(n));
    }
  }

  bigint(n) {
    this.room(9);
    if (n >= 0n && n < 0x100000000n) return this.int(Number(n));
    if (n < 0n && n >= -0x80000000n) return this.int(Number(n));
    if (n >= 0n && n < 1n << 64n) {
      this.buf[this.len++] = 0xcf;
      this.view.setBigUint64(this.len, n);
    } else if (n < 0n && n >= -(1n << 63n)) {
      this.buf[this.len++] = 0xd3;
      this.view.setBigInt64(this.len, n);
    } else {
      throw new MsgpackError("integer out of the 64-bit range");
    }
    this.len += 8;
  }

  float(x) {
    this.room(9);
    this.buf[this.len++] = 0xcb;
    this.view.setFloat64(this.len, x);
    this.len += 8;
  }

  str(s) {
    const bytes = utf8.encode(s);
    const n = bytes.length;
    if (n < 32) this.u8(0xa0 | n);
    else if (n < 0x100) this.head(0xd9, n, 1);
    else if (n < 0x10000) this.head(0xda, n, 2);
    else this.head(0xdb, n, 4);
    this.raw(bytes);
  }

  bin(bytes) {
    const n = bytes.length;
    if (n < 0x100) this.head(0xc4, n, 1);
    else if (n < 0x10000) this.head(0xc5, n, 2);
    else this.head(0xc6, n, 4);
    this.raw(bytes);
  }
}

/** MessagePack bytes (Uint8Array or ArrayBuffer) to one value; throws MsgpackError. */
export function decode(input) {
  const bytes = input instanceof Uint8Array ? input : new Uint8Array(input);
  const r = new Reader(bytes);
  const value = r.value(0);
  if (r.pos !== bytes.length) throw new MsgpackError(`${bytes.length - r.pos} bytes after the value`);
  return value;
}

/** MessagePack bytes holding values one after another (a msgpack stream) to the list of them:
 * a protocol v2 compact frame (SPEC 12.1). Throws MsgpackError. */
export function decodeAll(input) {
  const bytes = input instanceof Uint8Array ? input : new Uint8Array(input);
  const r = new Reader(bytes);
  const out = [];
  while (r.pos < bytes.length) out.push(r.value(0));
  return out;
}

class Reader {
  constructor(bytes) {
    this.bytes = bytes;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.pos = 0;
  }

  need(n) {
    if (this.pos + n > this.bytes.length) throw new MsgpackError("truncated data");
    const at = this.pos;
    this.pos += n;
    return at;
  }

  value(depth) {
    if (depth > 512) throw new MsgpackError("value nested too deeply");
    const b = this.bytes[this.need(1)];
    if (b < 0x80) return b;
    if (b >= 0xe0) return b - 0x100;
    if (b >= 0xa0 && b < 0xc0) return this.str(b & 0x1f);
    if (b >= 0x90 && b < 0xa0) return this.array(b & 0x0f, depth);
    if (b >= 0x80 && b < 0x90) return this.map(b & 0x0f, depth);
    const v = this.view;
    switch (b) {
      case 0xc0: return null;
      case 0xc2: return false;
      case 0xc3: return true;
      case 0xc4: return this.bin(v.getUint8(this.need(1)));
      case 0xc5: return this.bin(v.getUint16(this.need(2)));
      case 0xc6: return this.bin(v.getUint32(this.need(4)));
      case 0xca: return v.getFloat32(this.need(4));
      case 0xcb: return v.getFloat64(this.need(8));
      case 0xcc: return v.getUint8(this.need(1));
      case 0xcd: return v.getUint16(this.need(2));
      case 0xce: return v.getUint32(this.need(4));
      case 0xcf: return small(v.getBigUint64(this.need(8)));
      case 0xd0: return v.getInt8(this.need(1));
      case 0xd1: return v.getInt16(this.need(2));
      case 0xd2: return v.getInt32(this.need(4));
      case 0xd3: return small(v.getBigInt64(this.need(8)));
      case 0xd9: return this.str(v.getUint8(this.need(1)));
      case 0xda: return this.str(v.getUint16(this.need(2)));
      case 0xdb: return this.str(v.getUint32(this.need(4)));
      case 0xdc: return this.array(v.getUint16(this.need(2)), depth);
      case 0xdd: return this.array(v.getUint32(this.need(4)), depth);
      case 0xde: return this.map(v.getUint16(this.need(2)), depth);
      case 0xdf: return this.map(v.getUint32(this.need(4)), depth);
      default:
        throw new MsgpackError(`unsupported format 0x${b.toString(16)} (ext types are not part of protocol v1)`);
    }
  }

  str(n) {
    const at = this.need(n);
    try {
      return fromUtf8.decode(this.bytes.subarray(at, at + n));
    } catch {
      throw new MsgpackError("a string is not valid UTF-8");
    }
  }

  bin(n) {
    const at = this.need(n);
    return this.bytes.slice(at, at + n);
  }

  array(n, depth) {
    const out = [];
    for (let i = 0; i < n; i++) out.push(this.value(depth + 1));
    return out;
  }

  map(n, depth) {
    const out = {};
    for (let i = 0; i < n; i++) {
      let key = this.value(depth + 1);
      // Protocol v2 names keys inside values by their key index: a non-negative integer, read
      // as its decimal string (as JSON writes it), which v2.js looks up.
      if (Number.isInteger(key) && key >= 0) key = String(key);
      else if (typeof key !== "string") throw new MsgpackError("map keys must be strings (or v2 key indices)");
      // defineProperty: a key "__proto__" is data, not the prototype
      Object.defineProperty(out, key, { value: this.value(depth + 1), writable: true, enumerable: true, configurable: true });
    }
    return out;
  }
}

function small(n) {
  // integers beyond 2^53 stay exact as BigInt
  return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n;
}
