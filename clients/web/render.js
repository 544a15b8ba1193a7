// Rendering helpers of the web client: building elements, a generic, readable rendering of any
// game's view as nested panels, the status panel. Pure DOM building; no state. Each game's board
// lives in boards/<game>.js.
import { list, t, tOr } from "./i18n.js";

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
  if (seat === null || seat === undefined) return t("seat.system");
  const name = names?.[seat];
  return name ? t("seat.named", { name, seat }) : t("common.seat", { seat });
}

// -- generic view -------------------------------------------------------------------------------

const isMap = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
const isScalar = (v) => v === null || typeof v !== "object";

function scalar(v) {
  if (v === null) return h("span.v-null", {}, "—");
  if (typeof v === "boolean") return h(`span.v-bool-${v}`, {}, v ? t("common.yes") : t("common.no"));
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
    if (value.length === 0) return h("span.v-null", {}, t("common.none"));
    if (value.every(isScalar)) return h("span.chips", {}, value.map((v) => h("span.chip", {}, scalar(v))));
    if (value.every((v) => Array.isArray(v) && v.every(isScalar) && v.length <= 4)) {
      return h("span.chips", {}, value.map((v) => h("span.chip.mono", {}, compactJson(v))));
    }
    return h("div.grid", {}, value.map((v, i) => panel(`#${i}`, v, depth + 1)));
  }
  const keys = Object.keys(value);
  if (keys.length === 0) return h("span.v-null", {}, t("common.empty"));
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

/** A phase's name in the reader's language when the catalogue has it, else its words. */
function phaseName(phase) {
  return tOr(`phase.${phase}`, {}, humanize(phase));
}

/** Phase, who is to act, and at the end the scores, ranking and winners. */
export function renderStatus(status, { names = [], mySeat = null, players = 0 } = {}) {
  const toAct = status.to_act ?? [];
  const line = h("div.status-line", {},
    h("span", {}, t("status.phase"), h("strong.phase", {}, phaseName(status.phase ?? "?"))),
    status.finished
      ? h("span.badge.finished", {}, t("state.finished"))
      : h("span.to-act", {}, t("status.to_act"), toAct.length ? list(toAct.map((s) => seatLabel(s, names))) : t("common.nobody")),
    mySeat !== null && toAct.includes(mySeat) && !status.finished ? h("span.your-turn", {}, t("status.your_turn")) : null);
  const result = status.result;
  if (!result) return h("div.status", {}, line);
  const scores = result.scores ?? [];
  const rank = new Map();
  (result.ranking ?? []).forEach((seat, i) => rank.set(seat, i + 1));
  const winners = new Set(result.winners ?? []);
  const seats = [...Array(Math.max(players, scores.length)).keys()].sort((a, b) => (rank.get(a) ?? 99) - (rank.get(b) ?? 99));
  return h("div.status", {}, line,
    h("table.result", { "aria-label": t("result.label") },
      h("thead", {}, h("tr", {}, h("th", {}, t("result.player")), h("th.num", {}, t("result.score")), h("th.num", {}, t("result.order")), h("th", {}, ""))),
      h("tbody", {}, seats.map((s) => h("tr", { "data-seat": s, class: winners.has(s) ? "winner" : null },
        h("td", { class: winners.has(s) ? "win" : null }, seatLabel(s, names), s === mySeat ? t("result.you") : ""),
        h("td.num.score", {}, String(scores[s] ?? "—")),
        h("td.num", {}, String(rank.get(s) ?? "—")),
        h("td", {}, winners.has(s) ? h("span.badge.turn", {}, t("result.winner")) : ""))))));
}

// -- moves ---------------------------------------------------------------------------------------

/** A command as a short sentence: "take card B07 · keep new". */
export function moveLabel(cmd, game) {
  const rest = Object.entries(cmd).filter(([k]) => k !== "type")
    .map(([k, v]) => `${humanize(k)} ${typeof v === "string" ? v : compactJson(v)}`);
  return [humanize(cmd.type), ...rest].join(" · ");
}

// -- SVG --------------------------------------------------------------------------------------------

const SVG_NS = "http://www.w3.org/2000/svg";

/** Build an SVG element: svg("circle", {cx: 5, cy: 5, r: 3, "data-pick": "x"}, children...). */
export function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, String(v));
  }
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

/** The colours of the seats' pieces on every board, seat 0 first: every pair stays apart for
 * readers with protanopia, deuteranopia or tritanopia too (tests/web/test_seat_palette.py
 * simulates each and measures CIEDE2000), and none is pale enough to vanish on a light map. */
export const SEAT_COLOURS = ["#1f4e9c", "#e69f00", "#56b4e9", "#7a4b00", "#222222"];
/** The ink drawn on each seat's colour (contrast 4.5:1 or more). */
export const SEAT_INK = ["#fff", "#222", "#222", "#fff", "#fff"];
/** Each seat's mark, drawn on its colour where there is room: a shape tells seats apart
 * without any colour at all. */
export const SEAT_MARKS = ["●", "▲", "■", "◆", "★"];

/** A small swatch of a seat's colour with its mark, for legends and player panels. */
export function seatSwatch(seat) {
  const i = seat % SEAT_COLOURS.length;
  return h("span.swatch.seat-mark", { style: `background: ${SEAT_COLOURS[i]}; color: ${SEAT_INK[i]}`, "aria-hidden": "true" }, SEAT_MARKS[i]);
}
