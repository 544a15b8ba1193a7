// Rendering helpers of the web client: a generic, readable rendering of any game's view as
// nested panels, the status panel, and a proper board for Pixies. Pure DOM building; no state.

// Pixies card faces by id, from the server's reference data (GET /api/matches/{id}/reference):
// a view carries only card ids.
let PIXIES_CARDS = {};

/** Learn the card faces from the game's reference data ({cards: [{id, number, colour, ...}]}). */
export function usePixiesReference(reference) {
  PIXIES_CARDS = Object.fromEntries((reference?.cards ?? []).map((c) => [c.id, c]));
}

/** Build an element: h("div.card.c-blue", {title: "x", onclick}, child, "text", ...). */
export function h(tag, attrs = {}, ...children) {
  const [name, ...classes] = tag.split(".");
  const el = document.createElement(name || "div");
  if (classes.length) el.className = classes.join(" ");
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v);
    else if (k === "class") el.className += (el.className ? " " : "") + v;
    else if (k === "dataset") Object.assign(el.dataset, v);
    else if (v === true) el.setAttribute(k, "");
    else el.setAttribute(k, String(v));
  }
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

/** Replace `el`'s children; null, undefined and false are skipped (DOM would print "null"). */
export function fill(el, ...children) {
  el.replaceChildren(...children.flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false));
  return el;
}

export const humanize = (key) => String(key).replace(/_/g, " ");

export function seatLabel(seat, names) {
  if (seat === null || seat === undefined) return "system";
  const name = names?.[seat];
  return name ? `${name} (seat ${seat})` : `Seat ${seat}`;
}

// -- generic view -------------------------------------------------------------------------------

const isMap = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
const isScalar = (v) => v === null || typeof v !== "object";

function scalar(v) {
  if (v === null) return h("span.v-null", {}, "—");
  if (typeof v === "boolean") return h(`span.v-bool-${v}`, {}, v ? "yes" : "no");
  if (typeof v === "number") return h("span.v-num", {}, String(v));
  return h("span.v-str", {}, String(v));
}

function compactJson(v) {
  const s = JSON.stringify(v);
  return s.length > 80 ? s.slice(0, 77) + "…" : s;
}

function node(value, depth) {
  if (isScalar(value)) return scalar(value);
  if (Array.isArray(value)) {
    if (value.length === 0) return h("span.v-null", {}, "none");
    if (value.every(isScalar)) return h("span.chips", {}, value.map((v) => h("span.chip", {}, scalar(v))));
    if (value.every((v) => Array.isArray(v) && v.every(isScalar) && v.length <= 4)) {
      return h("span.chips", {}, value.map((v) => h("span.chip.mono", {}, compactJson(v))));
    }
    return h("div.grid", {}, value.map((v, i) => panel(`#${i}`, v, depth + 1)));
  }
  const keys = Object.keys(value);
  if (keys.length === 0) return h("span.v-null", {}, "empty");
  const simple = keys.filter((k) => isScalar(value[k]) || (Array.isArray(value[k]) && value[k].every(isScalar)));
  const nested = keys.filter((k) => !simple.includes(k));
  return h("div", {},
    simple.length ? h("div.facts", {}, simple.map((k) => [h("span.k", {}, humanize(k)), h("span", {}, node(value[k], depth + 1))])) : null,
    nested.map((k) => panel(humanize(k), value[k], depth + 1)));
}

function panel(title, value, depth) {
  if (isScalar(value) || (Array.isArray(value) && value.every(isScalar))) {
    return h("div.facts", {}, h("span.k", {}, title), h("span", {}, node(value, depth)));
  }
  const size = Array.isArray(value) ? ` [${value.length}]` : "";
  return h("details", { open: depth < 3 }, h("summary", {}, title + size), h("div.body", {}, node(value, depth)));
}

/** Any game's view as nested panels: scalars as facts, maps and lists as collapsible panels. */
export function renderGeneric(view) {
  return h("div.tree", {}, node(view, 0));
}

// -- status ---------------------------------------------------------------------------------------

/** Phase, who is to act, and at the end the scores, ranking and winners. */
export function renderStatus(status, { names = [], mySeat = null, players = 0 } = {}) {
  const toAct = status.to_act ?? [];
  const line = h("div.status-line", {},
    h("span", {}, "Phase: ", h("strong.phase", {}, humanize(status.phase ?? "?"))),
    status.finished
      ? h("span.badge.finished", {}, "finished")
      : h("span.to-act", {}, "To act: ", toAct.length ? toAct.map((s) => seatLabel(s, names)).join(", ") : "nobody"),
    mySeat !== null && toAct.includes(mySeat) && !status.finished ? h("span.your-turn", {}, "Your turn!") : null);
  const result = status.result;
  if (!result) return h("div.status", {}, line);
  const scores = result.scores ?? [];
  const rank = new Map();
  (result.ranking ?? []).forEach((seat, i) => rank.set(seat, i + 1));
  const winners = new Set(result.winners ?? []);
  const seats = [...Array(Math.max(players, scores.length)).keys()].sort((a, b) => (rank.get(a) ?? 99) - (rank.get(b) ?? 99));
  return h("div.status", {}, line,
    h("table.result", { "aria-label": "final scores" },
      h("thead", {}, h("tr", {}, h("th", {}, "Player"), h("th.num", {}, "Score"), h("th.num", {}, "Order"), h("th", {}, ""))),
      h("tbody", {}, seats.map((s) => h("tr", { "data-seat": s, class: winners.has(s) ? "winner" : null },
        h("td", { class: winners.has(s) ? "win" : null }, seatLabel(s, names), s === mySeat ? " — you" : ""),
        h("td.num.score", {}, String(scores[s] ?? "—")),
        h("td.num", {}, String(rank.get(s) ?? "—")),
        h("td", {}, winners.has(s) ? h("span.badge.turn", {}, "winner") : ""))))));
}

// -- moves ---------------------------------------------------------------------------------------

/** A command as a short sentence: "take card B07 · keep new". */
export function moveLabel(cmd, game) {
  if (game === "pixies" && cmd.type === "take_card") {
    const c = PIXIES_CARDS[cmd.card];
    let s = `Take ${cmd.card}` + (c ? ` (${c.number} ${c.colour})` : "");
    if (cmd.keep) s += cmd.keep === "new" ? " · keep it face up" : " · keep the old card up";
    if (cmd.target_cell) s += ` · face down in cell ${cmd.target_cell}`;
    return s;
  }
  const rest = Object.entries(cmd).filter(([k]) => k !== "type")
    .map(([k, v]) => `${humanize(k)} ${typeof v === "string" ? v : compactJson(v)}`);
  return [humanize(cmd.type), ...rest].join(" · ");
}

// -- Pixies ---------------------------------------------------------------------------------------

const COLOUR_NAME = { blue: "blue", green: "green", yellow: "yellow", red: "red", multicolour: "joker" };

/** One card, face up: colour, number, spirals (✦), crosses (✕), condition (★ colour). */
export function pixiesCard(id, attrs = {}) {
  const c = PIXIES_CARDS[id];
  if (!c) return h("div.card", { ...attrs, title: id }, h("span.n", {}, "?"), h("span.id", {}, id));
  const marks = [];
  if (c.spirals) marks.push(h("span.sp", { title: `${c.spirals} spirals: +${c.spirals}` }, `✦${c.spirals}`));
  if (c.crosses) marks.push(h("span.cr", { title: `${c.crosses} crosses: −${c.crosses}` }, ` ✕${c.crosses}`));
  const cond = c.condition?.colour;
  if (cond) marks.push(h("span.cond", { title: `+1 per visible ${cond} card`, style: `color: var(--${cond})` }, `★${cond[0].toUpperCase()}`));
  const title = `${id}: ${c.number} ${COLOUR_NAME[c.colour]}` +
    (c.spirals ? `, ${c.spirals} spirals` : "") + (c.crosses ? `, ${c.crosses} crosses` : "") +
    (cond ? `, +1 per visible ${cond} card` : "");
  return h(`div.card.c-${c.colour}`, { title, "data-card": id, ...attrs },
    h("span.n", {}, String(c.number)), h("span.id", {}, id), h("span.marks", {}, marks));
}

function pixiesCell(cell, index, target = null, onTarget = null) {
  if (target && onTarget) {
    return h("div.cell.empty.target", {
      "data-cell": index + 1, role: "button", tabindex: 0, title: `put ${target.card} face down here`,
      onclick: () => onTarget(target),
      onkeydown: (ev) => { if (ev.key === "Enter" || ev.key === " ") onTarget(target); },
    }, h("span.cell-no", {}, String(index + 1)));
  }
  if (cell.card && cell.face_down) return h("div.cell.validated", { "data-cell": index + 1 }, pixiesCard(cell.card, { class: "pair" }));
  if (cell.card) return h("div.cell.up", { "data-cell": index + 1 }, pixiesCard(cell.card));
  if (cell.face_down) return h("div.cell.down", { "data-cell": index + 1 }, h("div.card.back", { title: "a face-down card" }, "PIXIES"));
  return h("div.cell.empty", { "data-cell": index + 1 }, h("span.cell-no", {}, String(index + 1)));
}

/**
 * The Pixies table: info, market (cards clickable via `onCard` when the seat may take one),
 * every seat's 3×3 area (the empty cells a selected card may go to face down are clickable
 * via `onTarget`: `targets` maps cell number -> move), and the round scores.
 */
export function renderPixies(view, { names = [], mySeat = null, selected = null, onCard = null, playable = new Set(), youLabel = "you", targets = new Map(), onTarget = null } = {}) {
  const players = view.players ?? (view.areas ?? []).length;
  const order = (view.pick_order ?? []).map((s, i) => h(i === view.picks_made && view.to_act !== null ? "strong" : "span", {}, i ? " → " : "", seatLabel(s, names)));
  const info = h("div.table-info", {},
    h("span", {}, "Round ", h("strong", {}, `${view.round ?? 0}`), " of 3"),
    h("span", {}, "Turn ", h("strong", {}, `${view.turn ?? 0}`)),
    h("span", {}, "Deck ", h("strong", {}, `${view.deck_count ?? 0}`), " cards"),
    view.last_turn ? h("span.badge.live", {}, "last turn of the round") : null,
    order.length ? h("span", {}, "Picks: ", order) : null);
  const market = h("div.market", { "aria-label": "market" },
    (view.market ?? []).length === 0 ? h("span.muted", {}, "The market is empty.") : null,
    (view.market ?? []).map((id) => {
      const can = onCard && playable.has(id);
      return pixiesCard(id, {
        class: [can ? "clickable" : "", selected === id ? "selected" : ""].join(" ").trim() || null,
        role: can ? "button" : null, tabindex: can ? 0 : null,
        onclick: can ? () => onCard(id) : null,
        onkeydown: can ? (ev) => { if (ev.key === "Enter" || ev.key === " ") onCard(id); } : null,
      });
    }));
  const totals = view.totals ?? [];
  const areas = h("div.areas", {}, (view.areas ?? []).map((area, seat) =>
    h(`section.area${view.to_act === seat ? ".acting" : ""}`, { "data-seat": seat, "aria-label": `area of ${seatLabel(seat, names)}` },
      h("h3", {}, seatLabel(seat, names),
        seat === mySeat ? h("span.badge.you", {}, youLabel) : null,
        view.to_act === seat ? h("span.badge.turn", {}, "to pick") : null,
        h("span.grow"), h("span.muted", {}, "total ", h("strong.total", {}, String(totals[seat] ?? 0)))),
      h("div.grid3", {}, area.map((cell, i) => pixiesCell(cell, i, seat === mySeat ? targets.get(i + 1) : null, onTarget))))));
  const rounds = view.round_scores ?? [];
  const scores = rounds.length === 0 ? null : h("div.panel", {}, h("h3", {}, "Round scores"),
    h("table.scores", {},
      h("thead", {}, h("tr", {}, h("th", {}, "Round"), h("th", {}, "Player"), ["validated", "spirals", "crosses", "zone", "multiplier", "total"].map((k) => h("th.num", {}, k)))),
      h("tbody", {}, rounds.flatMap((perSeat, r) => perSeat.map((sc, seat) => h("tr", {},
        h("td", {}, seat === 0 ? String(r + 1) : ""), h("td", {}, seatLabel(seat, names)),
        ["validated", "spirals", "crosses", "zone", "multiplier", "total"].map((k) => h("td.num", {}, String(sc[k] ?? "")))))))));
  return h("div.pixies", {},
    h("div.panel", {}, info, h("h3", {}, "Market"), market),
    h("div.panel", {}, h("h3", {}, `Areas (${players} players)`), areas),
    scores);
}
