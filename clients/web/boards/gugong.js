// The Gùgōng board: the seven locations with the gift card lying at each, the Palace stairs,
// the Intrigue track, the Great Wall, the jade houses, the Grand Canal with its ports and boats,
// the travel map with its tokens and travellers, the decrees in play, your hand and gift
// discard pile as cards with value and action, and every family's public area.
// A gift exchange is a hand card, then the location, then (when not free) how to pay; an action
// is "card action" or "location action" followed by its choices (option, jade spot, decree,
// boat, unit, ...), each pointed at on the board where it has a place, else offered as a button.
import { h, renderGeneric, SEAT_COLOURS, SEAT_INK, seatLabel, seatSwatch, svg } from "../render.js";

let REF = null;

const LOC_NAME = { TRAVEL: "Travel", WALL: "Great Wall", JADE: "Jade", INTRIGUE: "Intrigue", PALACE: "Palace", DECREE: "Decrees", CANAL: "Grand Canal" };
const LOC_TEXT = {
  TRAVEL: "A: 1 move · B: pay 2, 2 moves",
  WALL: "A: place 1 · B: pay 1, place 2",
  JADE: "buy a jade at a jade house",
  INTRIGUE: "A: +1 (medal) · B: pay 1, +3",
  PALACE: "A: Envoy +1 · B: pay 2, +2 & Intrigue +1",
  DECREE: "buy a decree, place a servant",
  CANAL: "A: load 1 and/or move a boat · B: pay 1, load 2",
};
const ACTION_NAME = { ...LOC_NAME, SERVANT1: "+1 servant", SERVANT2: "+2 servants", EXCHANGE: "swap a card", NONE: "no action" };
const TOKEN_NAME = {
  T_SERVANT1: "+1 servant", T_SERVANT2: "+2 servants", T_PALACE: "Envoy +1", T_INTRIGUE: "Intrigue +1",
  T_CARD_JADE: "card for jade", T_RETRIEVE: "retrieve a card", T_EXCHANGE: "swap a card", T_VP2: "2 VP",
  T_SHIP: "a servant on a boat", T_BUY_JADE: "buy a jade for 3", T_WALL: "a servant on the Wall", T_DOUBLE: "double (worth 2)",
};
const TOKEN_SHORT = {
  T_SERVANT1: "+1", T_SERVANT2: "+2", T_PALACE: "Env", T_INTRIGUE: "Int", T_CARD_JADE: "C→J", T_RETRIEVE: "Ret",
  T_EXCHANGE: "Swp", T_VP2: "2VP", T_SHIP: "Ship", T_BUY_JADE: "Jade", T_WALL: "Wall", T_DOUBLE: "×2",
};
// The travel map's twelve cities, placed roughly as on a map of China (the graph is the
// reference's; positions are ours).
const CITY_XY = {
  c01: [330, 50], c02: [250, 130], c03: [470, 120], c04: [130, 215], c05: [280, 220], c06: [420, 215],
  c07: [545, 250], c08: [70, 330], c09: [330, 320], c10: [555, 355], c11: [220, 410], c12: [410, 460],
};

const cityName = (id) => REF?.map?.cities?.find((c) => c.id === id)?.name ?? id;
const decreeRef = (id) => REF?.decrees?.decrees?.find((d) => d.id === id);
const cardRef = (id) => REF?.cards?.gift_cards?.find((c) => c.id === id);
const tokenType = (id, view) => {
  for (const p of view?.players ?? []) for (const t of p.tokens ?? []) if (t?.id === id) return t.type;
  return null;
};
const who = (seat, ctx) => ctx?.names?.[seat] || `Seat ${seat}`;

const many = (n, one, more = `${one}s`) => `${n} ${n === 1 ? one : more}`;

// A decree's effect in a player's words, not the data's (service/games/gugong/data/decrees.json;
// the rules: scoring.py's decree_end_vp, the actions' board.ability).
const MORNING_WORDS = {
  servants: (e) => `take ${many(e.n, "servant")}`,
  intrigue: (e) => `move up ${many(e.n, "step")} on the Intrigue track`,
  envoy: (e) => `your Envoy moves ${many(e.n, "step")} towards the Palace`,
  vp: (e) => `score ${e.n} VP`,
  travel_move: () => "move your traveller once, free",
};
const ABILITY_WORDS = {
  jade_discount: (e) => `jade costs you ${e.n} less (never under ${e.min ?? 1})`,
  travel_b_cost: (e) => `Travel's option B costs you ${many(e.n, "servant")}`,
  wall_a_units: (e) => `the Great Wall's option A places up to ${e.n} of your units`,
  exchange_payment: (e) => `a gift exchange costs you ${many(e.n, "servant")}`,
  claim_vp: (e) => `each harbour reward you claim also scores ${e.n} VP`,
};
const END_WORDS = {
  per_jade: (e) => `${e.vp} VP for each jade you hold`,
  per_intrigue_steps: (e) => `${e.vp} VP for every ${e.steps} steps you stand on the Intrigue track`,
  per_decree: (e) => `${e.vp} VP for each decree you hold`,
  per_reward_slot: (e) => `${e.vp} VP for each harbour reward you took`,
  per_token_value: (e) => `${e.vp} VP for each point your travel tokens are worth`,
};
// The harbour rewards (the board's reward slots), as a player reads them.
const REWARD_NAME = { VP4: "4 VP", CARD: "gift card", FOREMAN: "Foreman" };

function decreeText(id) {
  const d = decreeRef(id);
  if (!d) return id;
  const parts = [];
  const say = (table, e) => table[e.kind]?.(e) ?? e.kind.replace(/_/g, " ");
  if (d.vp_now) parts.push(`${d.vp_now} VP at once`);
  if (d.morning) parts.push(`every Morning: ${say(MORNING_WORDS, d.morning)}`);
  if (d.ability) parts.push(`from now on: ${say(ABILITY_WORDS, d.ability)}`);
  if (d.end) parts.push(`at the end: ${say(END_WORDS, d.end)}`);
  return parts.join("; ");
}

/** The final scoring (rulebook §4.4), a row per seat: the Wall's majority, the Palace arrival,
 * the level-3 decrees, jade, the total, and whether the seat reached the Palace at all. */
function finalTable(bd, ctx) {
  const seats = bd.seats ?? [];
  const cols = [["wall", "Great Wall"], ["palace", "Palace arrival"], ["decrees", "Decrees"], ["jade", "Jade"]];
  return h("div.scroll-x", {}, h("table.scores", { "aria-label": "final scoring" },
    h("thead", {}, h("tr", {}, h("th", {}, "Player"), cols.map(([, name]) => h("th.num", {}, name)), h("th.num", {}, "Total VP"),
      h("th", {}, "Reached the Palace"))),
    h("tbody", {}, seats.map((b, s) => h("tr", { "data-seat": s },
      h("td", {}, seatSwatch(s), seatLabel(s, ctx.names)),
      cols.map(([k]) => h("td.num", {}, b[k] ? `+${b[k]}` : "0")),
      h("td.num", {}, h("strong", {}, String(b.vp))),
      h("td", {}, b.eligible ? "yes" : "no: cannot win"))))));
}

function cardText(c) {
  return `${c.id}: value ${c.value}, action ${ACTION_NAME[c.action] ?? c.action}`;
}

function giftCard(c, attrs = {}) {
  if (!c) return h("div.gcard.empty", attrs, "—");
  return h("div.gcard", { "data-card": c.id, "aria-label": cardText(c), title: cardText(c), ...attrs },
    h("span.gc-value", {}, String(c.value)), h("span.gc-action", {}, ACTION_NAME[c.action] ?? c.action), h("span.gc-id", {}, c.id));
}

function unitLabel(u) {
  return u === "foreman" ? "the Foreman" : "a servant";
}

/** The tokens of the parameters of an action or prompt answer, in a fixed order. */
function paramTokens(cmd) {
  const out = [];
  if (cmd.option) out.push(`opt:${cmd.option}`);
  if ("spot" in cmd) out.push(`jade:${cmd.spot === null ? "supply" : cmd.spot}`);
  if (cmd.decree) out.push(`decree:${cmd.decree}`);
  if (typeof cmd.place === "string" && cmd.place === "foreman") out.push("unit:foreman");
  if (cmd.place && typeof cmd.place === "object") {
    out.push(`boat:${cmd.place.boat}`);
    if (cmd.place.unit === "foreman") out.push("unit:foreman");
  }
  if (cmd.units) out.push(`units:${cmd.units.join("+")}`);
  for (const p of cmd.placements ?? []) {
    out.push(`boat:${p.boat}`);
    if (p.unit === "foreman") out.push("unit:foreman");
  }
  if (cmd.move) out.push(`to:${cmd.move}`);
  if (cmd.card) out.push(`card:${cmd.card}`);
  if (cmd.location) out.push(`loc:${cmd.location}`);
  if (cmd.boat) out.push(`boat:${cmd.boat}`);
  if (cmd.city) out.push(`city:${cmd.city}`);
  if (cmd.reward) out.push(`reward:${cmd.reward}`);
  if (cmd.unit === "foreman") out.push("unit:foreman");
  if ("down" in cmd) out.push(`down:${cmd.down}`);
  if ("die" in cmd) out.push(`die:${cmd.die}`);
  if ("face" in cmd) out.push(`face:${cmd.face}`);
  if (cmd.pay_foreman) out.push("foreman:pays");
  return out;
}

function promptText(view, ctx) {
  const p = view.prompt;
  if (!p) return view.phase === "finished" ? "The game is over." : "";
  const name = who(p.seat, ctx);
  switch (p.kind) {
    case "turn": {
      const t = view.turn ?? {};
      if (!t.exchanged) return `${name}: give a gift (a hand card to a location)`;
      return `${name}: take the card action and/or the location action (${LOC_NAME[t.location] ?? "?"}), or end the turn`;
    }
    case "travel_move": return `${name}: move the traveller (${p.left ?? 1} move(s) left)`;
    case "token_effect": return `${name}: use the travel token just taken, or decline`;
    case "benefit": return `${name}: an Intrigue benefit for the Wall, or decline`;
    case "claim": return `${name}: claim the harbour reward at ${p.route}${p.port}, or decline`;
    case "token_limit": return `${name}: holds more than 6 tokens and must trade some in`;
    case "morning_decree": return `${name}: choose the next Morning decree`;
    case "final_window": return `${name}: trade travel tokens a last time, then done`;
    default: return `${name}: ${p.kind.replace(/_/g, " ")}`;
  }
}

function tracksSvg(view, ctx) {
  const players = view.players ?? [];
  const parts = [];
  // Palace stairs: 0..8, the Envoys
  const stairX = (i) => 30 + i * 58;
  parts.push(svg("text", { x: 10, y: 20, "font-size": 15, "font-weight": 700 }, "Palace stairs (Envoys)"));
  for (let i = 0; i <= 8; i++) {
    parts.push(svg("rect", { x: stairX(i) - 24, y: 60 - i * 4, width: 50, height: 30 + i * 4, rx: 4,
      fill: i === 8 ? "#d9a800" : "#efe7d8", stroke: "#9c8f7c" }));
    parts.push(svg("text", { x: stairX(i), y: 104, "font-size": 11, "text-anchor": "middle", fill: "#6f675e" }, i === 8 ? "Palace" : String(i)));
  }
  players.forEach((p, s) => {
    const step = Math.min(p.envoy ?? 0, 8);
    parts.push(svg("circle", { class: "envoy", "data-seat": s, cx: stairX(step) - 14 + (s % 3) * 14, cy: 70 + Math.floor(s / 3) * 14, r: 6,
      fill: SEAT_COLOURS[s], stroke: "#23201c" }, svg("title", {}, `${who(s, ctx)}'s Envoy: step ${p.envoy}`)));
  });
  // Intrigue track 0..14, higher on top when tied
  const intX = (i) => 22 + i * 38;
  parts.push(svg("text", { x: 10, y: 140, "font-size": 15, "font-weight": 700 }, "Intrigue track"));
  for (let i = 0; i <= 14; i++) {
    parts.push(svg("rect", { x: intX(i) - 17, y: 150, width: 34, height: 40, rx: 4, fill: "#f4efe6", stroke: "#9c8f7c" }));
    parts.push(svg("text", { x: intX(i), y: 203, "font-size": 11, "text-anchor": "middle", fill: "#6f675e" }, String(i)));
  }
  const order = view.intrigue_order ?? [];
  const stackAt = {};
  [...order].reverse().forEach((s) => {
    const pos = players[s]?.intrigue ?? 0;
    const k = stackAt[pos] ?? 0;
    stackAt[pos] = k + 1;
    parts.push(svg("rect", { class: "intrigue", "data-seat": s, x: intX(pos) - 9, y: 180 - k * 9, width: 18, height: 8, rx: 2,
      fill: SEAT_COLOURS[s], stroke: "#23201c" }, svg("title", {}, `${who(s, ctx)}: Intrigue ${pos}`)));
  });
  return svg("svg", { class: "board gugong-tracks", viewBox: "0 0 580 212", role: "img", "aria-label": "the Palace stairs and the Intrigue track" }, parts);
}

function canal(view, ctx) {
  const routes = REF?.board?.canal?.routes ?? {};
  return h("div.canal", { "aria-label": "the Grand Canal" }, Object.entries(view.canal ?? {}).map(([r, ports]) =>
    h("div.route", { "data-key": `route:${r}` }, h("span.route-name", {}, `Route ${r}`),
      ports.map((b, i) => {
        const port = routes[r]?.[i] ?? {};
        const id = `${r}${i + 1}`;
        const label = `${port.name ?? id} (${id})` + (port.reward ? `, reward ${REWARD_NAME[port.reward] ?? port.reward}` : "") +
          (b ? `: a boat of ${who(b.owner, ctx)} with ${b.cubes} servant(s)${b.foreman ? " and the Foreman" : ""}` : ": empty");
        return h("div.port", { "data-pick": `boat:${id}`, "data-port": id, "aria-label": label, title: label },
          h("span.port-name", {}, port.name ?? id), h("span.port-reward", {}, port.reward ? REWARD_NAME[port.reward] ?? port.reward : "start"),
          b ? h("span.boat", { style: `background: ${SEAT_COLOURS[b.owner]}; color: ${SEAT_INK[b.owner]}` },
            `boat ${b.cubes}${b.foreman ? "+F" : ""}`) : h("span.muted", {}, "·"));
      }))));
}

function mapSvg(view, ctx) {
  const roads = (REF?.map?.roads ?? []).map(([a, b]) => svg("line", { x1: CITY_XY[a][0], y1: CITY_XY[a][1], x2: CITY_XY[b][0], y2: CITY_XY[b][1],
    stroke: "#b9ab95", "stroke-width": 4, "stroke-linecap": "round" }));
  const travellers = {};
  (view.players ?? []).forEach((p, s) => { if (p.traveller) (travellers[p.traveller] ??= []).push(s); });
  const cities = (REF?.map?.cities ?? []).map((c) => {
    const [x, y] = CITY_XY[c.id] ?? [0, 0];
    const tok = view.map?.[c.id];
    const here = travellers[c.id] ?? [];
    const label = `${c.name}` + (tok ? `: token ${TOKEN_NAME[tok.type] ?? tok.type}` : ": no token") +
      (here.length ? `; travellers: ${here.map((s) => who(s, ctx)).join(", ")}` : "");
    return svg("g", { class: "city", "data-key": `city:${c.id}` },
      svg("circle", { cx: x, cy: y, r: 26, fill: tok ? "#fff4d6" : "#f4f1ec", stroke: "#8a6d3b", "stroke-width": 2,
        "data-pick": `city:${c.id}`, "aria-label": label }, svg("title", {}, label)),
      svg("text", { x, y: y - 30, "font-size": 13, "text-anchor": "middle", "font-weight": 600, "pointer-events": "none" }, c.name),
      tok ? svg("text", { x, y: y + 5, "font-size": 12, "text-anchor": "middle", "pointer-events": "none" }, TOKEN_SHORT[tok.type] ?? tok.type) : null,
      here.map((s, i) => svg("circle", { cx: x + 20 - i * 10, cy: y + 20, r: 7, fill: SEAT_COLOURS[s], stroke: "#23201c", "pointer-events": "none" })));
  });
  return svg("svg", { class: "board gugong-map", viewBox: "0 0 620 500", role: "group", "aria-label": "the travel map" }, roads, cities);
}

function playerArea(p, view, ctx) {
  const s = p.seat;
  const acting = view.prompt?.seat === s;
  return h(`div.player${acting ? ".acting" : ""}`, { "data-seat": s, "data-key": `player:${s}` },
    h("div.player-name", {}, seatSwatch(s), h("strong", {}, seatLabel(s, ctx.names)),
      s === ctx.seat ? h("span.badge.you", {}, ctx.mode === "replay" ? "viewpoint" : "you") : null,
      view.start_player === s ? h("span.badge", {}, "start player") : null,
      view.medal === s ? h("span.badge", { title: "took the Intrigue medal: start player tomorrow" }, "medal") : null,
      acting ? h("span.badge.turn", {}, "to act") : null),
    h("div.player-facts", {},
      h("span", {}, "VP ", h("strong.vp", {}, String(p.vp))),
      h("span", {}, "servants ", h("strong", {}, String(p.pool)), ` (supply ${p.supply})`),
      h("span", {}, "Foreman ", h("strong", {}, String(p.foreman))),
      h("span", {}, "jade ", h("strong", {}, String(p.jade))),
      h("span", {}, "Envoy ", h("strong", {}, `${p.envoy}/8`), p.arrival_vp !== null ? ` (arrived, ${p.arrival_vp} VP)` : ""),
      h("span", {}, "Intrigue ", h("strong", {}, String(p.intrigue))),
      h("span", {}, "hand ", h("strong", {}, String(p.hand_count)), `, gifts ${p.discard_count}`),
      h("span", {}, "boats left ", h("strong", {}, String(p.boats_left))),
      h("span", {}, "traveller ", h("strong", {}, p.traveller ? cityName(p.traveller) : "not out")),
      h("span", {}, "harbour rewards taken: ", h("strong", {}, Object.entries(p.slots ?? {}).map(([k, v]) => `${REWARD_NAME[k] ?? k} × ${v}`).join(", "))),
      p.decrees?.length ? h("span", {}, "decrees ", h("strong", {}, p.decrees.join(", "))) : null),
    p.tokens?.length ? h("div.tokens", {}, p.tokens.map((t) => h("span.token", { title: TOKEN_NAME[t.type] ?? t.type, "data-token": t.id }, TOKEN_NAME[t.type] ?? t.type))) : null);
}

export default {
  setReference(reference) {
    REF = reference ?? null;
  },

  path(cmd) {
    switch (cmd.type) {
      case "exchange": {
        const out = [`card:${cmd.card}`, `loc:${cmd.location}`];
        if (cmd.payment && cmd.payment !== "none") out.push(`pay:${cmd.payment}`);
        if (cmd.discard) out.push(`card:${cmd.discard}`);
        if (cmd.pay_foreman) out.push("foreman:pays");
        return out;
      }
      case "card_action": return ["do:card", ...paramTokens(cmd)];
      case "location_action": return ["do:location", ...paramTokens(cmd)];
      case "use_token": return ["do:token", ...paramTokens(cmd)];
      case "exchange_tokens": return [`trade:${cmd.reward}:${cmd.tokens.join("+")}`];
      case "morning_decree": return [`decree:${cmd.decree}`];
      case "travel": case "intrigue_benefit": case "claim": return paramTokens(cmd);
      case "end_turn": case "decline": case "done": return [cmd.type];
      default: return [`move:${JSON.stringify(cmd)}`];
    }
  },

  tokenLabel(token, ctx) {
    const [kind, a, b] = token.split(":");
    const view = ctx?.view ?? {};
    switch (kind) {
      case "card": {
        const c = cardRef(a);
        return c ? `${a} (value ${c.value}, ${ACTION_NAME[c.action] ?? c.action})` : a;
      }
      case "loc": return `to ${LOC_NAME[a] ?? a}` + (view.locations?.[a] ? ` (takes ${view.locations[a].id}, value ${view.locations[a].value})` : "");
      case "pay": return a === "servants" ? "pay 2 servants" : a === "card" ? "discard another hand card:" : a === "forgo" ? "forgo this turn's actions" : `pay ${a}`;
      case "foreman": return "the Foreman helps pay";
      case "do": {
        if (a === "token") return "use the travel token";
        const t = view.turn ?? {};
        if (a === "location") return `location action: ${LOC_NAME[t.location] ?? "the location"}`;
        const given = t.location ? view.locations?.[t.location] : null;
        return `card action: ${given ? ACTION_NAME[given.action] ?? given.action : "the card's"}`;
      }
      case "opt": return `option ${a}`;
      case "jade": return a === "supply" ? "a jade from the supply (5)" : `jade house ${Number(a) + 1} (cost ${view.jade_spots?.[a]?.cost ?? "?"})`;
      case "decree": return `decree ${a}: ${decreeText(a)}`;
      case "unit": return "with the Foreman";
      case "units": return `place ${a.split("+").map(unitLabel).join(" and ")}`;
      case "boat": return `boat at ${a}`;
      case "to": return `move a boat to ${a}`;
      case "city": return `travel to ${cityName(a)}` + (view.map?.[a] ? ` (${TOKEN_NAME[view.map[a].type] ?? view.map[a].type})` : "");
      case "reward": return `reward: ${REWARD_NAME[a] ?? a}`;
      case "down": return `Intrigue down ${a}`;
      case "die": return `set die ${Number(a) + 1}`;
      case "face": return `to ${a}`;
      case "trade": {
        const ids = (b ?? "").split("+");
        return `trade ${ids.map((id) => TOKEN_NAME[tokenType(id, view)] ?? id).join(", ")} for ${a}`;
      }
      case "end_turn": return "end the turn";
      case "decline": return "decline";
      case "done": return "done";
      default: return token;
    }
  },

  render(root, ctx) {
    const view = ctx.view ?? {};
    if (!REF || !view.players) {
      root.replaceChildren(h("div.panel", {}, renderGeneric(view)));
      return;
    }
    const me = ctx.seat !== null && ctx.seat !== undefined ? view.players[ctx.seat] : null;
    const info = h("div.table-info", {},
      h("span", {}, "Day ", h("strong", {}, `${view.day ?? 0}`), " of 4"),
      h("span", {}, "Phase ", h("strong", {}, String(view.phase ?? "?"))),
      h("span", { "data-key": "dice", title: "the Destiny dice" }, "Dice ", (view.dice ?? []).map((d) => h("span.die", {}, String(d)))),
      h("span", {}, "Draw pile ", h("strong", {}, String(view.draw_pile_count ?? 0))),
      h("span", {}, "Travel piles ", h("strong", {}, `${view.pile_a_count ?? 0} + ${view.pile_b_count ?? 0}`)));
    const prompt = h("p.prompt", { id: "prompt" }, promptText(view, ctx));
    const locations = h("div.locations", { "aria-label": "the seven locations" }, (REF.board?.locations ?? Object.keys(view.locations ?? {})).map((loc) =>
      h("div.location", { "data-pick": `loc:${loc}`, "data-key": `loc:${loc}`, "data-location": loc,
        "aria-label": `${LOC_NAME[loc]}: ${LOC_TEXT[loc]}; card lying there ${view.locations?.[loc] ? cardText(view.locations[loc]) : "none"}` },
      h("strong", {}, LOC_NAME[loc] ?? loc), h("span.loc-text", {}, LOC_TEXT[loc] ?? ""), giftCard(view.locations?.[loc]))));
    const threshold = view.wall_threshold ?? 4;
    const wall = h("div.wall", { "data-key": "wall", "aria-label": `the Great Wall: ${(view.wall ?? []).length} of ${threshold}` },
      h("strong", {}, "Great Wall "), h("span.muted", {}, `(${(view.wall ?? []).length} of ${threshold}; the majority scores 3 VP)`),
      h("div.wall-row", {}, Array.from({ length: Math.max(threshold, (view.wall ?? []).length) }, (_, i) => {
        const w = view.wall?.[i];
        return h("span.brick", { style: w ? `background: ${SEAT_COLOURS[w.seat]}; color: ${SEAT_INK[w.seat]}` : null,
          title: w ? `${who(w.seat, ctx)}${w.foreman ? " (Foreman)" : ""}` : "free" }, w ? (w.foreman ? "F" : "■") : "");
      })));
    const jade = h("div.jade", { "aria-label": "the jade houses" }, h("strong", {}, "Jade houses "),
      (view.jade_spots ?? []).map((j, i) => h("span.jade-spot", { "data-pick": `jade:${i}`, "data-key": `jade:${i}`, class: j.jade ? "full" : "empty",
        "aria-label": `jade house ${i + 1}: cost ${j.cost}${j.jade ? "" : ", empty"}` }, j.jade ? `◆ ${j.cost}` : `· ${j.cost}`)));
    const decrees = h("div.decrees", {}, (view.decrees ?? []).map((d) => h("div.decree", { "data-pick": `decree:${d.id}`, "data-key": `decree:${d.id}`,
      "aria-label": `decree ${d.id}, level ${d.level}, cost ${d.cost}: ${decreeText(d.id)}` },
    h("strong", {}, `${d.id} · L${d.level} · cost ${d.cost}`), h("span.decree-text", {}, decreeText(d.id)),
    h("span", {}, d.servants.map((s) => h("span.cube", { style: `background: ${SEAT_COLOURS[s]}`, title: who(s, ctx) }))))));
    const whose = ctx.mode === "replay" ? `${seatLabel(ctx.seat, ctx.names)}'s` : "Your";
    const hand = me?.hand ? h("div.panel", {}, h("h3", {}, `${whose} hand`),
      h("div.hand", { "aria-label": "your hand" }, me.hand.length ? me.hand.map((c) => giftCard(c, { "data-pick": `card:${c.id}` })) : h("span.muted", {}, "empty")),
      me.discard?.length ? [h("h3", { style: "margin-top: .5rem" }, `${whose} gifts (discard pile)`),
        h("div.hand.small", {}, me.discard.map((c) => giftCard(c, { "data-pick": `card:${c.id}` })))] : null) : null;
    const bd = view.breakdown;
    const end = bd ? h("div.panel", { id: "breakdown" }, h("h3", {}, "Final scoring"),
      bd.nobody_arrived ? h("p.why", {}, "Nobody reached the Palace: nobody wins and every score is 0.") : null,
      finalTable(bd, ctx)) : null;
    root.replaceChildren(h("div.gugong", {},
      h("div.panel", {}, info, prompt, h("div.players", {}, view.players.map((p) => playerArea(p, view, ctx)))),
      hand,
      h("div.panel", {}, h("h3", {}, "Locations"), locations),
      h("div.panel", {}, tracksSvg(view, ctx), wall, jade),
      h("div.panel", {}, h("h3", {}, "Grand Canal"), canal(view, ctx)),
      h("div.panel", {}, h("h3", {}, "Decrees"), decrees),
      h("div.panel.map-panel", {}, h("h3", {}, "Travel map"), mapSvg(view, ctx)),
      end));
  },
};
