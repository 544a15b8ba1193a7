// The JS SDK against a real server (tests/clients/test_decisions_live.py runs it with the
// server's URL and prints what it saw as one JSON line): a move's `at`, and answers that end with
// the presence carrying `reply` and the request's `ref`.
import { Stale, TeahouseClient } from "../../clients/js/teahouse.js";

const [url, encoding] = process.argv.slice(2);
const client = new TeahouseClient(url, { encoding });
const out = {};

const m = await client.createMatch("pixies", 2);
const seats = [await client.takeSeat(m.match), await client.takeSeat(m.match)];
const conns = [await client.connect().open(), await client.connect().open()];
const sent = conns.map(() => []);
conns.forEach((c, i) => {
  const send = c._send.bind(c);
  c._send = (msg) => { sent[i].push(msg); send(msg); }; // what went on the wire, as sent
});
const views = [await conns[0].join(m.match, seats[0].token), await conns[1].join(m.match, seats[1].token)];
out.join = { presence: views[0].presence, ref: sent[0].find((x) => x.type === "join").ref };
await Promise.all(views.map((v) => v.waitFor((g) => g.seq >= 1 && (g.status.to_act ?? []).length > 0, 10000)));
const i = views.findIndex((v) => v.myTurn);
const [conn, game] = [conns[i], views[i]];
const before = game.seq;
const [first] = await conn.legalMoves(m.match);
out.before = before;
out.acked = await conn.move(m.match, first, "js-first");
out.sentAt = sent[i].find((x) => x.type === "move").at;
const [next] = await conn.legalMoves(m.match).then((l) => (l.length ? l : [first]));
try {
  await conn.move(m.match, next, "js-stale", { at: before });
  out.stale = null;
} catch (err) {
  out.stale = err instanceof Stale ? { code: err.code, seq: err.seq, ref: err.fields.ref } : { other: String(err) };
}
out.retried = await conn.move(m.match, first, "js-first", { at: before });
out.seqAfter = (await client.match(m.match)).seq;
const watcher = await client.connect().open();
const wsent = [];
const wsend = watcher._send.bind(watcher);
watcher._send = (msg) => { wsent.push(msg); wsend(msg); };
const watching = await watcher.spectate(m.match);
out.spectate = { presence: watching.presence, ref: wsent.find((x) => x.type === "spectate").ref };
watching._resync(true);
const resyncRef = wsent.at(-1).ref;
await watching.waitFor((g) => g._resyncRef === null, 10000);
out.resync = { presence: watching.presence, ref: resyncRef };
out.replies = watcher.replies;
for (const c of [...conns, watcher]) c.close();
console.log(JSON.stringify(out));
