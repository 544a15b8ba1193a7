// The Pixies board: the market, every seat's 3×3 area, the round scores. A move is the card
// taken from the market, then (when the card pairs up) which card stays face up, then (when it
// goes face down) the empty cell of your area.
import { t } from "../i18n.js";
import { h, seatLabel } from "../render.js";

let CARDS = {};

const colour = (c) => t(`pixies.colour.${c}`);

function describe(id) {
  const c = CARDS[id];
  if (!c) return id;
  return t("pixies.card_long", { number: c.number, colour: colour(c.colour), spirals: c.spirals ?? 0, crosses: c.crosses ?? 0,
    has_condition: c.condition?.colour ? 1 : 0, condition: c.condition?.colour ? colour(c.condition.colour) : "" });
}

/** A card's short name in the reader's language ("Blue 4"), for the server's sentences: from
 * its id, or from the face a sentence's parameters give (SPEC 3.14). */
function cardName(card) {
  const c = typeof card === "string" ? CARDS[card] : card;
  return c?.colour ? t("pixies.card_name", { number: c.number, colour: colour(c.colour) }) : String(card);
}

/** One card, face up: colour, number, spirals (✦), crosses (✕), condition (★ colour). */
export function pixiesCard(id, attrs = {}) {
  const c = CARDS[id];
  if (!c) return h("div.card", { ...attrs, title: id, "aria-label": id }, h("span.n", {}, "?"), h("span.id", {}, id));
  const marks = [];
  if (c.spirals) marks.push(h("span.sp", { title: t("pixies.spirals_title", { count: c.spirals }) }, `✦${c.spirals}`));
  if (c.crosses) marks.push(h("span.cr", { title: t("pixies.crosses_title", { count: c.crosses }) }, ` ✕${c.crosses}`));
  const cond = c.condition?.colour;
  if (cond) marks.push(h("span.cond", { title: t("pixies.condition_title", { colour: colour(cond) }), style: `color: var(--${cond}-ink)` }, `★${cond[0].toUpperCase()}`));
  return h(`div.card.c-${c.colour}`, { title: `${id}: ${describe(id)}`, "aria-label": `${id}: ${describe(id)}`, "data-card": id, ...attrs },
    h("span.n", {}, String(c.number)), h("span.id", {}, id), h("span.marks", {}, marks));
}

function cell(c, index, mine, seat) {
  const no = index + 1;
  const attrs = { "data-cell": no, "data-key": `cell:${seat}:${no}` };
  if (c.card && c.face_down) return h("div.cell.validated", attrs, pixiesCard(c.card, { class: "pair" }));
  if (c.card) return h("div.cell.up", attrs, pixiesCard(c.card));
  if (c.face_down) return h("div.cell.down", attrs, h("div.card.back", { title: t("pixies.face_down") }, "PIXIES"));
  return h("div.cell.empty", { ...attrs, "data-pick": mine ? `cell:${no}` : null, "aria-label": t("pixies.empty_cell", { cell: no }) },
    h("span.cell-no", {}, String(no)));
}

export default {
  setReference(reference) {
    CARDS = Object.fromEntries((reference?.cards ?? []).map((c) => [c.id, c]));
  },

  cardName,

  path(cmd) {
    const out = [`card:${cmd.card}`];
    if (cmd.keep) out.push(`keep:${cmd.keep}`);
    if (cmd.target_cell) out.push(`cell:${cmd.target_cell}`);
    return out;
  },

  tokenLabel(token) {
    const [kind, v] = token.split(":");
    if (kind === "card") return t("pixies.take", { card: v, long: describe(v) });
    if (kind === "keep") return v === "new" ? t("pixies.keep_new") : t("pixies.keep_existing");
    if (kind === "cell") return t("pixies.face_down_in", { cell: v });
    return token;
  },

  render(root, ctx) {
    const { view, names, seat } = ctx;
    const youLabel = ctx.mode === "replay" ? t("board.viewpoint") : t("common.you");
    const players = view.players ?? (view.areas ?? []).length;
    const order = (view.pick_order ?? []).map((s, i) => h(i === view.picks_made && view.to_act !== null ? "strong" : "span", {}, i ? " → " : "", seatLabel(s, names)));
    const info = h("div.table-info", {},
      h("span", {}, t("pixies.round", { round: view.round ?? 0 })),
      h("span", {}, t("pixies.turn", { turn: view.turn ?? 0 })),
      h("span", {}, t("pixies.deck", { count: view.deck_count ?? 0 })),
      view.last_turn ? h("span.badge.live", {}, t("pixies.last_turn")) : null,
      order.length ? h("span", {}, t("pixies.picks"), order) : null);
    const market = h("div.market", { "aria-label": t("pixies.market_label") },
      (view.market ?? []).length === 0 ? h("span.muted", {}, t("pixies.market_empty")) : null,
      (view.market ?? []).map((id) => pixiesCard(id, { "data-pick": `card:${id}` })));
    const totals = view.totals ?? [];
    const areas = h("div.areas", {}, (view.areas ?? []).map((area, s) =>
      h(`section.area${view.to_act === s ? ".acting" : ""}`, { "data-seat": s, "aria-label": t("pixies.area_of", { who: seatLabel(s, names) }) },
        h("h3", {}, seatLabel(s, names),
          s === seat ? h("span.badge.you", {}, youLabel) : null,
          view.to_act === s ? h("span.badge.turn", {}, t("pixies.to_pick")) : null,
          h("span.grow"), h("span.muted", {}, t("pixies.total"), h("strong.total", {}, String(totals[s] ?? 0)))),
        h("div.grid3", {}, area.map((c, i) => cell(c, i, s === seat && ctx.mode === "play", s))))));
    const rounds = view.round_scores ?? [];
    const keys = ["validated", "spirals", "crosses", "zone", "multiplier", "total"];
    const scores = rounds.length === 0 ? null : h("div.panel", {}, h("h3", {}, t("pixies.round_scores")),
      h("div.scroll-x", {}, h("table.scores", {},
        h("thead", {}, h("tr", {}, h("th", {}, t("pixies.col_round")), h("th", {}, t("result.player")), keys.map((k) => h("th.num", {}, t(`pixies.score.${k}`))))),
        h("tbody", {}, rounds.flatMap((perSeat, r) => perSeat.map((sc, s) => h("tr", {},
          h("td", {}, s === 0 ? String(r + 1) : ""), h("td", {}, seatLabel(s, names)),
          keys.map((k) => h("td.num", {}, String(sc[k] ?? ""))))))))));
    root.replaceChildren(h("div.pixies", {},
      h("div.panel", {}, info, h("h3", {}, t("pixies.market")), market),
      h("div.panel", {}, h("h3", {}, t("pixies.areas", { players })), areas),
      scores));
  },
};
