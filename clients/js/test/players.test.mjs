// Against a real server, when TEAHOUSE_URL names one (tests/web/test_js_sdk.py starts one and
// runs this): a player made with its key, a seat taken as the player against a server bot, the
// start commit naming both, the finished match in the player's history and the leaderboard, and
// its rematch answered with the player's key.
import assert from "node:assert/strict";
import { test } from "node:test";

import { ServerError, TeahouseClient } from "../teahouse.js";
import { verifyChance } from "../verify.js";

const URL_ = process.env.TEAHOUSE_URL;
const skip = !URL_ ? "set TEAHOUSE_URL to a running server" : !globalThis.WebSocket ? "no global WebSocket (node --experimental-websocket)" : false;

test("a JS player plays a rated match against a bot and finds it in its history and the leaderboard", { skip, timeout: 60000 }, async () => {
  const client = new TeahouseClient(URL_, { encoding: "json" });
  const made = await client.createPlayer("Jo");
  assert.equal(made.name, "Jo");
  assert.match(made.key, /^[A-Za-z0-9_-]{43}$/);
  assert.deepEqual(await client.me(made.key), { player: made.player, name: "Jo", created: made.created });
  assert.deepEqual(await client.player(made.player), { player: made.player, name: "Jo", created: made.created });
  await assert.rejects(client.me("no-such-key"), (e) => e instanceof ServerError && e.code === "bad_player_key");

  const m = await client.createMatch("pixies", 2, { bots: [{ seat: 1, strength: 0 }] });
  const seat = await client.takeSeat(m.match, { playerKey: made.key });
  const conn = await client.connect().open();
  const game = await conn.join(m.match, seat.token);
  const waiting = await client.playerMatches(made.player, { playerKey: made.key });
  assert.equal(waiting.total, 1);
  assert.equal(waiting.matches[0].state, "live");
  for (;;) {
    await game.waitFor((g) => g.over || g.myTurn, 30000);
    if (game.over) break;
    const seq = game.seq;
    const moves = await conn.legalMoves(m.match);
    await conn.move(m.match, moves[0]);
    await game.waitFor((g) => g.seq > seq || g.over, 30000);
  }
  // `finished` follows the last patch (after the ratings fold): wait for it before closing
  await game.waitFor((g) => g.finished !== null, 10000);
  await conn.close();

  const summary = await client.match(m.match);
  assert.deepEqual(game.finished.ratings, summary.ratings); // a rated match's finished tells the changes
  const record = await client.record(m.match);
  const verdict = verifyChance(record);
  assert.equal(verdict.ok, true, verdict.reason);
  assert.equal(verdict.checked[0], 1); // the start's shuffle, re-run from the revealed seed
  assert.equal(JSON.parse(record.split("\n")[0]).match, m.match);
  const log = await client.log(m.match);
  assert.deepEqual(log.commits[0].players, [made.player, "bot:strength-0"]);
  const history = await client.playerMatches(made.player, { limit: 10 });
  assert.equal(history.matches[0].match, m.match);
  assert.equal(history.matches[0].state, "finished");
  assert.equal(history.matches[0].rating.player, made.player);
  assert.equal(history.matches[0].rating.before, 1500);
  const board = await client.leaderboard("pixies", { limit: 200 });
  const ids = board.players.map((p) => p.player);
  assert.ok(ids.includes(made.player) && ids.includes("bot:strength-0"));
  assert.deepEqual(board.players.map((p) => p.rank), board.players.map((_, i) => i + 1));

  // The rematch keeps the player (SPEC 2.18): the seat's token alone is refused, the key answers
  // (on another device, without the token), and the new seat is the player's, the bot's the bot's.
  await assert.rejects(client.rematch(m.match, seat.token), (e) => e instanceof ServerError && e.code === "player_required");
  const again = await client.rematch(m.match, null, { playerKey: made.key });
  assert.equal(again.seat, 1); // seat 0's player plays seat 1 of the rematch
  const next = await client.match(again.match);
  assert.deepEqual(next.rematch_of.seats.map((a) => [a.answer, a.player]), [["bot", "bot:strength-0"], ["accepted", made.player]]);
  assert.equal(next.state, "live");
  await assert.rejects(client.declineRematch(m.match, null, { playerKey: made.key }), (e) => e instanceof ServerError && e.code === "seat_taken");
});
