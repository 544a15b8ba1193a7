// A small typed client, checked by `tsc --noEmit` (tests/clients/test_js_package.py): it
// imports the package by its name, as an installed dependency would be, so that the package's
// `exports` and `types` are what is checked.
import { Rejected, Stale, TeahouseClient, type Command, type MatchView } from "teahouse-client";
import { decode, encode } from "teahouse-client/msgpack";
import { Expander } from "teahouse-client/v2";

async function play(url: string): Promise<number[] | undefined> {
  const client = new TeahouseClient(url, { encoding: "msgpack" });
  const games = await client.games();
  const created = await client.createMatch(games[0].id, 2, { turnSeconds: 30, absent: "random" });
  const seat = await client.takeSeat(created.match, { name: "Ada" });
  const conn = await client.connect({ at: true }).open();
  const game: MatchView = await conn.join(created.match, seat.token);
  game.onChange((reason, view) => console.log(reason, view.seq, view.presence?.spectators));
  while (!game.over) {
    await game.waitFor((g) => g.myTurn || g.over, 60_000);
    if (game.over) break;
    const moves = await conn.legalMoves(game.match);
    const label: string = moves.labels[0];
    const choice: Command = moves[0];
    try {
      const seq: number = await conn.move(game.match, choice, undefined, { at: game.seq });
      console.log(label, seq);
    } catch (err) {
      if (err instanceof Stale) console.log("moved on to", err.seq);
      else if (err instanceof Rejected) console.log(err.code, err.serverMessage);
      else throw err;
    }
  }
  conn.close();
  const bytes: Uint8Array = encode({ type: "ping", nonce: 1 });
  decode(bytes);
  new Expander().expand({ type: "view", match: created.match, ref: 1, seq: 0, doc: {} });
  return game.status.result?.winners;
}

void play("http://127.0.0.1:8000");
