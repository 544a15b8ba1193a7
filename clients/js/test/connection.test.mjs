// The Connection and MatchView state machines against a scripted fake socket (no server):
// greeting, requests answered in order, seq continuity and resync (SPEC §6.6), moves.
import assert from "node:assert/strict";
import { test } from "node:test";

import { Connection, ConnectionLost, Rejected, ServerError, Stale, TeahouseClient } from "../teahouse.js";

/** A WebSocket stand-in: `script(msg, ws)` answers what the client sends. */
function fakeSocket(script, { protocol = "teahouse.v2.json" } = {}) {
  const sockets = [];
  class FakeWebSocket {
    constructor(url, protocols) {
      this.url = url;
      this.offered = protocols;
      this.protocol = protocol;
      this.sent = [];
      sockets.push(this);
      setTimeout(() => this.onopen?.(), 0);
    }
    send(data) {
      const msg = JSON.parse(data);
      this.sent.push(msg);
      setTimeout(() => script(msg, this), 0);
    }
    push(msg) {
      this.onmessage?.({ data: JSON.stringify(msg) });
    }
    close(code = 1000, reason = "") {
      setTimeout(() => this.onclose?.({ code, reason }), 0);
    }
  }
  return { FakeWebSocket, sockets };
}

const DOC = { view: { n: 0, list: [] }, status: { phase: "play", to_act: [0], finished: false, result: null } };

function server(extra = () => false) {
  return (msg, ws) => {
    if (extra(msg, ws)) return;
    if (msg.type === "hello") ws.push({ type: "welcome", protocol: 1, encoding: "json", session: "s", server: "t", max_frame: 65536, games: [] });
    else if (msg.type === "join") {
      ws.push({ type: "view", match: msg.match, seq: 3, seat: 0, doc: DOC });
      ws.push({ type: "presence", match: msg.match, seats: [true, false], spectators: 0 });
    } else if (msg.type === "spectate") ws.push({ type: "error", code: "unknown_match", message: "no such match", ref: "spectate" });
  };
}

const patch = (seq, n) => ({ type: "patch", match: "M", seq, ops: [{ op: "replace", path: ["view", "n"], value: n }] });
const tick = () => new Promise((r) => setTimeout(r, 5));

test("hello, welcome, join: the view and presence arrive", async () => {
  const { FakeWebSocket, sockets } = fakeSocket(server());
  const conn = await new Connection("ws://x/ws", { WebSocket: FakeWebSocket }).open();
  assert.deepEqual(sockets[0].offered, ["teahouse.v2.json"]);
  assert.equal(sockets[0].sent[0].type, "hello");
  assert.equal(conn.welcome.protocol, 1);
  const game = await conn.join("M", "tok");
  assert.equal(game.seq, 3);
  assert.equal(game.seat, 0);
  assert.ok(game.myTurn);
  await game.waitFor((g) => g.presence !== null, 1000);
  assert.deepEqual(game.presence.seats, [true, false]);
});

test("an error answer rejects the request with its code", async () => {
  const { FakeWebSocket } = fakeSocket(server());
  const conn = await new Connection("ws://x/ws", { WebSocket: FakeWebSocket }).open();
  await assert.rejects(conn.spectate("nope"), (e) => e instanceof ServerError && e.code === "unknown_match");
  assert.equal(conn.matches.size, 0);
});

test("patches apply in seq order; duplicates are ignored", async () => {
  const { FakeWebSocket, sockets } = fakeSocket(server());
  const conn = await new Connection("ws://x/ws", { WebSocket: FakeWebSocket }).open();
  const game = await conn.join("M", "tok");
  const reasons = [];
  game.onChange((r) => reasons.push(r));
  sockets[0].push(patch(4, 4));
  sockets[0].push(patch(4, 99)); // a duplicate
  sockets[0].push(patch(3, 98)); // older still
  assert.equal(game.seq, 4);
  assert.equal(game.view.n, 4);
  assert.deepEqual(reasons, ["patch"]);
  assert.equal(game.resyncs, 0);
});

test("a gap sends one resync from the held seq, and the resync's patches fill it", async () => {
  const { FakeWebSocket, sockets } = fakeSocket(server());
  const conn = await new Connection("ws://x/ws", { WebSocket: FakeWebSocket }).open();
  const game = await conn.join("M", "tok");
  const ws = sockets[0];
  ws.push(patch(5, 5)); // 4 is missing
  ws.push(patch(6, 6)); // still missing: no second resync
  await tick();
  const resyncs = ws.sent.filter((m) => m.type === "resync");
  assert.equal(resyncs.length, 1);
  const { ref, ...asked } = resyncs[0];
  assert.deepEqual(asked, { type: "resync", match: "M", since: 3 });
  assert.ok(typeof ref === "string" && ref.length > 0 && ref.length <= 64, "a resync carries a ref");
  assert.equal(game.seq, 3);
  ws.push(patch(4, 4));
  ws.push(patch(5, 5));
  ws.push(patch(6, 6));
  assert.equal(game.seq, 6);
  assert.equal(game.view.n, 6);
  assert.equal(game.resyncs, 1);
});

test("a patch that does not apply keeps the document and resyncs; a view replaces it", async () => {
  const { FakeWebSocket, sockets } = fakeSocket(server());
  const conn = await new Connection("ws://x/ws", { WebSocket: FakeWebSocket }).open();
  const game = await conn.join("M", "tok");
  const ws = sockets[0];
  ws.push({ type: "patch", match: "M", seq: 4, ops: [{ op: "replace", path: ["view", "n"], value: 1 }, { op: "remove", path: ["nope"] }] });
  await tick();
  assert.equal(game.seq, 3);
  assert.equal(game.view.n, 0, "the patch is atomic");
  const { ref, ...asked } = ws.sent.at(-1);
  assert.deepEqual(asked, { type: "resync", match: "M", since: 3 });
  assert.equal(typeof ref, "string");
  ws.push({ type: "view", match: "M", seq: 9, seat: 0, doc: { view: { n: 9 }, status: DOC.status } });
  assert.equal(game.seq, 9);
  assert.equal(game.view.n, 9);
});

test("move: ack resolves to the seq, reject to Rejected, an error to ServerError", async () => {
  const { FakeWebSocket } = fakeSocket(server((msg, ws) => {
    if (msg.type !== "move") return false;
    if (msg.command.type === "good") {
      ws.push(patch(4, 4));
      ws.push({ type: "ack", match: "M", id: msg.id, seq: 4 });
    } else if (msg.command.type === "bad") {
      ws.push({ type: "reject", match: "M", id: msg.id, code: "not_your_turn", message: "wait" });
    } else {
      ws.push({ type: "error", code: "busy", message: "again", ref: msg.id });
    }
    return true;
  }));
  const conn = await new Connection("ws://x/ws", { WebSocket: FakeWebSocket }).open();
  const game = await conn.join("M", "tok");
  assert.equal(await conn.move("M", { type: "good" }), 4);
  assert.equal(game.seq, 4, "the patch arrives before the ack");
  await assert.rejects(conn.move("M", { type: "bad" }), (e) => e instanceof Rejected && e.code === "not_your_turn");
  await assert.rejects(conn.move("M", { type: "busy" }, "my-id"), (e) => e instanceof ServerError && !(e instanceof Rejected) && e.code === "busy");
  assert.equal(conn._pending.size, 0);
});

test("the turn clock: a clock message sets the deadline and tells the listeners", async () => {
  const { FakeWebSocket, sockets } = fakeSocket(server());
  const conn = await new Connection("ws://x/ws", { WebSocket: FakeWebSocket }).open();
  const game = await conn.join("M", "tok");
  assert.equal(game.deadline, null);
  const reasons = [];
  game.onChange((r) => reasons.push(r));
  sockets[0].push({ type: "clock", match: "M", seq: 3, deadline: 1780000700000 });
  assert.equal(game.deadline, 1780000700000);
  sockets[0].push({ type: "clock", match: "M", seq: 4, deadline: null });
  assert.equal(game.deadline, null);
  assert.deepEqual(reasons, ["clock", "clock"]);
});

test("requests of one kind are answered in the order sent", async () => {
  let n = 0;
  const { FakeWebSocket } = fakeSocket(server((msg, ws) => {
    if (msg.type !== "legal") return false;
    n += 1;
    ws.push({ type: "legal_moves", match: "M", seq: 3, moves: [{ type: "m", n }] });
    return true;
  }));
  const conn = await new Connection("ws://x/ws", { WebSocket: FakeWebSocket }).open();
  await conn.join("M", "tok");
  const [a, b] = await Promise.all([conn.legalMoves("M"), conn.legalMoves("M")]);
  assert.deepEqual([a[0].n, b[0].n], [1, 2]);
});

test("a lost socket rejects what waits, and reconnect joins again from the held seq", async () => {
  let silent = false;
  const { FakeWebSocket, sockets } = fakeSocket(server((msg) => silent && msg.type === "move"));
  const conn = await new Connection("ws://x/ws", { WebSocket: FakeWebSocket }).open();
  const game = await conn.join("M", "tok");
  silent = true;
  const moving = conn.move("M", { type: "x" }, "m-1");
  const waiting = game.waitFor(() => false, 5000);
  await tick();
  sockets[0].onclose({ code: 4408, reason: "slow consumer" });
  await assert.rejects(moving, ConnectionLost);
  await assert.rejects(waiting, ConnectionLost);
  assert.ok(conn.lost);
  assert.equal(conn.closed.code, 4408);
  await conn.reconnect();
  await tick();
  const sent = sockets[1].sent;
  assert.deepEqual(sent[0].type, "hello");
  assert.deepEqual(sent[1], { type: "join", match: "M", token: "tok", since: 3 });
  assert.deepEqual(sent[2], { type: "move", match: "M", id: "m-1", command: { type: "x" }, at: 3 },
    "the unanswered move is resent with its id, and the seq it was decided on");
});

test("a server that speaks none of our protocols is reported with its reason", async () => {
  class Refusing {
    constructor() {
      this.protocol = "";
      setTimeout(() => this.onopen?.(), 0);
      setTimeout(() => this.onclose?.({ code: 4406, reason: "unsupported protocol" }), 2);
    }
  }
  await assert.rejects(new Connection("ws://x/ws", { WebSocket: Refusing }).open(), /4406 unsupported protocol/);
});

test("the HTTP client builds the right requests and raises the server's error codes", async () => {
  const calls = [];
  const fakeFetch = async (url, init) => {
    calls.push([init.method, url, init.body ?? null]);
    if (url.endsWith("/seats")) return { status: 409, json: async () => ({ error: { code: "match_full", message: "full" } }) };
    return { status: 200, json: async () => ({ ok: true }) };
  };
  const client = new TeahouseClient("http://h:1/", { fetch: fakeFetch, WebSocket: class {} });
  assert.equal(client.wsUrl, "ws://h:1/ws");
  await client.createMatch("pixies", 2, { options: { first_player: 0 } });
  await client.replay("M", { seq: 3, seat: 1 });
  await client.matches("open");
  await assert.rejects(client.takeSeat("M", { name: "Ada" }), (e) => e.code === "match_full");
  assert.deepEqual(calls, [
    ["POST", "http://h:1/api/matches", JSON.stringify({ game: "pixies", players: 2, options: { first_player: 0 }, listed: true, turn_seconds: null })],
    ["GET", "http://h:1/api/matches/M/replay?seq=3&seat=1", null],
    ["GET", "http://h:1/api/matches?state=open", null],
    ["POST", "http://h:1/api/matches/M/seats", JSON.stringify({ seat: null, name: "Ada" })],
  ]);
});

test("takeSeat chooses its token and sends the same request again while the store is away (SPEC 2.7)", async () => {
  const sent = [];
  const fakeFetch = async (url, init) => {
    sent.push(init.headers.Authorization);
    if (sent.length === 1) return { status: 503, json: async () => ({ error: { code: "store_unavailable", message: "away" } }) };
    return { status: 201, json: async () => ({ match: "M", seat: 1, token: init.headers.Authorization.slice(7) }) };
  };
  const client = new TeahouseClient("http://h:1/", { fetch: fakeFetch, WebSocket: class {} });
  const grant = await client.takeSeat("M", { seat: 1 });
  assert.equal(sent.length, 2);
  assert.match(sent[0], /^Bearer [A-Za-z0-9_-]{43}$/);
  assert.equal(sent[1], sent[0], "the retry is the same request, with the same token");
  assert.equal(`Bearer ${grant.token}`, sent[0]);
});

test("a failed reconnect can be tried again", async () => {
  let refuse = false;
  const { FakeWebSocket, sockets } = fakeSocket(server());
  class Flaky extends FakeWebSocket {
    constructor(url, protocols) {
      super(url, protocols);
      if (refuse) {
        this.onopen = null;
        setTimeout(() => this.onerror?.({}), 1);
        this.send = () => {};
        Object.defineProperty(this, "onopen", { set() {}, get() { return null; } });
      }
    }
  }
  const conn = await new Connection("ws://x/ws", { WebSocket: Flaky }).open();
  await conn.join("M", "tok");
  sockets[0].onclose({ code: 1006, reason: "" });
  refuse = true;
  await assert.rejects(conn.reconnect(), ConnectionLost);
  assert.ok(conn.lost);
  refuse = false;
  await conn.reconnect();
  await tick();
  assert.ok(!conn.lost);
  assert.deepEqual(sockets.at(-1).sent.map((m) => m.type), ["hello", "join"]);
});

test("a seat token travels in the Authorization header, never in the URL", async () => {
  const calls = [];
  const fakeFetch = async (url, init) => {
    calls.push([url, init.headers]);
    return { status: 200, json: async () => ({ ok: true }) };
  };
  const client = new TeahouseClient("http://h:1", { fetch: fakeFetch, WebSocket: class {} });
  await client.replay("M", { seat: 1, token: "tok-abc" });
  assert.deepEqual(calls, [["http://h:1/api/matches/M/replay?seat=1", { Authorization: "Bearer tok-abc" }]]);
});

test("a patch's sentences reach the change listener and the view's story", async () => {
  const { FakeWebSocket, sockets } = fakeSocket(server());
  const conn = await new Connection("ws://x/ws", { WebSocket: FakeWebSocket }).open();
  const game = await conn.join("M", "tok");
  const heard = [];
  game.onChange((reason, view, said) => heard.push([reason, said]));
  sockets[0].push({ ...patch(4, 4), said: ["Ada takes Blue 4 onto cell 4."] });
  sockets[0].push(patch(5, 5)); // a server that sends no words: an empty list, not undefined
  assert.deepEqual(heard, [["patch", ["Ada takes Blue 4 onto cell 4."]], ["patch", []]]);
  assert.deepEqual(game.said, []);
  assert.deepEqual(game.story, [{ seq: 4, said: ["Ada takes Blue 4 onto cell 4."] }, { seq: 5, said: [] }]);
});

test("legalMoves carries a label per move, or the move types when the server sends none", async () => {
  let withLabels = true;
  const { FakeWebSocket } = fakeSocket(server((msg, ws) => {
    if (msg.type !== "legal") return false;
    const moves = [{ type: "take_card", card: "B07" }, { type: "pass" }];
    ws.push({ type: "legal_moves", match: "M", seq: 3, moves, ...(withLabels ? { labels: ["Take Blue 4", "Pass"] } : {}) });
    return true;
  }));
  const conn = await new Connection("ws://x/ws", { WebSocket: FakeWebSocket }).open();
  await conn.join("M", "tok");
  const moves = await conn.legalMoves("M");
  assert.equal(moves[0].card, "B07");
  assert.deepEqual(moves.labels, ["Take Blue 4", "Pass"]);
  withLabels = false;
  assert.deepEqual((await conn.legalMoves("M")).labels, ["take_card", "pass"]);
});

test("legalMoves fetches every page of a long list, and starts again when the seq moves on", async () => {
  let seq = 3;
  const asked = [];
  const { FakeWebSocket } = fakeSocket(server((msg, ws) => {
    if (msg.type !== "legal") return false;
    const page = msg.page ?? 0;
    asked.push(page);
    if (asked.length === 2) seq = 4; // a commit between the first two pages
    const moves = [{ type: "m", n: page * 2 }, { type: "m", n: page * 2 + 1 }].slice(0, page === 2 ? 1 : 2);
    ws.push({ type: "legal_moves", match: "M", seq, moves, labels: moves.map((m) => `m${m.n}`), page, pages: 3, total: 5 });
    return true;
  }));
  const conn = await new Connection("ws://x/ws", { WebSocket: FakeWebSocket }).open();
  await conn.join("M", "tok");
  const moves = await conn.legalMoves("M");
  assert.deepEqual(asked, [0, 1, 0, 1, 2]);
  assert.deepEqual(moves.map((m) => m.n), [0, 1, 2, 3, 4]);
  assert.deepEqual(moves.labels, ["m0", "m1", "m2", "m3", "m4"]);
});

test("a move refused with rate_limited is sent again, same id, after retry_after_ms", async () => {
  const sentAt = [];
  const { FakeWebSocket } = fakeSocket(server((msg, ws) => {
    if (msg.type !== "move") return false;
    sentAt.push([msg.id, Date.now()]);
    if (sentAt.length === 1) ws.push({ type: "error", code: "rate_limited", message: "slow down", ref: msg.id, match: "M", retry_after_ms: 60 });
    else ws.push({ type: "ack", match: "M", id: msg.id, seq: 4 });
    return true;
  }));
  const conn = await new Connection("ws://x/ws", { WebSocket: FakeWebSocket }).open();
  await conn.join("M", "tok");
  assert.equal(await conn.move("M", { type: "pass" }, "a-1"), 4);
  assert.deepEqual(sentAt.map(([id]) => id), ["a-1", "a-1"]);
  assert.ok(sentAt[1][1] - sentAt[0][1] >= 55);
});

// decisions shared with the server: moves carry `at`; answers end with the presence that
// carries `reply` and the request's `ref`.

test("a move carries at, the seq of the document held; { at: false } leaves it out", async () => {
  const acking = (msg, ws) => {
    if (msg.type !== "move") return false;
    ws.push({ type: "ack", match: "M", id: msg.id, seq: 4 });
    return true;
  };
  const one = fakeSocket(server(acking));
  const conn = await new Connection("ws://x/ws", { WebSocket: one.FakeWebSocket }).open();
  await conn.join("M", "tok");
  await conn.move("M", { type: "x" }, "a-1");
  await conn.move("M", { type: "x" }, "a-2", { at: 2 });
  const moves = one.sockets[0].sent.filter((m) => m.type === "move");
  assert.deepEqual(moves.map((m) => m.at), [3, 2]);
  const two = fakeSocket(server(acking));
  const plain = await new Connection("ws://x/ws", { WebSocket: two.FakeWebSocket, at: false }).open();
  await plain.join("M", "tok");
  await plain.move("M", { type: "x" }, "b-1");
  assert.ok(!("at" in two.sockets[0].sent.find((m) => m.type === "move")));
});

test("a stale move rejects with Stale and the match's current seq", async () => {
  const { FakeWebSocket } = fakeSocket(server((msg, ws) => {
    if (msg.type !== "move") return false;
    ws.push({ type: "error", code: "stale", message: "the match is at seq 5", ref: msg.id, match: "M", seq: 5 });
    return true;
  }));
  const conn = await new Connection("ws://x/ws", { WebSocket: FakeWebSocket }).open();
  await conn.join("M", "tok");
  await assert.rejects(conn.move("M", { type: "x" }), (e) => e instanceof Stale && e.code === "stale" && e.seq === 5);
});

test("join ends at the presence with reply and its ref, not at a broadcast presence before it", async () => {
  const { FakeWebSocket, sockets } = fakeSocket((msg, ws) => {
    if (msg.type === "hello") ws.push({ type: "welcome", protocol: 2, encoding: "json", session: "s", server: "t", max_frame: 65536, games: [] });
    else if (msg.type === "join") {
      ws.push({ type: "view", match: msg.match, seq: 3, seat: 0, doc: DOC });
      if (msg.match === "B") {
        ws.push({ type: "presence", match: msg.match, seats: [false, true], spectators: 0 }); // a broadcast
        setTimeout(() => {
          ws.push({ type: "clock", match: msg.match, seq: 3, deadline: 1780000700000 });
          ws.push({ type: "presence", match: msg.match, seats: [true, true], spectators: 0, reply: "join", ref: msg.ref });
        }, 20);
      } else ws.push({ type: "presence", match: msg.match, seats: [true, false], spectators: 0, reply: "join", ref: msg.ref });
    }
  });
  const conn = await new Connection("ws://x/ws", { WebSocket: FakeWebSocket }).open();
  const a = await conn.join("A", "tok");
  assert.equal(a.presence.ref, sockets[0].sent.find((m) => m.type === "join").ref);
  assert.ok(conn.replies);
  const b = await conn.join("B", "tok");
  assert.equal(b.presence.reply, "join");
  assert.deepEqual(b.presence.seats, [true, true]);
  assert.equal(b.deadline, 1780000700000, "the answer's clock came before its end");
  const refs = sockets[0].sent.filter((m) => m.type === "join").map((m) => m.ref);
  assert.equal(new Set(refs).size, 2, "each join has its own ref");
});
