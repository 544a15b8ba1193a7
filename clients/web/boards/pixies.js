// The Pixies board: the market, every seat's 3×3 area, the round scores. A move is the card
// taken from the market, then (when the card pairs up) which card stays face up, then (when it
// goes face down) the empty cell of your area.
import { h, seatLabel } from "../render.js";

let CARDS = {};

const COLOUR_NAME = { blue: "blue", green: "green", yellow: "yellow", red: "red", multicolour: "joker" };

function describe(id) {
  const c = CARDS[id];
  if (!c) return id;
  return `${c.number} ${COLOUR_NAME[c.colour] ?? c.colour}` +
    (c.spirals ? `, ${c.spirals} spirals` : "") + (c.crosses ? `, ${c.crosses} crosses` : "") +
    (c.condition?.colour ? `, +1 per visible ${c.condition.colour} card` : "");
}

/** One card, face up: colour, number, spirals (✦), crosses (✕), condition (★ colour). */
export function pixiesCard(id, attrs = {}) {
  const c = CARDS[id];
  if (!c) return h("div.card", { ...attrs, title: id, "aria-label": id }, h("span.n", {}, "?"), h("span.id", {}, id));
  const marks = [];
  if (c.spirals) marks.push(h("span.sp", { title: `${c.spirals} spirals: +${c.spirals}` }, `✦${c.spirals}`));
  if (c.crosses) marks.push(h("span.cr", { title: `${c.crosses} crosses: −${c.crosses}` }, ` ✕${c.crosses}`));
  const cond = c.condition?.colour;
  if (cond) marks.push(h("span.cond", { title: `+1 per visible ${cond} card`, style: `color: var(--${cond}-ink)` }, `★${cond[0].toUpperCase()}`));
  return h(`div.card.c-${c.colour}`, { title: `${id}: ${describe(id)}`, "aria-label": `${id}: ${describe(id)}`, "data-card": id, ...attrs },
    h("span.n", {}, String(c.number)), h("span.id", {}, id), h("span.marks", {}, marks));
}

function cell(c, index, mine, seat) {
  const no = index + 1;
  const attrs = { "data-cell": no, "data-key": `cell:${seat}:${no}` };
  if (c.card && c.face_down) return h("div.cell.validated", attrs, pixiesCard(c.card, { class: "pair" }));
  if (c.card) return h("div.cell.up", attrs, pixiesCard(c.card));
  if (c.face_down) return h("div.cell.down", attrs, h("div.card.back", { title: "a face-down card" }, "PIXIES"));
  return h("div.cell.empty", { ...attrs, "data-pick": mine ? `cell:${no}` : null, "aria-label": `empty cell ${no}` },
    h("span.cell-no", {}, String(no)));
}

export default {
  setReference(reference) {
    CARDS = Object.fromEntries((reference?.cards ?? []).map((c) => [c.id, c]));
  },

  path(cmd) {
    const out = [`card:${cmd.card}`];
    if (cmd.keep) out.push(`keep:${cmd.keep}`);
    if (cmd.target_cell) out.push(`cell:${cmd.target_cell}`);
    return out;
  },

  tokenLabel(token) {
    const [kind, v] = token.split(":");
    if (kind === "card") return `Take ${v} (${describe(v)})`;
    if (kind === "keep") return v === "new" ? "keep the new card face up" : "keep the card already there face up";
    if (kind === "cell") return `face down in cell ${v}`;
    return token;
  },

  render(root, ctx) {
    const { view, names, seat } = ctx;
    const youLabel = ctx.mode === "replay" ? "viewpoint" : "you";
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
      (view.market ?? []).map((id) => pixiesCard(id, { "data-pick": `card:${id}` })));
    const totals = view.totals ?? [];
    const areas = h("div.areas", {}, (view.areas ?? []).map((area, s) =>
      h(`section.area${view.to_act === s ? ".acting" : ""}`, { "data-seat": s, "aria-label": `area of ${seatLabel(s, names)}` },
        h("h3", {}, seatLabel(s, names),
          s === seat ? h("span.badge.you", {}, youLabel) : null,
          view.to_act === s ? h("span.badge.turn", {}, "to pick") : null,
          h("span.grow"), h("span.muted", {}, "total ", h("strong.total", {}, String(totals[s] ?? 0)))),
        h("div.grid3", {}, area.map((c, i) => cell(c, i, s === seat && ctx.mode === "play", s))))));
    const rounds = view.round_scores ?? [];
    const keys = ["validated", "spirals", "crosses", "zone", "multiplier", "total"];
    const scores = rounds.length === 0 ? null : h("div.panel", {}, h("h3", {}, "Round scores"),
      h("div.scroll-x", {}, h("table.scores", {},
        h("thead", {}, h("tr", {}, h("th", {}, "Round"), h("th", {}, "Player"), keys.map((k) => h("th.num", {}, k)))),
        h("tbody", {}, rounds.flatMap((perSeat, r) => perSeat.map((sc, s) => h("tr", {},
          h("td", {}, s === 0 ? String(r + 1) : ""), h("td", {}, seatLabel(s, names)),
          keys.map((k) => h("td.num", {}, String(sc[k] ?? ""))))))))));
    root.replaceChildren(h("div.pixies", {},
      h("div.panel", {}, info, h("h3", {}, "Market"), market),
      h("div.panel", {}, h("h3", {}, `Areas (${players} players)`), areas),
      scores));
  },
};
