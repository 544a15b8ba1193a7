// Checking a Teahouse game record's chance without the server, from protocol/SPEC.md alone:
// 2.13 (the record), 10.4 (the commit generator) and 10.6 (how each game draws from it).
// No dependencies; an ES module for Node and browsers.
//
//   import { verifyChance } from "./verify.js";   // served at /js/verify.js too
//   const verdict = verifyChance(recordText);   // {ok, checked: [seq...], seq?, reason?}
//
// It checks the seed against its commitment and re-runs every draw SPEC 10.6 lists for the
// record's game, comparing each outcome with the record's events. It does not fold the rules
// (state hashes are for `teahouse verify`), so draws over a list only the state of play holds
// (a discard pile reshuffled in the order it was discarded) are left to that verifier.

// --- SHA-256 (FIPS 180-4), over UTF-8 ----------------------------------------------------

const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

export function sha256(text) {
  const data = new TextEncoder().encode(text);
  const bits = data.length * 8;
  const padded = new Uint8Array(((data.length + 9 + 63) >> 6) << 6);
  padded.set(data);
  padded[data.length] = 0x80;
  const view = new DataView(padded.buffer);
  view.setUint32(padded.length - 8, Math.floor(bits / 2 ** 32));
  view.setUint32(padded.length - 4, bits >>> 0);
  const h = new Uint32Array([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
  const w = new Uint32Array(64);
  const rotr = (x, n) => (x >>> n) | (x << (32 - n));
  for (let off = 0; off < padded.length; off += 64) {
    for (let i = 0; i < 16; i++) w[i] = view.getUint32(off + 4 * i);
    for (let i = 16; i < 64; i++) {
      const s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >>> 3);
      const s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >>> 10);
      w[i] = (w[i - 16] + s0 + w[i - 7] + s1) >>> 0;
    }
    let [a, b, c, d, e, f, g, hh] = h;
    for (let i = 0; i < 64; i++) {
      const t1 = (hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i]) >>> 0;
      const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) >>> 0;
      hh = g; g = f; f = e; e = (d + t1) >>> 0; d = c; c = b; b = a; a = (t1 + t2) >>> 0;
    }
    const add = [a, b, c, d, e, f, g, hh];
    for (let i = 0; i < 8; i++) h[i] = (h[i] + add[i]) >>> 0;
  }
  return Array.from(h, (x) => x.toString(16).padStart(8, "0")).join("");
}

// --- The commit generator (SPEC 10.4): MT19937 keyed by init_by_array ----------------------

export class CommitRng {
  constructor(seed, seq) {
    const hex = sha256(`teahouse/v1/${seed}/${seq}`);
    // The digest as a big-endian integer, split into 32-bit words least significant first,
    // without the top words that are zero (at least one word).
    const key = [];
    for (let i = 7; i >= 0; i--) key.push(parseInt(hex.slice(8 * i, 8 * i + 8), 16));
    while (key.length > 1 && key[key.length - 1] === 0) key.pop();
    this.mt = new Uint32Array(624);
    this.index = 624;
    this.#initByArray(key);
  }

  #initGenrand(s) {
    const mt = this.mt;
    mt[0] = s >>> 0;
    for (let i = 1; i < 624; i++) {
      const prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = (Math.imul(1812433253, prev) + i) >>> 0;
    }
  }

  #initByArray(key) {
    const mt = this.mt;
    this.#initGenrand(19650218);
    let i = 1, j = 0;
    for (let k = Math.max(624, key.length); k > 0; k--) {
      const prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = ((mt[i] ^ Math.imul(prev, 1664525)) + key[j] + j) >>> 0;
      i++; j++;
      if (i >= 624) { mt[0] = mt[623]; i = 1; }
      if (j >= key.length) j = 0;
    }
    for (let k = 623; k > 0; k--) {
      const prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = ((mt[i] ^ Math.imul(prev, 1566083941)) - i) >>> 0;
      i++;
      if (i >= 624) { mt[0] = mt[623]; i = 1; }
    }
    mt[0] = 0x80000000;
  }

  next32() {
    const mt = this.mt;
    if (this.index >= 624) {
      for (let k = 0; k < 624; k++) {
        const y = (mt[k] & 0x80000000) | (mt[(k + 1) % 624] & 0x7fffffff);
        mt[k] = mt[(k + 397) % 624] ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
      }
      this.index = 0;
    }
    let y = mt[this.index++];
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  getrandbits(k) { // 1 <= k <= 32
    return this.next32() >>> (32 - k);
  }

  below(n) { // SPEC 10.4 _randbelow: k = bit length of n, draw k bits until below n
    const k = 32 - Math.clz32(n);
    let r = this.getrandbits(k);
    while (r >= n) r = this.getrandbits(k);
    return r;
  }

  randrange(n) { return this.below(n); }

  choice(items) { return items[this.below(items.length)]; }

  shuffle(items) {
    for (let i = items.length - 1; i > 0; i--) {
      const j = this.below(i + 1);
      [items[i], items[j]] = [items[j], items[i]];
    }
    return items;
  }

  sample(population, k) { // SPEC 10.6: CPython 3.11's two branches
    const n = population.length;
    let setsize = 21;
    if (k > 5) setsize += 4 ** Math.ceil(Math.log(3 * k) / Math.log(4));
    const out = [];
    if (n <= setsize) {
      const pool = population.slice();
      for (let i = 0; i < k; i++) {
        const j = this.below(n - i);
        out.push(pool[j]);
        pool[j] = pool[n - i - 1];
      }
    } else {
      const selected = new Set();
      for (let i = 0; i < k; i++) {
        let j = this.below(n);
        while (selected.has(j)) j = this.below(n);
        selected.add(j);
        out.push(population[j]);
      }
    }
    return out;
  }
}

// --- Each game's draws (SPEC 10.6) ---------------------------------------------------------

function same(a, b) { // JSON values; a map's key order does not matter
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === b.length && a.every((x, i) => same(x, b[i]));
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && same(a[k], b[k]));
}
const has = (options, key) => options != null && Object.prototype.hasOwnProperty.call(options, key);
function byCodePoint(a, b) { // not JS's UTF-16 order: they differ above U+FFFF
  const x = Array.from(a, (c) => c.codePointAt(0)), y = Array.from(b, (c) => c.codePointAt(0));
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] - y[i];
  return x.length - y.length;
}

class Mismatch extends Error {}

function expect(event, field, value) {
  if (!event || !same(event[field], value)) {
    throw new Mismatch(`${event ? event.type : "the event"}.${field} is not what the seed draws`);
  }
}

// The start event of `type` in this commit (null: not the start), the options, and whether an
// option fixes an outcome (present and not null: then nothing is drawn for it).
function opening(line, type, head) {
  const e = line.events.find((x) => x.type === type);
  const o = head.options || {};
  return e ? { e, o, fixed: (k) => o[k] !== undefined && o[k] !== null } : null;
}

// Each checker gets the commit's generator, the header, the commit line and its own memory;
// it returns true when the commit had draws it checked.
const GAMES = {
  pixies(rng, head, line, memo) {
    const { cards, market_size: size } = head.chance;
    const options = head.options || {};
    let drew = false;
    for (const e of line.events) {
      if (e.type === "game_started") {
        const first = has(options, "first_player") && options.first_player !== null ? options.first_player : rng.randrange(head.players);
        expect(e, "first_player", first);
        drew = true;
      } else if (e.type === "round_started") {
        memo.undrawn = new Set(cards);
      } else if (e.type === "market_revealed") {
        const orders = options.deck_orders || [];
        const stacked = e.round <= orders.length ? orders[e.round - 1] : [];
        const market = stacked.filter((c) => memo.undrawn.has(c)).slice(0, size);
        const rest = [...memo.undrawn].filter((c) => !market.includes(c) && !stacked.includes(c)).sort(byCodePoint);
        if (market.length < size) market.push(...rng.sample(rest, size - market.length));
        expect(e, "cards", market);
        for (const c of market) memo.undrawn.delete(c);
        drew = true;
      }
    }
    return drew;
  },

  china(rng, head, line) {
    const start = opening(line, "game_started", head);
    if (!start) return false;
    const { e, o } = start; // china reads a present option, even null, as fixing
    expect(e, "order", has(o, "deck_order") ? o.deck_order : rng.shuffle(head.chance.cards.slice()));
    expect(e, "emperor", has(o, "start_player") ? o.start_player : rng.randrange(head.players));
    return true;
  },

  khan(rng, head, line) {
    const start = opening(line, "game_started", head);
    if (!start) return false;
    const { e, o, fixed } = start;
    expect(e, "deck_order", fixed("deck_order") ? o.deck_order : rng.shuffle(head.chance.cards.slice()));
    expect(e, "start_player", fixed("start_player") ? o.start_player : rng.randrange(head.players));
    return true;
  },

  gugong(rng, head, line) {
    const start = opening(line, "game_started", head);
    if (!start) return gugongMorning(rng, head, line);
    const { e, o } = start;
    const c = head.chance;
    const n = head.players;
    const first = has(o, "start_player") ? o.start_player : rng.randrange(n);
    expect(e, "start_player", first);
    let locations = o.location_cards;
    if (!has(o, "location_cards")) {
      const order = rng.shuffle(c.location_cards.slice());
      locations = Object.fromEntries(c.locations.map((place, i) => [place, order[i]]));
    }
    expect(e, "locations", locations);
    expect(e, "draw_pile", has(o, "draw_pile") ? o.draw_pile : rng.shuffle(c.draw_cards.slice()));
    const tokens = has(o, "travel_tokens") ? o.travel_tokens.slice() : rng.shuffle(c.tokens.slice());
    expect(e, "map", Object.fromEntries(c.cities.map((city, i) => [city, tokens[i]])));
    const rest = tokens.slice(c.cities.length);
    const half = Math.ceil(rest.length / 2);
    expect(e, "pile_a", rest.slice(0, half));
    expect(e, "pile_b", rest.slice(half));
    let decrees = o.decrees;
    if (!has(o, "decrees")) {
      decrees = [];
      const levels = Object.keys(c.decrees).map(Number).sort((a, b) => a - b);
      for (const level of levels) decrees.push(...rng.sample(c.decrees[String(level)], c.decrees_per_level).sort(byCodePoint));
    }
    expect(e, "decrees", decrees);
    const fixedDice = (o.dice || [])[0];
    expect(e, "dice", fixedDice != null ? fixedDice : c.dice.map((faces) => rng.choice(faces)));
    if (o.random_start_hands) {
      const pool = rng.shuffle(c.start_cards.slice());
      const hands = Array.from({ length: n }, () => []);
      for (let k = 0; k < n; k++) hands[(first + k) % n] = pool.slice(k * c.hand_size, (k + 1) * c.hand_size);
      expect(e, "hands", hands);
    }
    return true;
  },

  hieroglyphs(rng, head, line) {
    const start = opening(line, "setup_shuffled", head);
    if (!start) return meaningClaims(rng, head, line);
    const { e, o, fixed } = start;
    expect(e, "deck_order", fixed("deck_order") ? o.deck_order : rng.shuffle(head.chance.cards.slice()));
    expect(e, "task_order", fixed("task_order") ? o.task_order : rng.shuffle(head.chance.tasks.slice()));
    expect(e, "first_player", fixed("first_player") ? o.first_player : rng.randrange(head.players));
    return true;
  },
};

// Gùgōng, a morning of days 2-4 (10.6): the dice, when no travel reshuffle drew before them.
function gugongMorning(rng, head, line) {
  const at = line.events.findIndex((x) => x.type === "dice_rolled");
  if (at < 0 || line.events.slice(0, at).some((x) => x.type === "travel_discard_reshuffled")) return false;
  const e = line.events[at];
  const fixed = ((head.options || {}).dice || [])[e.day - 1];
  expect(e, "dice", fixed != null ? fixed : head.chance.dice.map((faces) => rng.choice(faces)));
  return true;
}

// Chinese Squared, a meaning claim (10.6; hieroglyphs.md 9.2).
const STOP_WORDS = new Set(["to", "a", "an", "the", "of", "in", "and", "yet"]);

function contentWords(gloss) {
  return new Set(gloss.toLowerCase().replace(/\([^)]*\)/g, " ").split(/[^a-z]+/).filter((w) => w && !STOP_WORDS.has(w)));
}

function meaningClaims(rng, head, line) {
  const e = line.events.find((x) => x.type === "card_played" && x.claim);
  if (!e) return false;
  const glosses = head.chance.glosses;
  const char = e.card.slice(0, e.card.lastIndexOf("#"));
  const gloss = glosses[char];
  const fixed = ((head.options || {}).claim_options || {})[char];
  let options;
  if (fixed) {
    options = fixed.slice();
  } else {
    const own = contentWords(gloss);
    const distractors = Object.keys(glosses)
      .filter((other) => other !== char && ![...contentWords(glosses[other])].some((w) => own.has(w)))
      .map((other) => glosses[other]).sort(byCodePoint);
    options = rng.shuffle([gloss, ...rng.sample(distractors, 3)]);
  }
  const challenge = { type: "card_played.challenge", ...e.challenge };
  expect(challenge, "options", options);
  expect(challenge, "correct_index", options.indexOf(gloss));
  return true;
}

// --- The record -----------------------------------------------------------------------------

export function parseRecord(text) {
  return text.split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
}

/** Re-run the chance of a game record (its JSON Lines text, or its parsed lines). Returns
 * `{ok: true, checked}` (the seqs whose draws were re-run) or `{ok: false, seq, reason}`: the
 * first commit whose events are not what the seed draws (seq 0: the header or the seed). */
export function verifyChance(record) {
  const lines = typeof record === "string" ? parseRecord(record) : record;
  const [head, ...commits] = lines;
  const bad = (seq, reason) => ({ ok: false, seq, reason });
  if (!head || head.format !== "teahouse.record") return bad(0, "not a game record");
  if (head.version !== 1) return bad(0, `record format version ${head.version}; this verifier reads 1`);
  if (typeof head.seed !== "string") return bad(0, "the record has no seed: only a finished match's record can be verified");
  if (sha256(head.seed) !== head.seed_sha256) return bad(0, "the seed does not match the seed_sha256 published at creation");
  const game = GAMES[head.game];
  if (!game) return bad(0, `unknown game ${head.game}`);
  const fork = head.forked_from;
  const memo = {};
  const checked = [];
  for (const line of commits) {
    // A fork's copied commits were drawn under the origin's seed (SPEC 10.5).
    const seed = fork && line.seq <= fork.seq ? fork.seed : head.seed;
    try {
      if (game(new CommitRng(seed, line.seq), head, line, memo)) checked.push(line.seq);
    } catch (err) {
      if (err instanceof Mismatch) return bad(line.seq, err.message);
      return bad(line.seq, `the events cannot be read: ${err.message}`);
    }
  }
  return { ok: true, checked };
}
