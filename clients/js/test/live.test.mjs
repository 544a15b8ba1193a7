// Against a real server, when TEAHOUSE_URL names one (tests/web/test_js_sdk.py starts one and
// runs this): two seats play a 2-player Pixies match to the end with random legal moves while
// a spectator watches; every live document equals the server's replay at the last seq.
import assert from "node:assert/strict";
import { test } from "node:test";

import { Rejected, TeahouseClient, deepEqual } from "../teahouse.js";

const URL_ = process.env.TEAHOUSE_URL;
const skip = !URL_ ? "set TEAHOUSE_URL to a running server" : !globalThis.WebSocket ? "no global WebSocket (node --experimental-websocket)" : false;

async function playSeat(conn, game, pick) {
  for (;;) {
    await game.waitFor((g) => g.over || g.myTurn, 30000);
    if (game.over) return;
    const seq = game.seq;
    const moves = await conn.legalMoves(game.match);
    assert.equal(moves.labels.length, moves.length);
    assert.ok(moves.labels.every((l) => typeof l === "string" && l.length > 0));
    if (moves.length > 0) {
      try {
        await conn.move(game.match, moves[pick(moves.length)]);
      } catch (err) {
        if (!(err instanceof Rejected)) throw err;
      }
    }
    await game.waitFor((g) => g.seq > seq || g.over, 30000);
  }
}

for (const encoding of ["json", "msgpack"]) {
  test(`two JS seats and a JS spectator play Pixies to the end on a real server (${encoding})`, { skip, timeout: 60000 }, () => playMatch(encoding));
}

async function playMatch(encoding) {
  const client = new TeahouseClient(URL_, { encoding });
  const games = await client.games();
  assert.ok(games.some((g) => g.id === "pixies"));
  const m = await client.createMatch("pixies", 2, { options: { first_player: 0 } });
  const spectator = await client.connect().open();
  const watching = await spectator.spectate(m.match);
  assert.equal(watching.seq, 0);
  const seats = [await client.takeSeat(m.match, { name: "js0" }), await client.takeSeat(m.match, { name: "js1" })];
  const conns = [await client.connect().open(), await client.connect().open()];
  const views = await Promise.all(conns.map((c, i) => c.join(m.match, seats[i].token)));
  assert.deepEqual(views.map((v) => v.seat), [0, 1]);
  let x = 7;
  const pick = (n) => { x = (x * 1103515245 + 12345) % 2147483648; return x % n; };
  await Promise.all(conns.map((c, i) => playSeat(c, views[i], pick)));
  await watching.waitFor((g) => g.finished !== null, 10000);
  const summary = await client.match(m.match);
  assert.equal(summary.state, "finished");
  assert.equal(watching.seq, summary.seq);
  assert.ok(deepEqual(watching.finished.result, summary.result));
  assert.equal(watching.finished.seed, summary.seed);
  for (const [i, v] of views.entries()) {
    const rep = await client.replay(m.match, { seat: i });
    assert.ok(deepEqual(v.doc, { view: rep.view, status: rep.status }), `seat ${i} document`);
  }
  const rep = await client.replay(m.match);
  assert.ok(deepEqual(watching.doc, { view: rep.view, status: rep.status }));
  assert.equal(views[0].resyncs + views[1].resyncs + watching.resyncs, 0);
  // Every commit came with its sentences, the same for the spectator and the seats.
  assert.equal(watching.story.length, summary.seq);
  assert.ok(watching.story.at(-1).said.some((s) => s.startsWith("Game over")));
  assert.ok(deepEqual(views[0].story.at(-1), watching.story.at(-1)));
  assert.equal(spectator.welcome.encoding, encoding);
  const pieces = await client.reference(m.match);
  assert.equal(pieces.reference.cards.length, 70);
  for (const c of [...conns, spectator]) c.close();
}
