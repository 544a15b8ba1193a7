// The China board: nine provinces drawn from the reference map (house spaces, the dragon space
// for emissaries, the roads of the side in use, the 15 alliance numbers between neighbours),
// the display and deck, your hand as coloured cards, every player's supplies and score.
// A place is built card by card and piece by piece: a card (or the two cards of a joker pair),
// then the house space or the province's dragon space, then optionally a second payment and
// piece. An exchange is a hand card, "exchange", then the deck or a display card. A refill is
// the deck or a display card.
import { list, t } from "../i18n.js";
import { h, renderGeneric, SEAT_COLOURS, SEAT_INK, SEAT_MARKS, seatLabel, seatSwatch, svg } from "../render.js";

let MAP = null;

// dark enough for white text at 4.5:1 (yellow carries dark ink)
const CARD_BG = { red: "#b3261e", green: "#1e7a3a", yellow: "#e0b000", orange: "#a84f00", purple: "#7d4bb0" };
const PROVINCE_BG = { red: "#f6d5d0", green: "#d5ecd9", yellow: "#f8edc0", orange: "#f9dfc6", purple: "#e5d8f2" };

// A schematic layout (the printed board is unknown, see docs/games/china.md): province centres
// on a 960×680 board, placed so each alliance number sits between its two provinces.
const CENTRE = {
  qin: [130, 120], zhao: [480, 110], yan: [830, 120],
  han: [300, 340], wei: [570, 330], qi: [830, 340],
  shu: [130, 560], chu: [480, 570], yue: [830, 560],
};
const BOX_W = 210;
const BOX_H = 150;

const colourOf = (card) => String(card).split("-")[0];
const province = (id) => MAP?.provinces?.find((p) => p.id === id);
const provinceName = (id) => province(id)?.name ?? id;
const colourName = (c) => t(`china.colour.${c}`);
const who = (seat, ctx) => ctx.names[seat] || t("common.seat_lower", { seat });
const points = (per, ctx) => list((per ?? []).map((p, s) => t("china.plus_points", { who: who(s, ctx), points: p })));

function spaceXY(pid, index) {
  const [cx, cy] = CENTRE[pid] ?? [0, 0];
  const perRow = 4;
  const row = Math.floor(index / perRow);
  const col = index % perRow;
  return [cx - BOX_W / 2 + 28 + col * 40, cy - BOX_H / 2 + 58 + row * 42];
}

function allSpaces() {
  const out = {};
  for (const p of MAP?.provinces ?? []) p.house_spaces.forEach((s, i) => { out[s] = spaceXY(p.id, i); });
  return out;
}

function cardEl(id, attrs = {}) {
  const colour = colourOf(id);
  const provinces = list((MAP?.cards?.[colour]?.provinces ?? []).map(provinceName), "disjunction");
  return h(`div.ccard.cc-${colour}`, { style: `background: ${CARD_BG[colour] ?? "#888"}`, "data-card": id,
    "aria-label": t("china.card_label", { id, colour: colourName(colour), provinces }), title: t("china.card_title", { colour: colourName(colour), provinces }), ...attrs },
  h("span.cc-colour", {}, colourName(colour)), h("span.cc-for", {}, provinces), h("span.cc-id", {}, id));
}

function boardSvg(view, ctx) {
  const houses = view.houses ?? {};
  const spaces = allSpaces();
  const side = MAP?.sides?.[view.side] ?? {};
  const borders = (MAP?.alliance_positions ?? []).map((a) => {
    const [p, q] = a.between;
    const [x1, y1] = CENTRE[p];
    const [x2, y2] = CENTRE[q];
    return { ...a, x1, y1, x2, y2, mx: (x1 + x2) / 2, my: (y1 + y2) / 2 };
  });
  const layers = [];
  layers.push(svg("g", { class: "borders" }, borders.map((b) => svg("line", {
    x1: b.x1, y1: b.y1, x2: b.x2, y2: b.y2, stroke: "#b9ab95", "stroke-width": 3, "stroke-dasharray": "6 6" }))));
  for (const p of MAP?.provinces ?? []) {
    const [cx, cy] = CENTRE[p.id];
    const x = cx - BOX_W / 2;
    const y = cy - BOX_H / 2;
    const scored = view.scored?.[p.id];
    const envoys = view.emissaries?.[p.id] ?? [];
    const counts = Array(view.players ?? 0).fill(0);
    for (const s of p.house_spaces) if (houses[s] !== null && houses[s] !== undefined) counts[houses[s]] += 1;
    const label = t("china.province_label", { name: p.name, colour: colourName(p.colour), spaces: p.house_spaces.length, scored: scored ? 1 : 0,
      houses: list(counts.map((c, i) => t("china.who_count", { who: who(i, ctx), count: c }))), emissaries: envoys.reduce((a, b) => a + b, 0) });
    const dragonX = x + BOX_W - 46;
    const dragonY = y + 8;
    layers.push(svg("g", { class: "province", "data-key": `province:${p.id}`, "data-province": p.id },
      svg("title", {}, label),
      svg("rect", { x, y, width: BOX_W, height: BOX_H, rx: 14, fill: PROVINCE_BG[p.colour] ?? "#eee",
        stroke: CARD_BG[p.colour] ?? "#999", "stroke-width": scored ? 6 : 3, "aria-label": label, role: "img" }),
      svg("text", { x: x + 12, y: y + 24, "font-size": 19, "font-weight": 700, fill: "#23201c" }, p.name),
      svg("text", { x: x + 12, y: y + 42, "font-size": 12, fill: "#5a5148" }, t("china.province_sub", { colour: colourName(p.colour), spaces: p.house_spaces.length })),
      scored ? svg("g", { class: "scored-mark" },
        svg("rect", { x: x + 70, y: y + 8, width: 62, height: 20, rx: 10, fill: "#23201c" }),
        svg("text", { x: x + 101, y: y + 22, "font-size": 12, fill: "#fff", "text-anchor": "middle" }, t("china.scored_mark"))) : null,
      // the dragon space: the emissaries per seat
      svg("rect", { x: dragonX, y: dragonY, width: 38, height: BOX_H - 16, rx: 8, fill: "#fffaf0", stroke: "#8a6d3b",
        "stroke-width": 2, "data-pick": `emissary:${p.id}`, "aria-label": t("china.dragon_label", { name: p.name, count: envoys.reduce((a, b) => a + b, 0) }) }),
      svg("text", { x: dragonX + 19, y: dragonY + 16, "font-size": 14, "text-anchor": "middle", "pointer-events": "none" }, "⚑"),
      envoys.flatMap((n, seat) => Array.from({ length: n }, () => seat)).map((seat, i) => svg("rect", {
        class: "emissary", "data-seat": seat, x: dragonX + 6 + (i % 2) * 14, y: dragonY + 26 + Math.floor(i / 2) * 16, width: 12, height: 13, rx: 2,
        fill: SEAT_COLOURS[seat], stroke: "#23201c", "stroke-width": 1, "pointer-events": "none" }))));
  }
  // the roads of the side in use, between house spaces (also across borders)
  layers.push(svg("g", { class: "roads", "pointer-events": "none" }, (side.roads ?? []).flatMap((r) => r.path.slice(1).map((s, i) => {
    const a = spaces[r.path[i]];
    const b = spaces[s];
    return a && b ? svg("line", { x1: a[0], y1: a[1], x2: b[0], y2: b[1], stroke: "#8a6d3b", "stroke-width": 4, "stroke-opacity": 0.45, "stroke-linecap": "round" }) : null;
  }))));
  for (const p of MAP?.provinces ?? []) {
    p.house_spaces.forEach((s, i) => {
      const [sx, sy] = spaceXY(p.id, i);
      const owner = houses[s];
      const has = owner !== null && owner !== undefined;
      layers.push(svg("g", { class: has ? "house" : "space", "data-space": s, "data-key": `space:${s}` },
        svg("circle", { cx: sx, cy: sy, r: 15, fill: has ? SEAT_COLOURS[owner] : "#fffdf8", stroke: has ? "#23201c" : "#9c8f7c",
          "stroke-width": 2, "data-pick": has ? null : `space:${s}`,
          "aria-label": has ? t("china.space_house", { name: p.name, space: i + 1, who: who(owner, ctx) }) : t("china.space_free", { name: p.name, space: i + 1 }) }),
        has ? svg("path", { d: `M${sx - 8} ${sy + 6} V${sy - 2} L${sx} ${sy - 9} L${sx + 8} ${sy - 2} V${sy + 6} Z`,
          fill: SEAT_INK[owner], "fill-opacity": 0.85, "pointer-events": "none" }) : null,
        // the owner's mark inside the house: seats told apart without colour
        has ? svg("text", { x: sx, y: sy + 4, "font-size": 9, "text-anchor": "middle", fill: SEAT_COLOURS[owner],
          "pointer-events": "none", "aria-hidden": "true" }, SEAT_MARKS[owner % SEAT_MARKS.length]) : null));
    });
  }
  layers.push(svg("g", { class: "alliances" }, borders.map((b) => svg("g", { class: "alliance", "data-alliance": b.number },
    svg("title", {}, t("china.alliance_title", { number: b.number, provinces: list(b.between.map(provinceName)) })),
    svg("circle", { cx: b.mx, cy: b.my, r: 15, fill: "#23201c" }),
    svg("text", { x: b.mx, y: b.my + 5, "font-size": 14, "font-weight": 700, fill: "#fff", "text-anchor": "middle" }, String(b.number))))));
  return svg("svg", { class: "board china-map", viewBox: "0 0 960 680", role: "group", "aria-label": t("china.map_label", { side: view.side ?? "?" }) }, layers);
}

function players(view, ctx) {
  const n = view.players ?? 0;
  return h("div.players", {}, Array.from({ length: n }, (_, s) => h(`div.player${view.active === s ? ".acting" : ""}`, {
    "data-seat": s, "data-key": `player:${s}`, "aria-label": `${seatLabel(s, ctx.names)}` },
  h("div.player-name", {}, seatSwatch(s), h("strong", {}, seatLabel(s, ctx.names)),
    s === ctx.seat ? h("span.badge.you", {}, ctx.mode === "replay" ? t("board.viewpoint") : t("common.you")) : null,
    view.emperor === s ? h("span.badge", { title: t("china.emperor_title") }, t("china.emperor")) : null,
    view.active === s ? h("span.badge.turn", {}, view.phase === "refill" ? t("china.refilling") : t("board.to_act")) : null),
  h("div.player-facts", {},
    h("span", {}, t("china.fact.score"), h("strong.score", {}, String(view.scores?.[s] ?? 0))),
    h("span", {}, t("china.fact.houses"), h("strong", {}, String(view.supply?.[s]?.houses ?? 0))),
    h("span", {}, t("china.fact.emissaries"), h("strong", {}, String(view.supply?.[s]?.emissaries ?? 0))),
    h("span", {}, t("china.fact.hand"), h("strong", {}, String(view.hand_sizes?.[s] ?? 0)))),
  view.hands?.[s] ? h("div.hand.small", {}, view.hands[s].map((c) => cardEl(c))) : null)));
}

/** A card's name in the reader's language ("red 6"), for the server's sentences: from its id,
 * or from the face a sentence's parameters give (SPEC 3.14). */
function cardName(card) {
  const [colour, number] = typeof card === "object" && card ? [card.colour, card.number] : String(card).split("-");
  return colour && number !== undefined ? t("china.card_name", { colour: colourName(colour), number: Number(number) }) : String(card);
}

export default {
  setReference(reference) {
    MAP = reference?.map ?? null;
  },

  cardName,

  path(cmd) {
    if (cmd.type === "take") return [cmd.source === "deck" ? "deck" : `display:${cmd.slot}`];
    if (cmd.type === "exchange") return [`card:${cmd.card}`, "exchange", cmd.source === "deck" ? "deck" : `display:${cmd.slot}`];
    if (cmd.type === "pass") return ["pass"];
    if (cmd.type === "place") {
      return cmd.placements.flatMap((p) => [...p.cards.map((c) => `card:${c}`),
        p.piece === "house" ? `space:${p.space}` : `emissary:${cmd.province}`]);
    }
    return [`move:${JSON.stringify(cmd)}`];
  },

  tokenLabel(token, ctx) {
    const [kind, a] = token.split(":");
    if (kind === "card") return t("china.pick.card", { id: a, colour: colourName(colourOf(a)) });
    if (kind === "space") {
      const p = MAP?.provinces?.find((x) => x.house_spaces.includes(a));
      return p ? t("china.pick.space", { name: p.name, space: p.house_spaces.indexOf(a) + 1 }) : a;
    }
    if (kind === "emissary") return t("china.pick.emissary", { name: provinceName(a) });
    if (kind === "deck") return t("china.pick.deck");
    if (kind === "display") {
      const card = ctx?.view?.display?.[a];
      return card ? t("china.pick.display_card", { slot: Number(a) + 1, card }) : t("china.pick.display", { slot: Number(a) + 1 });
    }
    if (kind === "exchange") return t("china.pick.exchange");
    if (kind === "pass") return t("china.pick.pass");
    return token;
  },

  render(root, ctx) {
    const view = ctx.view ?? {};
    if (!MAP) {
      root.replaceChildren(h("div.panel", {}, renderGeneric(view)));
      return;
    }
    const phaseText = view.phase === "refill" ? t("china.phase.refill", { who: seatLabel(view.active, ctx.names), count: view.cards_to_take ?? 0 })
      : view.phase === "play" ? t("china.phase.play", { who: seatLabel(view.active, ctx.names) }) : view.phase;
    const info = h("div.table-info", {},
      h("span", {}, t("china.turn"), h("strong", {}, String(view.turn ?? 0))),
      h("span", {}, t("china.side"), h("strong", {}, view.side ?? "?")),
      h("span", {}, phaseText),
      view.end_triggered ? h("span.badge.live", {}, t("china.last_round")) : h("span.muted", {}, t("china.deck_pass", { pass: view.generation ?? 1 })));
    const display = h("div.display", { "aria-label": t("china.display_label") },
      h("div.deck", { "data-pick": "deck", "data-key": "deck", "aria-label": t("china.deck_label", { count: view.deck_size ?? 0 }), title: t("china.deck_title") },
        h("span", {}, t("china.deck")), h("strong", {}, String(view.deck_size ?? 0))),
      (view.display ?? []).map((c, slot) => c ? cardEl(c, { "data-pick": `display:${slot}`, "data-key": `display:${slot}` })
        : h("div.ccard.empty", { "data-key": `display:${slot}`, "aria-label": t("china.display_empty", { slot: slot + 1 }) }, t("common.empty"))),
      view.discard?.length ? h("div.discard", { title: t("china.discard_title") }, h("span.muted", {}, t("china.discard", { count: view.discard.length })), cardEl(view.discard.at(-1))) : null);
    const whose = ctx.mode === "replay" ? t("board.hand_of", { who: seatLabel(ctx.seat, ctx.names) }) : t("board.your_hand");
    const hand = view.hand ? h("div.panel.hand-panel", {}, h("h3", {}, whose),
      h("div.hand", { "aria-label": t("board.your_hand_label") }, view.hand.length ? view.hand.map((c) => cardEl(c, { "data-pick": `card:${c}` }))
        : h("span.muted", {}, t("board.no_cards")))) : null;
    const fin = view.final_scoring ? h("details.panel", { open: true, id: "final-scoring" }, h("summary", {}, t("board.final_scoring")),
      h("div.facts-table", {},
        h("p", {}, t("china.final.roads", { points: points(view.final_scoring.roads, ctx) })),
        h("p", {}, t("china.final.alliances", { points: points(view.final_scoring.alliances, ctx) })),
        (view.final_scoring.alliance_details ?? []).length ? h("ul", {}, view.final_scoring.alliance_details.map((a) =>
          h("li", {}, t("china.final.alliance", { number: a.number, provinces: a.between.map(provinceName).join("–"),
            winners: list(a.winners.map((w) => who(w, ctx))), points: a.points })))) : null,
        renderGeneric({ pieces_left: view.final_scoring.pieces_left, places: view.final_scoring.places }))) : null;
    root.replaceChildren(h("div.china", {},
      h("div.panel", {}, info, players(view, ctx)),
      hand,
      h("div.panel.map-panel", {}, boardSvg(view, ctx)),
      h("div.panel", {}, h("h3", {}, t("china.display")), display),
      fin));
  },
};
