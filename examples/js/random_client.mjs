// A complete Teahouse client: create a match, take every seat, play random legal moves to the
// end, print the result. Uses the JS SDK (clients/js; from npm, import "teahouse-client").
//
//   node examples/js/random_client.mjs [SERVER_URL] [GAME] [PLAYERS]
//   (Node 20 and 21: node --experimental-websocket ...; Node 22 and later have WebSocket)
import { Rejected, Stale, TeahouseClient } from "../../clients/js/teahouse.js";

const [url = "http://127.0.0.1:8000", gameId = "pixies", players = "2"] = process.argv.slice(2);
let x = 7; // a small seeded generator, so a run can be repeated
const random = (n) => { x = (x * 1103515245 + 12345) % 2147483648; return x % n; };

// Play one seat until the match is over; resolves to how many moves it made.
async function play(conn, game) {
  let made = 0;
  for (;;) {
    await game.waitFor((g) => g.over || g.myTurn, 60000);
    if (game.over) return made;
    const seq = game.seq;
    const moves = await conn.legalMoves(game.match);
    if (moves.length > 0) {
      try {
        await conn.move(game.match, moves[random(moves.length)]); // sends at = seq: never a stale move
        made += 1;
      } catch (err) {
        if (!(err instanceof Rejected || err instanceof Stale)) throw err; // another seat moved first
      }
    }
    await game.waitFor((g) => g.seq > seq || g.over, 60000);
  }
}

const client = new TeahouseClient(url);
const { match } = await client.createMatch(gameId, Number(players));
console.log(`match ${match}: ${gameId}, ${players} players; watch at ${url}/web/#/match/${match}`);
const seats = [];
for (let i = 0; i < Number(players); i++) seats.push(await client.takeSeat(match, { name: `random${i}` }));
const conns = await Promise.all(seats.map(() => client.connect().open()));
try {
  const games = [];
  for (const [i, seat] of seats.entries()) games.push(await conns[i].join(match, seat.token));
  const made = await Promise.all(games.map((g, i) => play(conns[i], g)));
  const summary = await client.match(match);
  const result = summary.result ?? {};
  console.log(`finished after ${summary.seq} commits, ${made.reduce((a, b) => a + b, 0)} moves by this client: ` +
    `winners ${JSON.stringify(result.winners)}, scores ${JSON.stringify(result.scores)}`);
  console.log("result " + JSON.stringify({ match, state: summary.state, result }));
} finally {
  for (const c of conns) c.close();
}
