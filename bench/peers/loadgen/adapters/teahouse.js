'use strict';
// Teahouse adapter: protocol v2 in msgpack (subprotocol `teahouse.v2.msgpack`, compact patches,
// SPEC §12) or v1 (`TEAHOUSE_PROTOCOL=1`), see the Teahouse checkout's protocol/SPEC.md.
//
// Environment:
//   TEAHOUSE_PROTOCOL 2 (default) | 1
//   TEAHOUSE_HOME    a Teahouse checkout (required): the SDK is its clients/js/teahouse.js.
//   TEAHOUSE_CLIENT  sdk (default) | lean
//     sdk   the project's own JS SDK (an ES module, imported dynamically) over the `ws`
//           package from colyseus/node_modules (Node 20 has no global WebSocket without a
//           flag). It holds each document and applies every patch as the SDK always does
//           (atomic apply = a deep copy of the document per patch), and decodes with the
//           SDK's own msgpack.js. This is the "official client", as the peers' adapters use theirs.
//     lean  a minimal protocol v1 client in this file: `ws`, msgpackr (from colyseus'
//           node_modules) to decode, the SDK's msgpack.js to encode, patch ops applied in
//           place. Same frames, same server work; it only shows how much of the generator's
//           time (and so of the measured latency) the SDK itself costs.
//
// Match set-up: POST /api/matches {game: "handcards", players: 4, options: {seed}} (the server
// then deals exactly the JS reference's deck for that seed: mulberry32 port in the game
// package), then the 4 seats over HTTP one by one (the last one commits `start`, seq 1), then
// one WebSocket per client: hello -> welcome, join with the seat's token (or spectate) ->
// view (+ presence). A move is `move {id, command: {type: "play", card}}`; the server sends
// every connection a `patch`, and the acting seat also an `ack`.
// Bytes: every WebSocket message payload received, counted at the `ws` socket ('message').
const path = require('path');
const { pathToFileURL } = require('url');

const base = path.join(__dirname, '..', '..', 'colyseus');
const req = (m) => require(require.resolve(m, { paths: [base] }));
const WebSocket = req('ws');

const VERSION = Number(process.env.TEAHOUSE_PROTOCOL || 2);
if (VERSION !== 1 && VERSION !== 2) throw new Error(`TEAHOUSE_PROTOCOL must be 1 or 2, not ${VERSION}`);
const SUBPROTOCOL = `teahouse.v${VERSION}.msgpack`;

module.exports = function createAdapter({ url = 'http://127.0.0.1:8100', log = () => {} } = {}) {
  const httpUrl = url.replace(/^ws/, 'http').replace(/\/+$/, '');
  const wsUrl = httpUrl.replace(/^http/, 'ws') + '/ws';
  const mode = process.env.TEAHOUSE_CLIENT || 'sdk';
  if (mode !== 'sdk' && mode !== 'lean') throw new Error(`TEAHOUSE_CLIENT must be sdk or lean, not ${mode}`);
  const home = process.env.TEAHOUSE_HOME;
  if (!home) throw new Error('set TEAHOUSE_HOME to a Teahouse checkout (the SDK is its clients/js/teahouse.js)');
  const jsDir = path.resolve(home, 'clients', 'js');
  let libs = null;
  async function load() {
    if (!libs) {
      libs = {
        sdk: await import(pathToFileURL(path.join(jsDir, 'teahouse.js')).href),
        msgpack: await import(pathToFileURL(path.join(jsDir, 'msgpack.js')).href),
        v2: VERSION === 2 ? await import(pathToFileURL(path.join(jsDir, 'v2.js')).href) : null,
        unpack: req('@colyseus/msgpackr').unpack,
      };
    }
    return libs;
  }

  async function post(p, body) {
    const res = await fetch(httpUrl + p, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
    });
    const data = await res.json();
    if (!res.ok) throw new Error(`${p}: HTTP ${res.status} ${JSON.stringify(data)}`);
    return data;
  }

  async function createMatch(seed) {
    await load();
    const m = await post('/api/matches', { game: 'handcards', players: 4, options: { seed: seed >>> 0 }, listed: false });
    const tokens = [];
    for (let s = 0; s < 4; s++) tokens.push((await post(`/api/matches/${m.match}/seats`, { seat: s })).token);
    return { match: m.match, tokens };
  }

  const norm = (v) => ({
    moves: v.moves, turn: v.turn, over: v.over, scores: v.scores,
    hand: v.hand ? v.hand.map((c) => c.id) : null,
  });
  const countBytes = (ws) => {
    const box = { n: 0 };
    ws.on('message', (d) => { box.n += d.byteLength !== undefined ? d.byteLength : d.length; });
    return box;
  };

  // ------------------------------------------------------------------ the SDK
  async function connectSdk(match, seat, onUpdate) {
    const { sdk } = await load();
    const conn = new sdk.Connection(wsUrl, { WebSocket, encoding: 'msgpack', version: VERSION, timeout: 120000 });
    await conn.open();
    const rx = countBytes(conn._ws);
    let last = -1;
    // join/spectate register the MatchView synchronously, before any frame can arrive.
    const watching = seat === null ? conn.spectate(match.match) : conn.join(match.match, match.tokens[seat]);
    const mv = conn.matches.get(match.match);
    mv.onChange((reason) => {
      if (reason !== 'view' && reason !== 'patch') return;
      const v = mv.view;
      if (v.moves === undefined || v.moves === last) return;
      last = v.moves;
      onUpdate(norm(v));
    });
    await watching;
    let ids = 0;
    return {
      send(cardId) {
        conn.move(match.match, { type: 'play', card: cardId }, `m${++ids}`)
          .catch((e) => log(`teahouse move ${cardId} failed: ${e.message}`));
      },
      close() { conn.close(); },
      rxBytes() { return rx.n; },
    };
  }

  // ------------------------------------------------------------------ the lean client
  function applyInPlace(doc, ops) {
    for (const op of ops) {
      const p = op.path;
      if (p.length === 0) { doc = op.value; continue; }
      let parent = doc;
      for (let i = 0; i < p.length - 1; i++) parent = parent[p[i]];
      const k = p[p.length - 1];
      if (Array.isArray(parent)) {
        if (op.op === 'add') parent.splice(k, 0, op.value);
        else if (op.op === 'remove') parent.splice(k, 1);
        else parent[k] = op.value;
      } else if (op.op === 'remove') delete parent[k];
      else parent[k] = op.value;
    }
    return doc;
  }

  async function connectLean(match, seat, onUpdate) {
    const { msgpack, unpack, v2 } = await load();
    const expander = v2 ? new v2.Expander() : null;
    const ws = new WebSocket(wsUrl, [SUBPROTOCOL], { perMessageDeflate: false });
    ws.binaryType = 'nodebuffer';
    const rx = countBytes(ws);
    let doc = null;
    let seq = -1;
    let last = -1;
    let ids = 0;
    const send = (m) => ws.send(msgpack.encode(m));
    const conn = {
      send(cardId) { send({ type: 'move', match: match.match, id: `m${++ids}`, command: { type: 'play', card: cardId } }); },
      close() { ws.close(1000, 'bye'); },
      rxBytes() { return rx.n; },
    };
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('teahouse lean: no view within 120 s')), 120000);
      const fire = () => {
        const v = doc.view;
        if (v.moves === last) return;
        const first = last < 0;
        last = v.moves;
        onUpdate(norm(v));
        if (first) { clearTimeout(timer); resolve(conn); }
      };
      ws.on('error', (e) => reject(e));
      ws.on('open', () => {
        if (ws.protocol !== SUBPROTOCOL) { reject(new Error(`server chose ${ws.protocol}`)); return; }
        send({ type: 'hello', client: 'peers-loadgen-lean/1' });
        send(seat === null ? { type: 'spectate', match: match.match } : { type: 'join', match: match.match, token: match.tokens[seat] });
      });
      ws.on('message', (data) => {
        const msg = expander ? expander.expand(unpack(data)) : unpack(data);
        switch (msg.type) {
          case 'view': doc = msg.doc; seq = msg.seq; fire(); break;
          case 'patch':
            if (seq < 0 || msg.seq <= seq) break;
            if (msg.seq !== seq + 1) { send({ type: 'resync', match: match.match, since: seq }); break; }
            doc = applyInPlace(doc, msg.ops); seq = msg.seq; fire(); break;
          case 'error': log(`teahouse error ${msg.code}: ${msg.message}`); break;
          case 'reject': log(`teahouse reject ${msg.code}: ${msg.message}`); break;
          default: break; // welcome, ack, presence, finished, clock, pong
        }
      });
    });
  }

  const connect = mode === 'sdk' ? connectSdk : connectLean;
  return {
    name: mode === 'sdk' ? 'teahouse' : 'teahouse-lean',
    createMatch,
    connectSeat: (match, seat, onUpdate) => connect(match, seat, onUpdate),
    connectSpectator: (match, onUpdate) => connect(match, null, onUpdate),
  };
};
