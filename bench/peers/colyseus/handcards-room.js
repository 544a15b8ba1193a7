'use strict';
// The handcards room and server, for any Colyseus release line whose Server, Room, onMessage,
// StateView and broadcastPatch calls are 0.16's: each line's server.js passes its own install's
// packages (Node resolves a require from the requiring file's directory, so they cannot be
// required here) and its state.js. Options as server.js documents them.
module.exports = function serve({ Server, Room, WebSocketTransport, StateView, ArraySchema, Redis, Card, Player, HandState }) {
  const rules = require('../game/handcards');

  const args = process.argv.slice(2);
  const opt = (name, dflt) => (args.includes(name) ? args[args.indexOf(name) + 1] : dflt);
  const port = Number(opt('--port', 2567));
  const patchRate = Number(opt('--patch-rate', 0));
  const durable = opt('--durable', null);
  const redis = durable ? new Redis(durable, { enableAutoPipelining: false }) : null;

  const toCard = (c) => new Card().assign({ id: c.id, value: c.value, colour: c.colour });

  class HandcardsRoom extends Room {
    onCreate(options) {
      // Authoritative game state lives in a plain object (deck never leaves the server);
      // the schema state mirrors the public part plus the per-seat hands.
      this.game = rules.setup(Number(options.seed) || 1);
      const state = new HandState();
      for (let s = 0; s < rules.SEATS; s++) {
        const p = new Player();
        p.hand = new ArraySchema(); // schema() does not auto-create collections declared as {type:[...]}
        p.score = 0;
        this.game.hands[s].forEach((c) => p.hand.push(toCard(c)));
        state.players.push(p);
      }
      state.deckCount = this.game.deck.length;
      state.turn = 0;
      state.moves = 0;
      state.over = false;
      this.setState(state);
      this.patchRate = patchRate > 0 ? patchRate : null; // null = no timer; we patch per move
      this.seats = new Map(); // sessionId -> seat
      this.seatClients = [];  // seat -> Client

      this.log = `room:${this.roomId}`;
      this.queue = Promise.resolve(); // one append in flight per room keeps the log in move order
      this.onMessage('play', (client, cardId) => {
        if (!redis) return this.play(client, cardId);
        this.queue = this.queue.then(() => this.playDurably(client, cardId));
      });
    }

    async playDurably(client, cardId) {
      const seat = this.seats.get(client.sessionId);
      if (seat === undefined) return;
      const g = this.game; // the same checks as rules.play, before anything is written
      const err = g.over ? 'match over' : seat !== g.turn ? 'not your turn'
        : g.hands[seat].some((c) => c.id === String(cardId)) ? null : 'card not in hand';
      if (err) { client.send('error', err); return; }
      try {
        await redis.xadd(this.log, '*', 'seat', String(seat), 'card', String(cardId));
      } catch (e) {
        client.send('error', 'store_unavailable');
        return;
      }
      this.play(client, cardId);
    }

    play(client, cardId) {
        const seat = this.seats.get(client.sessionId);
        if (seat === undefined) return; // spectators cannot move
        const out = {};
        const err = rules.play(this.game, seat, String(cardId), out);
        if (err) { client.send('error', err); return; }
        const p = this.state.players[seat];
        p.hand.splice(out.index, 1);
        if (out.drawn) {
          const card = toCard(out.drawn);
          p.hand.push(card);
          // Schema 3 StateView: a child added later to a @view collection must be
          // added to the owner's view too, or that seat never sees it.
          const owner = this.seatClients[seat];
          if (owner && owner.view) owner.view.add(card);
        }
        p.score = this.game.scores[seat];
        this.state.pile.push(toCard(out.card));
        this.state.deckCount = this.game.deck.length;
        this.state.turn = this.game.turn;
        this.state.moves = this.game.moves;
        this.state.over = this.game.over;
        if (this.patchRate === null) this.broadcastPatch(); // immediate, no 50 ms tick
    }

    onJoin(client, options) {
      if (options && options.seat !== undefined && options.seat !== null) {
        const seat = Number(options.seat);
        if (!(seat >= 0 && seat < rules.SEATS) || [...this.seats.values()].includes(seat)) {
          throw new Error('seat unavailable');
        }
        this.seats.set(client.sessionId, seat);
        this.seatClients[seat] = client;
        client.view = new StateView();
        client.view.add(this.state.players[seat]); // reveals that seat's @view hand to this client only
      }
      // spectators: no view => only the shared (public) fields are encoded for them
    }

    onLeave(client) {
      const seat = this.seats.get(client.sessionId);
      if (seat !== undefined) this.seatClients[seat] = undefined;
      this.seats.delete(client.sessionId);
    }
  }

  const gameServer = new Server({ transport: new WebSocketTransport(), greet: false });
  gameServer.define('handcards', HandcardsRoom);
  gameServer.listen(port, '127.0.0.1').then(() => {
    console.log(`colyseus handcards server on 127.0.0.1:${port} patchRate=${patchRate > 0 ? patchRate : 'null (patch per move)'} pid=${process.pid}`);
  });
};
