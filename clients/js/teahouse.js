// Teahouse JS SDK: the HTTP lobby calls and a WebSocket connection that keeps views current.
//
// A dependency-free ES module for browsers and Node >= 20 (Node 20 needs
// `--experimental-websocket`, or pass `{ WebSocket }` from any implementation; Node >= 22 has it).
// It mirrors the Python SDK (clients/python/teahouse_client) and follows protocol/SPEC.md: protocol v2 (compact
// patches, SPEC §12, expanded by ./v2.js; `{ version: 1 }` speaks v1), in JSON (the default) or
// msgpack (`{ encoding: "msgpack" }`, with the small codec in ./msgpack.js), one `view` per
// join, then one `patch` per commit, applied here as the Python SDK (teahouse_client) applies it (SPEC §6),
// with seq continuity and resync (SPEC §6.6).
//
//   import { TeahouseClient } from "./teahouse.js";
//   const client = new TeahouseClient("http://127.0.0.1:8000");
//   const m = await client.createMatch("pixies", 2);
//   const { token } = await client.takeSeat(m.match, { name: "Ada" });
//   const conn = await client.connect().open();
//   const game = await conn.join(m.match, token);
//   game.onChange(() => render(game.view, game.status));
//   if (game.myTurn) await conn.move(m.match, (await conn.legalMoves(m.match))[0]);

import { decode as unpack, encode as pack } from "./msgpack.js";
import { Expander, V2Error, unpackFrame } from "./v2.js";

export const PROTOCOL_VERSION = 2;
export const SUBPROTOCOLS = {
  1: { json: "teahouse.v1.json", msgpack: "teahouse.v1.msgpack" },
  2: { json: "teahouse.v2.json", msgpack: "teahouse.v2.msgpack" },
};
export const SUBPROTOCOL = SUBPROTOCOLS[PROTOCOL_VERSION];
export const CLIENT_NAME = "teahouse-js/0.2";

// -- errors ----------------------------------------------------------------------------------

/** The server answered with an error (`code` is stable, `message` is for people; `fields`
 * is the whole error message as it came). */
export class ServerError extends Error {
  constructor(code, message, fields = {}) {
    super(`${code}: ${message}`);
    this.name = "ServerError";
    this.code = code;
    this.serverMessage = message;
    this.fields = fields ?? {};
  }

  /** "Not now" rather than "no" (SPEC 7.1): send the same request (a move with the same id)
   * again in a moment. */
  get retryable() {
    return RETRYABLE.has(this.code);
  }
}

/** Error codes after which the same request may be sent again (busy, store_unavailable). */
export const RETRYABLE = new Set(["busy", "store_unavailable"]);

/** How many times takeSeat sends its request again (the server's store away, SPEC 2.7). */
export const SEAT_RETRIES = 5;

/** A seat token of the client's own (SPEC 2.7): 32 random bytes in base64url. */
function newSeatToken() {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(32));
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** The rules refused a move; the log did not change. `code` is the game's own code. */
export class Rejected extends ServerError {
  constructor(code, message, fields = {}) {
    super(code, message, fields);
    this.name = "Rejected";
  }
}

/** The move was decided on a document older than the match (its `at` was behind): nothing was
 * committed. `seq` is the match's seq now: look at the new position and decide again. */
export class Stale extends ServerError {
  constructor(code, message, fields = {}) {
    super(code, message, fields);
    this.name = "Stale";
    this.seq = Number.isInteger(this.fields.seq) ? this.fields.seq : null;
  }
}

/** The server refused a message for the connection's rate or byte budget (SPEC §7.1); the SDK
 * sends it again after `retryAfterMs` by itself, and throws this only when it keeps coming. */
export class RateLimited extends ServerError {
  constructor(code, message, retryAfterMs, fields = {}) {
    super(code, message, fields);
    this.name = "RateLimited";
    this.retryAfterMs = Number.isInteger(retryAfterMs) && retryAfterMs >= 0 ? Math.min(retryAfterMs, 60000) : 1000;
  }
}

/** The exception for an `error` message. */
export function serverError(e) {
  if (e.code === "rate_limited") return new RateLimited(e.code, e.message, e.retry_after_ms, e);
  if (e.code === "stale") return new Stale(e.code, e.message, e);
  return new ServerError(e.code, e.message, e);
}

// How often a refused message is sent again, and a list of legal moves that changed seq while
// it was paged (SPEC §3.6) is asked for again from its first page.
const RATE_LIMIT_RETRIES = 50;
const LEGAL_RESTARTS = 5;

/** The connection dropped before an answer came; call `conn.reconnect()` and go on. */
export class ConnectionLost extends Error {
  constructor(message = "the connection was lost") {
    super(message);
    this.name = "ConnectionLost";
  }
}

export class PatchError extends Error {
  constructor(message) {
    super(message);
    this.name = "PatchError";
  }
}

// -- patches (SPEC §6; a port of the Python SDK's teahouse_client/patch.py) ----------------------------------

/** `path` with a private match's spectator key as its `key` query parameter (SPEC 2.4). */
const withKey = (path, key) => (key === null || key === undefined ? path : `${path}?key=${encodeURIComponent(key)}`);

const hasOwn = (obj, key) => Object.prototype.hasOwnProperty.call(obj, key);
const isMap = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
const isIndex = (k) => typeof k === "number" && Number.isInteger(k);
const show = (v) => {
  try {
    return JSON.stringify(v);
  } catch {
    return String(v);
  }
};

/** A deep copy of plain data (maps, arrays, strings, numbers, booleans, null). */
export function clone(value) {
  if (Array.isArray(value)) return value.map(clone);
  if (isMap(value)) {
    const out = {};
    for (const key of Object.keys(value)) setKey(out, key, clone(value[key]));
    return out;
  }
  return value;
}

// `obj[key] = v` would change the prototype for the key "__proto__"; a document may hold any key.
function setKey(obj, key, value) {
  Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
}

/**
 * Apply `ops` to `doc` and return the new document; `doc` and the ops are left as they were.
 * Throws PatchError if any op is invalid (the patch is atomic: keep the old document then).
 * Copy-on-write: only the maps and arrays on the ops' paths are copied (once per patch); the
 * new document shares every other subtree with `doc`, so documents must be treated as frozen.
 */
export function applyPatch(doc, ops) {
  if (!Array.isArray(ops)) throw new PatchError(`ops must be an array, not ${show(ops)}`);
  const fresh = new Set(); // containers copied during this patch: edited in place from then on
  let out = doc;
  for (const op of ops) out = applyOne(out, op, fresh);
  return out;
}

function own(node, fresh) {
  if (fresh.has(node)) return node;
  let copy;
  if (Array.isArray(node)) copy = node.slice();
  else {
    copy = {};
    for (const key of Object.keys(node)) setKey(copy, key, node[key]);
  }
  fresh.add(copy);
  return copy;
}

function applyOne(doc, op, fresh) {
  if (!isMap(op) || !Array.isArray(op.path)) throw new PatchError(`malformed op ${show(op)}`);
  const kind = op.op;
  const path = op.path;
  if (kind !== "add" && kind !== "remove" && kind !== "replace") throw new PatchError(`unknown op ${show(kind)}`);
  if (kind !== "remove" && !hasOwn(op, "value")) throw new PatchError(`${kind} without a value at ${show(path)}`);
  // A copy (as small as the change): the caller may edit the result without touching the patch.
  const value = clone(op.value);
  if (path.length === 0) {
    if (kind !== "replace") throw new PatchError("only replace may address the whole document");
    return value;
  }
  if (!isMap(doc) && !Array.isArray(doc)) throw new PatchError(`path ${show(path)} does not exist`);
  const root = own(doc, fresh);
  let parent = root;
  for (const key of path.slice(0, -1)) {
    const child = step(parent, key, path);
    if (!isMap(child) && !Array.isArray(child)) {
      parent = child;
      continue; // the next step (or the op) reports the bad path
    }
    const copy = own(child, fresh);
    if (copy !== child) {
      if (Array.isArray(parent)) parent[key] = copy;
      else setKey(parent, key, copy);
    }
    parent = copy;
  }
  const last = path[path.length - 1];
  if (isMap(parent)) {
    if (typeof last !== "string") throw new PatchError(`map key must be a string at ${show(path)}`);
    if (kind === "remove") {
      if (!hasOwn(parent, last)) throw new PatchError(`remove of a missing key at ${show(path)}`);
      delete parent[last];
    } else if (kind === "replace" && !hasOwn(parent, last)) {
      throw new PatchError(`replace of a missing key at ${show(path)}`);
    } else {
      setKey(parent, last, value);
    }
  } else if (Array.isArray(parent)) {
    if (!isIndex(last)) throw new PatchError(`list index must be an integer at ${show(path)}`);
    const limit = parent.length + (kind === "add" ? 1 : 0);
    if (!(last >= 0 && last < limit)) throw new PatchError(`index ${last} out of range at ${show(path)}`);
    if (kind === "add") parent.splice(last, 0, value);
    else if (kind === "remove") parent.splice(last, 1);
    else parent[last] = value;
  } else {
    throw new PatchError(`cannot address inside a ${parent === null ? "null" : typeof parent} at ${show(path)}`);
  }
  return root;
}

function step(node, key, path) {
  if (isMap(node) && typeof key === "string" && hasOwn(node, key)) return node[key];
  if (Array.isArray(node) && isIndex(key) && key >= 0 && key < node.length) return node[key];
  throw new PatchError(`path ${show(path)} does not exist`);
}

/** Equality of plain data as the protocol sees it: key order ignored, `true` is not `1`. */
export function deepEqual(a, b) {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((v, i) => deepEqual(v, b[i]));
  }
  if (isMap(a)) {
    if (!isMap(b)) return false;
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => hasOwn(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}

// -- one match as this connection's audience sees it -------------------------------------------

/**
 * Read `doc`, `view`, `status`, `seq`, `presence`, `finished`, `deadline` (the turn clock),
 * `said` (the latest commit's sentences for people, SPEC §3.14), `saidKeys` (parallel to `said`:
 * each sentence's message key and parameters, {key, params}, or null; to say it in the reader's
 * language) and `story` ([{seq, said, saidKeys}] of
 * every commit seen live; for earlier ones read `client.replay(match).log`).
 * Subscribe with `onChange(fn)` (fn gets the reason: "view", "patch", "presence", "clock",
 * "finished", "lost", then this view, then on "patch" the commit's sentences), or await
 * `waitFor(predicate)`.
 */
export class MatchView {
  constructor(conn, match, seat, token) {
    this.conn = conn;
    this.match = match;
    this.seat = seat;
    this.token = token;
    this.key = null; // a private match's spectator key (SPEC 2.4), sent again on reconnect
    this.seq = -1;
    this.doc = {};
    this.presence = null;
    this.finished = null;
    this.deadline = null; // the turn clock: ms since the epoch when the seats to act run out, or null
    this.banks = null; // a Fischer clock's time left per seat (ms) at the clock's seq, or null
    this.said = []; // the latest commit's sentences (SPEC §3.14)
    this.saidKeys = []; // parallel to said: {key, params} of each sentence, or null (SPEC §3.14)
    this.story = []; // {seq, said, saidKeys} of each commit seen live on this connection
    this.resyncs = 0;
    this._resyncRef = null; // the ref of the resync asked and not answered; further gaps wait for it
    this._listeners = new Set();
  }

  get view() {
    return this.doc.view ?? {};
  }

  get status() {
    return this.doc.status ?? {};
  }

  get myTurn() {
    return this.seat !== null && this.seat !== undefined && (this.status.to_act ?? []).includes(this.seat);
  }

  get over() {
    return Boolean(this.status.finished);
  }

  /** Call `fn(reason, view)` after every change; returns a function that unsubscribes. */
  onChange(fn) {
    this._listeners.add(fn);
    return () => this._listeners.delete(fn);
  }

  /** Resolve once `predicate(this)` holds; reject with ConnectionLost if the socket drops
   * first (then `conn.reconnect()` and wait again), or with an Error after `timeout` ms. */
  waitFor(predicate, timeout = 30000) {
    if (predicate(this)) return Promise.resolve(this);
    return new Promise((resolve, reject) => {
      const done = (fn, arg) => {
        clearTimeout(timer);
        off();
        fn(arg);
      };
      const timer = setTimeout(() => done(reject, new Error("timed out waiting for the match")), timeout);
      const off = this.onChange((reason) => {
        if (predicate(this)) done(resolve, this);
        else if (reason === "lost") done(reject, new ConnectionLost());
      });
    });
  }

  _emit(reason, said = undefined) {
    for (const fn of [...this._listeners]) {
      try {
        fn(reason, this, said);
      } catch (err) {
        console.error("teahouse: a change listener failed", err);
      }
    }
  }

  _onView(msg) {
    this.doc = msg.doc;
    this.seq = msg.seq;
    if ("seat" in msg) this.seat = msg.seat;
    this._emit("view");
  }

  _onPatch(msg) {
    if (this.seq < 0 || msg.seq <= this.seq) return; // no document yet, or already have it
    if (msg.seq !== this.seq + 1) {
      this._resync();
      return;
    }
    try {
      this.doc = applyPatch(this.doc, msg.ops);
    } catch (err) {
      if (!(err instanceof PatchError)) throw err;
      this._resync(true);
      return;
    }
    this.seq = msg.seq;
    this.said = Array.isArray(msg.said) ? msg.said.map(String) : [];
    const keys = Array.isArray(msg.said_keys) ? msg.said_keys : [];
    this.saidKeys = this.said.map((_, i) => (keys[i] && typeof keys[i].key === "string" ? keys[i] : null));
    this.story.push({ seq: msg.seq, said: this.said, saidKeys: this.saidKeys });
    this._emit("patch", this.said);
  }

  _resync(force = false) {
    // One resync at a time: its answer (which ends with the presence carrying its ref, SPEC
    // 3.7) fills the gap; later gaps wait for it.
    if (!force && this._resyncRef !== null) return;
    this._resyncRef = this.conn._newRef();
    this.resyncs += 1;
    this.conn._send({ type: "resync", match: this.match, since: Math.max(this.seq, 0), ref: this._resyncRef });
  }
}

// -- the WebSocket session -------------------------------------------------------------------

/** A WebSocket session: `await conn.open()`, then join/spectate, move, legalMoves. */
export class Connection {
  // `said: false` asks the server to leave the commits' sentences out of patches (SPEC 4.1):
  // for a client that does not show them (a bot, a load generator); `MatchView.said` stays empty.
  // `saidKeys: true` asks for each sentence's message key and parameters too (SPEC 3.14), to say
  // them in the reader's language: `MatchView.saidKeys`.
  // `at: false` sends moves without `at` (the seq of the document a move was decided on), so
  // that a move is never refused as stale.
  constructor(wsUrl, { WebSocket: impl, encoding = "json", version = PROTOCOL_VERSION, clientName = CLIENT_NAME,
    timeout = 30000, said = true, saidKeys = false, at = true } = {}) {
    if (!(encoding in SUBPROTOCOL)) throw new Error(`unknown encoding ${encoding}; use json or msgpack`);
    if (!(version in SUBPROTOCOLS)) throw new Error(`unknown protocol version ${version}; use 1 or 2`);
    this.wsUrl = wsUrl;
    this.encoding = encoding;
    this.version = Number(version);
    this.subprotocol = SUBPROTOCOLS[version][encoding];
    this._expander = null; // v2: one per socket
    this.clientName = clientName;
    this.said = said;
    this.saidKeys = saidKeys;
    this.at = at;
    this.timeout = timeout;
    // Whether this server ends its answers with a presence carrying `reply` (known from the first
    // presence that does): from a server that never does, a plain presence ends them.
    this.replies = false;
    this._answers = new Map(); // match -> [{ref, needsView, resolve}] join/spectate answers not ended
    this.matches = new Map();
    this.welcome = null;
    this.errors = [];
    this.closed = null; // {code, reason} once the socket is gone
    this._impl = impl ?? globalThis.WebSocket;
    this._ws = null;
    this._waiting = new Map(); // key -> [{resolve, reject}] answered in order (SPEC §3.1)
    this._pending = new Map(); // move id -> move message not answered yet (resent on reconnect)
    this._ids = 0;
    this._prefix = Math.random().toString(36).slice(2, 8);
    this._onClose = new Set();
    if (!this._impl) {
      throw new Error("no WebSocket implementation: use Node >= 22, `node --experimental-websocket`, or pass { WebSocket }");
    }
  }

  /** True once the socket is gone; `reconnect()` to go on. */
  get lost() {
    return this._ws === null || this.closed !== null;
  }

  /** Open the socket and greet; resolves to this connection once `welcome` arrived. */
  async open() {
    const ws = new this._impl(this.wsUrl, [this.subprotocol]);
    this._expander = this.version === 2 ? new Expander() : null;
    ws.binaryType = "arraybuffer";
    this._ws = ws;
    this.closed = null;
    try {
      await new Promise((resolve, reject) => {
        ws.onopen = () => resolve();
        ws.onerror = () => reject(new ConnectionLost(`cannot connect to ${this.wsUrl}`));
        ws.onclose = (ev) => reject(new ConnectionLost(`closed while connecting (${ev.code} ${ev.reason})`));
      });
    } catch (err) {
      this.closed = { code: 1006, reason: err.message }; // lost: reconnect() may try again
      throw err;
    }
    if (ws.protocol !== this.subprotocol) {
      // The server speaks none of what we offered; it closes with 4406 and says why.
      const ev = await new Promise((resolve) => { ws.onclose = resolve; });
      this.closed = { code: ev.code, reason: ev.reason };
      throw new ConnectionLost(`the server refused the protocol (${ev.code} ${ev.reason})`);
    }
    ws.onmessage = (ev) => this._onFrame(ev.data);
    ws.onerror = () => {};
    ws.onclose = (ev) => this._onSocketClosed(ev);
    this.welcome = await this._request("welcome", { type: "hello", client: this.clientName, ...(this.said ? {} : { said: false }), ...(this.said && this.saidKeys ? { said_keys: true } : {}) }, ["hello"]);
    return this;
  }

  /** Close the socket; every match stops updating. */
  close() {
    if (this._ws && this.closed === null) this._ws.close(1000, "bye");
  }

  /** Call `fn({code, reason})` when the socket closes (e.g. 4408: too slow; reconnect). */
  onClose(fn) {
    this._onClose.add(fn);
    return () => this._onClose.delete(fn);
  }

  /** Open a new socket, join every match again from the seq it holds, and resend every
   * move that was not answered with the same id (SPEC §3.11). */
  async reconnect() {
    if (this._ws && this.closed === null) {
      const gone = new Promise((resolve) => this.onClose(resolve));
      this.close();
      await gone;
    }
    await this.open();
    for (const mv of this.matches.values()) {
      const msg = { type: mv.token != null ? "join" : "spectate", match: mv.match };
      if (mv.token != null) msg.token = mv.token;
      if (mv.key != null) msg.key = mv.key;
      if (mv.seq >= 0) msg.since = mv.seq;
      this._send(msg);
    }
    for (const msg of this._pending.values()) this._send(msg);
  }

  // -- matches -------------------------------------------------------------------------------

  /** Play the seat that `token` holds; resolves to its MatchView once the view arrived. */
  join(match, token) {
    return this._watch({ type: "join", match, token }, token);
  }

  /** Watch as a spectator; resolves to the MatchView once the view arrived. `key`: a private
   * match's spectator key (SPEC 2.4), sent again when the connection reopens. */
  spectate(match, key = null) {
    const msg = { type: "spectate", match };
    if (key != null) msg.key = key;
    return this._watch(msg, null);
  }

  async _watch(msg, token) {
    const previous = this.matches.get(msg.match);
    const mv = new MatchView(this, msg.match, null, token);
    mv.key = msg.key ?? null;
    this.matches.set(mv.match, mv);
    const ref = this._newRef();
    // The answer is a view, perhaps finished and clock, then the presence that ends it.
    const answer = { ref, needsView: true };
    if (!this._answers.has(mv.match)) this._answers.set(mv.match, []);
    const answers = this._answers.get(mv.match);
    answers.push(answer);
    try {
      // (errors name the request by its ref; a server that names requests by type, by type and match)
      await this._request(`answer:${ref}`, { ...msg, ref }, [ref, `${msg.type}:${mv.match}`, msg.type]);
    } catch (err) {
      if (previous) this.matches.set(previous.match, previous);
      else this.matches.delete(mv.match);
      throw err;
    } finally {
      answers.splice(answers.indexOf(answer), 1);
    }
    return mv;
  }

  /** Stop watching a match. */
  async leave(match) {
    await this._request(`left:${match}`, { type: "leave", match }, ["leave", `leave:${match}`]);
    this.matches.delete(match);
  }

  /** Send a move; resolves to its seq once committed (the document already shows it),
   * rejects with Rejected (the rules said no), Stale (the match moved on since the document
   * the move was decided on: decide again) or ServerError (a protocol fault). The move carries
   * `at`, the seq of the document held for the match (or `at` if given), unless the
   * connection was made with `{ at: false }`. */
  async move(match, command, id = undefined, { at = undefined } = {}) {
    const moveId = id ?? `${this._prefix}-${++this._ids}`;
    const msg = { type: "move", match, id: moveId, command };
    const mv = this.matches.get(match);
    const seq = at ?? (mv && mv.seq >= 0 ? mv.seq : undefined);
    if (this.at && seq !== undefined) msg.at = seq;
    this._pending.set(moveId, msg);
    let reply;
    try {
      reply = await this._request(`move:${moveId}`, msg, [moveId]);
    } finally {
      if (!this.lost) this._pending.delete(moveId);
    }
    if (reply.type === "reject") throw new Rejected(reply.code, reply.message, reply);
    return reply.seq;
  }

  /** The commands this connection's seat may send now (empty when it is not its turn). The
   * array also carries `labels`: a short English label per command, parallel to it (SPEC §3.14;
   * the commands' types when the server sends none). */
  async legalMoves(match) {
    // A long list comes in pages (SPEC §3.6): fetch them all, all from one seq.
    const labelled = (reply) => Array.isArray(reply.labels) && reply.labels.length === reply.moves.length
      ? reply.labels.map(String) : reply.moves.map((m) => String(m.type ?? "move"));
    const page = (n) => this._request(`legal_moves:${match}`, n ? { type: "legal", match, page: n } : { type: "legal", match }, ["legal"]);
    for (let attempt = 0; attempt < LEGAL_RESTARTS; attempt++) {
      const first = await page(0);
      const moves = [...first.moves];
      const labels = labelled(first);
      let sameSeq = true;
      for (let n = 1; n < (first.pages ?? 1); n++) {
        const reply = await page(n);
        if (reply.seq !== first.seq) { sameSeq = false; break; } // the match moved on: start again
        moves.push(...reply.moves);
        labels.push(...labelled(reply));
      }
      if (sameSeq) return Object.assign(moves, { labels });
    }
    throw new Error(`the legal moves of ${match} kept changing while they were paged`);
  }

  /** Round trip in milliseconds. */
  async ping() {
    const nonce = ++this._ids;
    const t0 = Date.now();
    await this._request(`pong:${nonce}`, { type: "ping", nonce }, ["ping"]);
    return Date.now() - t0;
  }

  // -- plumbing ------------------------------------------------------------------------------

  _newRef() {
    return `${this._prefix}-${++this._ids}`;
  }

  _send(msg) {
    if (this.lost) throw new ConnectionLost();
    this._ws.send(this.encoding === "msgpack" ? pack(msg) : JSON.stringify(msg));
  }

  _expect(key) {
    let entry;
    const promise = new Promise((resolve, reject) => { entry = { resolve, reject }; });
    if (!this._waiting.has(key)) this._waiting.set(key, []);
    this._waiting.get(key).push(entry);
    return { promise, entry };
  }

  _forget(key, entry) {
    const list = this._waiting.get(key);
    if (!list) return;
    const i = list.indexOf(entry);
    if (i >= 0) list.splice(i, 1);
    if (list.length === 0) this._waiting.delete(key);
  }

  _resolve(key, msg) {
    const list = this._waiting.get(key);
    if (!list || list.length === 0) return false;
    const entry = list.shift();
    if (list.length === 0) this._waiting.delete(key);
    entry.resolve(msg);
    return true;
  }

  /** Send `msg` and wait for its answer (resolved at `key`); an `error` whose ref is one of
   * `errKeys` fails it. A `rate_limited` refusal is sent again after the delay the server
   * gives (the refused message had no effect). */
  async _request(key, msg, errKeys) {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this._requestOnce(key, msg, errKeys);
      } catch (err) {
        if (!(err instanceof RateLimited) || attempt >= RATE_LIMIT_RETRIES) throw err;
        await new Promise((resolve) => setTimeout(resolve, err.retryAfterMs));
      }
    }
  }

  async _requestOnce(key, msg, errKeys) {
    const answer = this._expect(key);
    let failed;
    const failure = new Promise((resolve) => { failed = resolve; });
    const failures = errKeys.map((k) => {
      const f = this._expect(`error:${k}`);
      f.promise.then(failed, () => {}); // (a lost socket rejects `answer` too)
      return [`error:${k}`, f.entry];
    });
    let timer;
    const timeout = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer to ${msg.type}`)), this.timeout);
    });
    try {
      this._send(msg);
      return await Promise.race([
        answer.promise,
        failure.then((e) => {
          throw serverError(e);
        }),
        timeout,
      ]);
    } finally {
      clearTimeout(timer);
      this._forget(key, answer.entry);
      for (const [k, entry] of failures) this._forget(k, entry);
    }
  }

  _onFrame(data) {
    let msg;
    try {
      if (this.encoding === "msgpack") msg = this.version === 2 ? unpackFrame(data) : unpack(data);
      else msg = JSON.parse(typeof data === "string" ? data : new TextDecoder().decode(data));
    } catch {
      return; // the server sends valid frames; nothing to do with junk
    }
    if (this._expander !== null) {
      try {
        msg = this._expander.expand(msg);
      } catch (err) {
        if (!(err instanceof V2Error)) throw err;
        for (const mv of this.matches.values()) mv._resync(true); // a frame we cannot read: full views again
        return;
      }
    }
    this._dispatch(msg);
  }

  _dispatch(msg) {
    const kind = msg.type;
    const mv = this.matches.get(msg.match ?? "");
    if (kind === "welcome") this._resolve("welcome", msg);
    else if (kind === "view" && mv) {
      mv._onView(msg);
      const waiting = (this._answers.get(mv.match) ?? []).find((a) => a.needsView);
      if (waiting) waiting.needsView = false;
    } else if (kind === "patch" && mv) mv._onPatch(msg);
    else if (kind === "ack" || kind === "reject") {
      this._pending.delete(msg.id);
      this._resolve(`move:${msg.id}`, msg);
    }
    else if (kind === "legal_moves") this._resolve(`legal_moves:${msg.match}`, msg);
    else if (kind === "pong") this._resolve(`pong:${msg.nonce}`, msg);
    else if (kind === "left") this._resolve(`left:${msg.match}`, msg);
    else if (kind === "presence" && mv) {
      mv.presence = msg;
      this._answered(mv, msg);
      mv._emit("presence");
    } else if (kind === "clock" && mv) {
      mv.deadline = msg.deadline;
      mv.banks = msg.banks ?? null;
      mv._emit("clock");
    } else if (kind === "finished" && mv) {
      mv.finished = msg;
      mv._emit("finished");
    } else if (kind === "error") {
      this.errors.push(msg);
      if (msg.code === "rate_limited" && mv && (msg.ref === "resync" || msg.ref === mv._resyncRef)) {
        // nobody awaits a resync: ask again after the delay given
        setTimeout(() => { if (!this.lost) mv._resync(true); }, new RateLimited("", "", msg.retry_after_ms).retryAfterMs);
      }
      // (to the request of that ref and match, else of that ref)
      if (!this._resolve(`error:${msg.ref}:${msg.match}`, msg)) this._resolve(`error:${msg.ref}`, msg);
    }
  }

  // A presence ends an answer to this connection's join, spectate or resync when it carries
  // `reply` (SPEC 3.1); from a server that never sends `reply`, any presence after the answer's
  // view is taken as its end.
  _answered(mv, msg) {
    const answers = this._answers.get(mv.match) ?? [];
    if ("reply" in msg) {
      this.replies = true;
      if (msg.reply === "resync" && msg.ref === mv._resyncRef) mv._resyncRef = null;
      const a = answers.find((x) => x.ref === msg.ref);
      if (a) this._resolve(`answer:${a.ref}`, msg);
    } else if (!this.replies) {
      mv._resyncRef = null;
      const a = answers[0];
      if (a && !a.needsView) this._resolve(`answer:${a.ref}`, msg);
    }
  }

  _onSocketClosed(ev) {
    this.closed = { code: ev.code, reason: ev.reason };
    for (const list of this._waiting.values()) {
      for (const entry of list) entry.reject(new ConnectionLost());
    }
    this._waiting.clear();
    for (const mv of this.matches.values()) {
      mv._resyncRef = null;
      mv._emit("lost");
    }
    for (const fn of [...this._onClose]) fn(this.closed);
  }
}

// -- the HTTP lobby ----------------------------------------------------------------------------

/** HTTP lobby calls, and `connect()` for a WebSocket session. */
// A secret travels in a header, never in a URL (URLs end up in logs and histories).
function bearer(secret) {
  return secret ? { Authorization: `Bearer ${secret}` } : {};
}

export class TeahouseClient {
  /** `url`: the server's base URL; in a browser it defaults to the page's origin. */
  constructor(url = undefined, { WebSocket: impl, fetch: fetchImpl, encoding = "json", version = PROTOCOL_VERSION } = {}) {
    const base = url ?? globalThis.location?.origin;
    if (!base) throw new Error("TeahouseClient needs the server's URL");
    this.url = base.replace(/\/+$/, "");
    this._wsImpl = impl;
    this.encoding = encoding;
    this.version = version;
    this._fetch = fetchImpl ?? globalThis.fetch.bind(globalThis);
  }

  get wsUrl() {
    return this.url.replace(/^http:/, "ws:").replace(/^https:/, "wss:") + "/ws";
  }

  /** A new, unopened Connection: `await client.connect().open()`. */
  connect(options = {}) {
    return new Connection(this.wsUrl, { WebSocket: this._wsImpl, encoding: this.encoding, version: this.version, ...options });
  }

  async _call(method, path, body = undefined, headers = {}) {
    const init = { method, headers: { ...headers } };
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    const r = await this._fetch(this.url + path, init);
    let data;
    try {
      data = await r.json();
    } catch {
      throw new ServerError("http_" + r.status, `the server answered ${r.status} without JSON`);
    }
    if (r.status >= 400) {
      const e = data?.error ?? {};
      throw new ServerError(e.code ?? `http_${r.status}`, e.message ?? `HTTP ${r.status}`);
    }
    return data;
  }

  /** Every game of the server: [{id, name, min_players, max_players, rules_version}]. */
  games() {
    return this._call("GET", "/api/games");
  }

  /** Create a match. With `turnSeconds`, a seat that does not move in time has its first
   * legal move played for it (SPEC §3.10). */
  createMatch(game, players, { options = {}, listed = true, turnSeconds = null, absent = "bot", bots = null,
    spectators = "public", spectatorDelay = null, timeControl = null } = {}) {
    // bots: [{seat, strength}], seats the server's bots play (SPEC 2.4); absent: who plays a
    // seat whose time ran out ("bot", "random" or "first"); spectators and spectatorDelay
    // ({commits: N} or {seconds: T}): who may watch, and how far behind (SPEC 2.4)
    const body = { game, players, options, listed, turn_seconds: turnSeconds };
    if (absent !== "bot") body.absent = absent; // (the server's default)
    if (bots && bots.length) body.bots = bots;
    if (spectators !== "public") body.spectators = spectators;
    if (spectatorDelay) body.spectator_delay = spectatorDelay;
    // timeControl: {type: "per_move", seconds} | {type: "correspondence", days} | {type: "fischer", bank_seconds, increment_seconds}
    if (timeControl) body.time_control = timeControl;
    return this._call("POST", "/api/matches", body);
  }

  /** Take a seat (the lowest free one when `seat` is null): {match, seat, token}. Keep the
   * token: it is the only way to play the seat and is never shown again. The token is chosen
   * here (or is `token`), so the request is sent again, up to SEAT_RETRIES times a second
   * apart, when the server cannot reach its store or the request fails on the way: a first try
   * that took a seat is answered that seat (SPEC 2.7). With `playerKey` (a player key, or an
   * app's signed token) the seat is that player's: the log records it, and it counts in the
   * player's history and ratings (SPEC 2.7, 2.15). `invite`: an invite link's secret, which
   * opens its own seat. */
  async takeSeat(match, { seat = null, name = null, token = null, playerKey = null, invite = null } = {}) {
    token ??= newSeatToken();
    const path = `/api/matches/${encodeURIComponent(match)}/seats`;
    const body = playerKey ? { seat, name, player_key: playerKey } : { seat, name };
    if (invite != null) body.invite = invite;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this._call("POST", path, body, { Authorization: `Bearer ${token}` });
      } catch (err) {
        const retry = err instanceof ServerError ? err.code === "store_unavailable" : err instanceof TypeError;
        if (!retry || attempt >= SEAT_RETRIES) throw err;
      }
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }

  /** Become a player: {player, name, created, key}. Keep `key` (a secret shown once): pass it as
   * `playerKey` to take seats as this player and to read its private matches (SPEC 2.15). */
  createPlayer(name) {
    return this._call("POST", "/api/players", { name });
  }

  /** The player a key (or an app's token) stands for: {player, name, created}. */
  me(playerKey) {
    return this._call("GET", "/api/players/me", undefined, bearer(playerKey));
  }

  /** A player's id, display name and creation time. */
  player(player) {
    return this._call("GET", `/api/players/${encodeURIComponent(player)}`);
  }

  /** One page of a player's matches, those waiting on the player first (SPEC 2.15):
   * {player, total, offset, matches}. With the player's own key, its private matches too. */
  playerMatches(player, { offset = 0, limit = 50, playerKey = null } = {}) {
    const q = new URLSearchParams({ offset: String(offset), limit: String(limit) });
    return this._call("GET", `/api/players/${encodeURIComponent(player)}/matches?${q}`, undefined, bearer(playerKey));
  }

  /** Register a webhook for the player `playerKey` (or an app's token) proves (SPEC 2.19):
   * {id, url, events, created, secret}. Keep `secret`, shown this once, and check every delivery
   * with `verifyWebhook(secret, headers, body)`. `events`: any of your_turn, clock_low, finished
   * (null: all). */
  createWebhook(playerKey, url, { events = null } = {}) {
    const body = events ? { url, events } : { url };
    return this._call("POST", "/api/players/me/webhooks", body, bearer(playerKey));
  }

  /** The player's webhooks, without their secrets. */
  async webhooks(playerKey) {
    return (await this._call("GET", "/api/players/me/webhooks", undefined, bearer(playerKey))).webhooks;
  }

  /** Delete one of the player's webhooks; its deliveries not yet made are not made. */
  async deleteWebhook(playerKey, webhook) {
    const r = await this._fetch(`${this.url}/api/players/me/webhooks/${encodeURIComponent(webhook)}`,
      { method: "DELETE", headers: bearer(playerKey) });
    if (r.status === 204) return;
    const e = (await r.json().catch(() => null))?.error ?? {};
    throw new ServerError(e.code ?? `http_${r.status}`, e.message ?? `HTTP ${r.status}`);
  }

  /** One page of the player's delivery log, newest first: {player, total, offset, deliveries}. */
  webhookDeliveries(playerKey, { offset = 0, limit = 50 } = {}) {
    const q = new URLSearchParams({ offset: String(offset), limit: String(limit) });
    return this._call("GET", `/api/players/me/webhooks/deliveries?${q}`, undefined, bearer(playerKey));
  }

  /** A game's ratings, best first (SPEC 2.16): {game, total, offset, players}. */
  leaderboard(game, { offset = 0, limit = 50 } = {}) {
    const q = new URLSearchParams({ offset: String(offset), limit: String(limit) });
    return this._call("GET", `/api/games/${encodeURIComponent(game)}/leaderboard?${q}`);
  }

  /** Ask for the rematch of a finished match, or accept it, as the seat `token` holds there
   * (SPEC §2.18): {match, seat, token} of the new match. Keep the new token. A seat a player held
   * is kept for that player: pass its `playerKey` (its key, or its app's token), with or without
   * the seat's `token`; the new seat is the player's again. */
  rematch(match, token, { playerKey = null } = {}) {
    return this._call("POST", `/api/matches/${encodeURIComponent(match)}/rematch`, playerKey ? { player_key: playerKey } : {}, bearer(token));
  }

  /** Decline the rematch (a player's seat: with its `playerKey`, as for rematch): that seat there
   * opens to anyone. Resolves to the rematch's summary. */
  declineRematch(match, token, { playerKey = null } = {}) {
    return this._call("POST", `/api/matches/${encodeURIComponent(match)}/rematch/decline`, playerKey ? { player_key: playerKey } : {}, bearer(token));
  }

  /** A match's summary. `key`: a private match's spectator key (SPEC 2.4), for whoever holds no
   * seat of it (also on log, analysis and replay). */
  match(match, { key = null } = {}) {
    return this._call("GET", withKey(`/api/matches/${encodeURIComponent(match)}`, key));
  }

  /** Listed matches; `state` filters: "open", "live" or "finished". */
  matches(state = null) {
    return this._call("GET", "/api/matches" + (state ? `?state=${encodeURIComponent(state)}` : ""));
  }

  /** The public facts a client needs to draw a game (boards, card faces, tiles):
   * {game, players, reference}. */
  gameReference(game, players = null) {
    const q = players === null ? "" : `?players=${encodeURIComponent(players)}`;
    return this._call("GET", `/api/games/${encodeURIComponent(game)}/reference${q}`);
  }

  /** The reference data of a match's game, for its options and seat count. */
  reference(match) {
    return this._call("GET", `/api/matches/${encodeURIComponent(match)}/reference`);
  }

  /** The raw log of a finished match, with its revealed seed. */
  log(match, { key = null } = {}) {
    return this._call("GET", withKey(`/api/matches/${encodeURIComponent(match)}/log`, key));
  }

  /** A finished match's game record (SPEC 2.13): its JSON Lines text, as the file a third party
   * checks without the server (`verifyChance` of "teahouse-client/verify", or `teahouse verify`). */
  async record(match) {
    const r = await this._fetch(`${this.url}/api/matches/${encodeURIComponent(match)}/record`, { method: "GET" });
    if (r.status >= 400) {
      let e = {};
      try { e = (await r.json())?.error ?? {}; } catch { /* a body that is not JSON: the status says it */ }
      throw new ServerError(e.code ?? `http_${r.status}`, e.message ?? `HTTP ${r.status}`);
    }
    return r.text();
  }

  /** A finished match's analysis (SPEC 2.14): every seat's chance of winning at every commit and
   * the key moments; while it is being made, `{state: "queued", retry_after_s}` (ask again then).
   * A server that does not analyse answers the error `no_analysis`. */
  analysis(match, { key = null } = {}) {
    return this._call("GET", withKey(`/api/matches/${encodeURIComponent(match)}/analysis`, key));
  }

  /** The document audience `seat` (null: spectators) had right after commit `seq`. */
  replay(match, { seq = null, seat = null, token = null, key = null } = {}) {
    const q = new URLSearchParams();
    if (seq !== null) q.set("seq", String(seq));
    if (seat !== null) q.set("seat", String(seat));
    if (key !== null) q.set("key", key);
    const qs = q.toString();
    // The token goes in a header, never the URL (URLs end up in logs and histories).
    const headers = token !== null ? { Authorization: `Bearer ${token}` } : {};
    return this._call("GET", `/api/matches/${encodeURIComponent(match)}/replay${qs ? "?" + qs : ""}`, undefined, headers);
  }

  /** A new match from commit `seq` of a finished one. The fork deals again what no seat could
   * see (SPEC 11); `exact` keeps the origin's shuffles instead (an open-hand fork). It is
   * unlisted unless `listed`. With `seat` you sit down at once (the answer's `token` plays it:
   * keep it and join with it); with `botStrength` too, every other seat is a server bot. */
  fork(match, seq, { exact = false, listed = false, seat = null, name = null, botStrength = null } = {}) {
    const body = { seq };
    if (exact) body.exact = true;
    if (listed) body.listed = true;
    if (seat !== null) body.seat = seat;
    if (name !== null) body.name = name;
    if (botStrength !== null) body.bot_strength = botStrength;
    return this._call("POST", `/api/matches/${encodeURIComponent(match)}/fork`, body);
  }
}

// --- Receiving webhooks (SPEC 2.19) ------------------------------------------------------------

/** Thrown by verifyWebhook: a missing header, a bad signature, or a timestamp too far from now. */
export class WebhookSignatureError extends Error {
  constructor(message) {
    super(message);
    this.name = "WebhookSignatureError";
  }
}

function header(headers, name) {
  const value = typeof headers?.get === "function" ? headers.get(name)
    : Object.entries(headers ?? {}).find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
  if (value == null) throw new WebhookSignatureError(`the ${name} header is missing`);
  return String(value);
}

/** The hex HMAC-SHA256 of `${timestamp}.${body}`, keyed with the secret's UTF-8 bytes (Web Crypto). */
export async function webhookSignature(secret, timestamp, body) {
  const enc = new TextEncoder();
  const bytes = typeof body === "string" ? enc.encode(body) : new Uint8Array(body);
  const prefix = enc.encode(`${timestamp}.`);
  const message = new Uint8Array(prefix.length + bytes.length);
  message.set(prefix);
  message.set(bytes, prefix.length);
  const key = await globalThis.crypto.subtle.importKey("raw", enc.encode(secret), { name: "HMAC", hash: "SHA-256" },
    false, ["sign"]);
  const mac = new Uint8Array(await globalThis.crypto.subtle.sign("HMAC", key, message));
  return Array.from(mac, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** A delivery's payload if its `Teahouse-Signature` signs `body` (the raw bytes or text, before
 * any JSON parsing) under `secret` and its `Teahouse-Timestamp` is within `toleranceS` of now;
 * else it throws WebhookSignatureError. `headers`: a Headers object or a plain map. Deliveries
 * come at least once: dedupe by the payload's `id`. */
export async function verifyWebhook(secret, headers, body, { toleranceS = 300, now = Date.now() / 1000 } = {}) {
  const stamp = header(headers, "Teahouse-Timestamp");
  if (!/^[0-9]+$/.test(stamp)) throw new WebhookSignatureError("Teahouse-Timestamp is not a Unix time in seconds");
  if (Math.abs(now - Number(stamp)) > toleranceS) {
    throw new WebhookSignatureError("the delivery's timestamp is too far from now (a replay?)");
  }
  const want = await webhookSignature(secret, stamp, body);
  const sent = header(headers, "Teahouse-Signature").split(",").map((p) => p.trim())
    .filter((p) => p.startsWith("v1=")).map((p) => p.slice(3));
  // (compared in full whatever differs first: no early exit to time)
  const same = (a, b) => a.length === b.length && [...a].reduce((acc, c, i) => acc | (c.charCodeAt(0) ^ b.charCodeAt(i)), 0) === 0;
  if (!sent.some((s) => same(s, want))) throw new WebhookSignatureError("the signature does not match this secret and body");
  const text = typeof body === "string" ? body : new TextDecoder().decode(body);
  const payload = JSON.parse(text);
  if (payload === null || typeof payload !== "object" || Array.isArray(payload)) {
    throw new WebhookSignatureError("the body is not a JSON object");
  }
  return payload;
}
