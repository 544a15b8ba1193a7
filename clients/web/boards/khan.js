// The Khan board: the 13×13 map (landscapes, the river, bridges and conquest tiles, rulers,
// neutral and player yurts), the rulers' camps, every player's yurts, tiles, points and special
// cards, your hand as cards, the tile supply as shapes.
//
// A move is what a person points at, in order (path):
//   invade            card:<id> → cell:<r,c>
//   invade_of_choice  choice → cell:<r,c> → discard:<id>… (in hand order, any number)
//   drive_out         ruler:<id>
//   conquer           tile:<type> → cell:<the tile's first cell in reading order> → shape:<orientation>
//   play_special      special:<card> [→ region:<M…I>]
//   pass, consent:yes, consent:no
// Khan offers ~2,000 legal moves a turn (mostly invasions of choice): paths are plain string
// arrays and drawing reads only the picker's `next` set, never the move list.
import { list, t, tOr } from "../i18n.js";
import { h, seatLabel, SEAT_COLOURS, svg } from "../render.js";

const CELL = 40;
const PAD = 20; // room for the coordinates drawn along the top and the left
export const TERRAIN = { M: "#a39382", S: "#ecd48f", F: "#4f9a58", T: "#b9d3ae", K: "#c4ab8c", I: "#e6f2f7", R: "#4d8fd6" };
const ARROW = { N: "↑", NE: "↗", E: "→", SE: "↘", S: "↓", SW: "↙", W: "←", NW: "↖" };
const RULER_COLOUR = {
  russian: "#8ecae6", seljuk: "#8d8d8d", ruler_3: "#7b4fa0", ruler_4: "#e07a1f",
  ruler_5: "#d6559b", ruler_6: "#7a4a26", ruler_7: "#1f8a8a", ruler_8: "#7d8b2a",
};
/** A special card's name in the reader's language. */
const specialName = (card) => tOr(`khan.special.${card}`, {}, card);

let REF = { rows: [], regions: {}, tiles: {}, cards: {}, rulers: [] };
let cssLinked = false;

function linkCss() {
  if (cssLinked || typeof document === "undefined") return;
  cssLinked = true;
  document.head.append(h("link", { rel: "stylesheet", href: "/web/boards/khan.css" }));
}

const key = ([r, c]) => `${r},${c}`;
const parseCell = (s) => s.split(",").map(Number);

/** The cells of a placement moved so its bounding box starts at 0,0, sorted: one orientation. */
function normalise(cells) {
  const r0 = Math.min(...cells.map((c) => c[0]));
  const c0 = Math.min(...cells.map((c) => c[1]));
  return cells.map(([r, c]) => [r - r0, c - c0]).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
}
const shapeKey = (cells) => normalise(cells).map(key).join(";");
const firstCell = (cells) => [...cells].sort((a, b) => a[0] - b[0] || a[1] - b[1])[0];

/** The absolute cells of orientation `shape` placed with its first (reading-order) cell on `anchor`. */
function placeShape(shape, anchor) {
  const cells = shape.split(";").map(parseCell);
  const [fr, fc] = cells[0]; // sorted, so cells[0] is the first in reading order
  return cells.map(([r, c]) => [r - fr + anchor[0], c - fc + anchor[1]]);
}

/** A terrain's name in the reader's language (the catalogue's), else the reference's. */
function regionName(letter) {
  return tOr(`khan.terrain.${letter}`, {}, REF.regions[letter] ?? letter);
}

function backgroundName(bg) {
  if (bg === "RIVER") return t("khan.terrain.R");
  if (bg === "OUTER") return t("khan.bg.outer");
  if (bg === "KHAN") return t("khan.bg.khan");
  return regionName(bg);
}

function rulerName(id) {
  if (id === "russian" || id === "seljuk") return t(`khan.ruler.${id}`);
  const n = /^ruler_(\d+)$/.exec(id);
  return n ? t("khan.ruler.numbered", { n: Number(n[1]) }) : id;
}

function cardText(card) {
  if (!card) return t("khan.a_card");
  return t("khan.card_text", { ruler: rulerName(card.ruler), arrow: ARROW[card.direction] ?? "", direction: card.direction, background: backgroundName(card.background) });
}

const seatColour = (s) => SEAT_COLOURS[s % SEAT_COLOURS.length];

/** Points so far: every tile carrying a player's yurt counts its value for him (spec 6). */
function tilePoints(view) {
  const pts = Array(view.players ?? 0).fill(0);
  for (const t of view.tiles_placed ?? []) for (const s of t.owners ?? []) pts[s] += REF.tiles[t.tile]?.value ?? 0;
  return pts;
}

// -- drawing ------------------------------------------------------------------------------------

function yurt(cx, cy, fill, label) {
  return svg("g", { class: "k-yurt", "aria-hidden": "true" },
    svg("title", {}, label),
    svg("path", { d: `M${cx - 11},${cy + 7} L${cx - 11},${cy - 1} Q${cx},${cy - 14} ${cx + 11},${cy - 1} L${cx + 11},${cy + 7} Z`, fill, stroke: "#111", "stroke-width": 1.5 }));
}

function ownerFill(owners) {
  if (owners.length > 1) return `url(#k-own-${owners.join("-")})`;
  return owners.length ? seatColour(owners[0]) : "#f6ead0";
}

/** A column's letter: A for column 0 (the west), as on a chess board. */
const colLetter = (c) => (c < 26 ? String.fromCharCode(65 + c) : String(c + 1));

/** A cell's name as the server's sentences say it (service/games/khan/narrate.py): column
 * letter, then row number from 1 at the north; [8, 2] is C9. */
export const cellName = (r, c) => (c < 26 ? `${colLetter(c)}${r + 1}` : `${r + 1}/${c + 1}`);

/** A tile's outline: one path along the edges between its cells and the rest of the board. */
function outline(cells) {
  const inside = new Set(cells.map(key));
  const d = [];
  for (const [r, c] of cells) {
    const x = PAD + c * CELL;
    const y = PAD + r * CELL;
    if (!inside.has(key([r - 1, c]))) d.push(`M${x},${y}h${CELL}`);
    if (!inside.has(key([r + 1, c]))) d.push(`M${x},${y + CELL}h${CELL}`);
    if (!inside.has(key([r, c - 1]))) d.push(`M${x},${y}v${CELL}`);
    if (!inside.has(key([r, c + 1]))) d.push(`M${x + CELL},${y}v${CELL}`);
  }
  return d.join("");
}

function mapSvg(ctx) {
  const { view } = ctx;
  const rows = REF.rows;
  const n = rows.length || 13;
  const w = (rows[0]?.length ?? 13) * CELL + 2 * PAD;
  const hgt = n * CELL + 2 * PAD;
  const occupant = new Map();
  (view.neutral_yurts ?? []).forEach((c) => occupant.set(key(c), { kind: "neutral" }));
  (view.player_yurts ?? []).forEach((cells, s) => cells.forEach((c) => occupant.set(key(c), { kind: "yurt", seat: s })));
  const rulerAt = new Map(Object.entries(view.rulers ?? {}).filter(([, c]) => c).map(([id, c]) => [key(c), id]));
  const picked = ctx.picked ?? [];
  const next = ctx.next ?? new Set();

  // the placement being built: its cells are drawn as a preview
  let preview = [];
  const at = picked.indexOf(picked.find((p) => p.startsWith("tile:")));
  if (at >= 0 && picked[at + 2]?.startsWith("shape:")) preview = placeShape(picked[at + 2].slice(6), parseCell(picked[at + 1].slice(5)));
  const previewSet = new Set(preview.map(key));
  const consent = view.pending_consent;

  const cells = [];
  rows.forEach((row, r) => [...row].forEach((letter, c) => {
    if (letter === ".") return;
    const x = PAD + c * CELL;
    const y = PAD + r * CELL;
    const k = key([r, c]);
    const occ = occupant.get(k);
    const ruler = rulerAt.get(k);
    const where = { cell: cellName(r, c), terrain: regionName(letter) };
    const label = ruler ? t("khan.cell.ruler", { ...where, ruler: rulerName(ruler) }) : occ?.kind === "neutral" ? t("khan.cell.neutral", where)
      : occ?.kind === "yurt" ? t("khan.cell.yurt", { ...where, who: seatLabel(occ.seat, ctx.names) }) : t("khan.cell.free", where);
    const cellToken = `cell:${k}`;
    cells.push(svg("g", { "data-key": `cell:${k}`, class: previewSet.has(k) ? "k-preview" : null },
      svg("rect", {
        x, y, width: CELL, height: CELL, fill: TERRAIN[letter] ?? "#ccc", class: `k-cell k-${letter}`,
        "data-pick": cellToken, "aria-label": label,
        stroke: "#0003", "stroke-width": 1,
      }),
      occ?.kind === "neutral" ? yurt(x + CELL / 2, y + CELL / 2 + 3, "#1b1b1b", t("khan.neutral_yurt")) : null,
      occ?.kind === "yurt" ? yurt(x + CELL / 2, y + CELL / 2 + 3, seatColour(occ.seat), t("khan.yurt_of", { who: seatLabel(occ.seat, ctx.names) })) : null));
  }));

  const tiles = (view.tiles_placed ?? []).map((tp, i) => {
    const bridge = REF.tiles[tp.tile]?.kind === "bridge" || tp.tile.startsWith("B-");
    const [fr, fc] = firstCell(tp.cells);
    const marks = (tp.owners ?? []).map((s, j) => yurt(PAD + fc * CELL + 12 + j * 15, PAD + fr * CELL + 16, seatColour(s), t("khan.yurt_of", { who: seatLabel(s, ctx.names) })));
    return svg("g", { class: `k-tile${bridge ? " k-bridge" : ""}`, "data-key": `tile:${i}`, "aria-hidden": "true" },
      svg("title", {}, t("khan.tile_placed", { kind: t(bridge ? "khan.kind.bridge" : "khan.kind.tile"), id: tp.tile, points: REF.tiles[tp.tile]?.value ?? 0,
        owners: list((tp.owners ?? []).map((s) => seatLabel(s, ctx.names))) })),
      tp.cells.map(([r, c]) => svg("rect", { x: PAD + c * CELL + 1, y: PAD + r * CELL + 1, width: CELL - 2, height: CELL - 2, class: "k-tile-cell", fill: ownerFill(tp.owners ?? []) })),
      svg("path", { d: outline(tp.cells), class: "k-tile-edge" }),
      marks);
  });

  // a tile shared by several players is striped in their colours
  const shared = [...new Set((view.tiles_placed ?? []).filter((tp) => (tp.owners ?? []).length > 1).map((tp) => tp.owners.join("-")))];
  const defs = svg("defs", {}, shared.map((k) => {
    const owners = k.split("-").map(Number);
    const band = 8;
    return svg("pattern", { id: `k-own-${k}`, width: band * owners.length, height: band * owners.length, patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)" },
      owners.map((s, j) => svg("rect", { x: j * band, y: 0, width: band, height: band * owners.length, fill: seatColour(s) })));
  }));

  const consentLayer = consent ? svg("path", { d: outline(consent.cells), class: "k-consent", "aria-hidden": "true" }) : null;
  const previewLayer = preview.length ? svg("path", { d: outline(preview), class: "k-preview-edge", "aria-hidden": "true" }) : null;

  const rulers = Object.entries(view.rulers ?? {}).filter(([, c]) => c).map(([id, [r, c]]) => {
    const token = `ruler:${id}`;
    return svg("g", { "data-key": `ruler:${id}` },
      svg("circle", {
        cx: PAD + c * CELL + CELL / 2, cy: PAD + r * CELL + CELL / 2, r: CELL / 2 - 5,
        fill: RULER_COLOUR[id] ?? "#999", stroke: "#111", "stroke-width": 2, class: "k-ruler",
        "data-pick": token, "aria-label": t(next.has(token) ? "khan.ruler_at_drive" : "khan.ruler_at", { ruler: rulerName(id), cell: cellName(r, c) }),
      }),
      svg("text", { x: PAD + c * CELL + CELL / 2, y: PAD + r * CELL + CELL / 2 + 5, class: "k-ruler-text", "aria-hidden": "true" }, rulerInitials(id)));
  });

  // the coordinates, as the log, the move labels and docs/games/khan.md name a cell: A1 top left
  const cols = rows[0]?.length ?? 13;
  const coords = svg("g", { class: "k-coords", "aria-hidden": "true" },
    Array.from({ length: cols }, (_, c) => svg("text", { x: PAD + c * CELL + CELL / 2, y: PAD - 6, "text-anchor": "middle" }, colLetter(c))),
    Array.from({ length: n }, (_, r) => svg("text", { x: PAD - 4, y: PAD + r * CELL + CELL / 2 + 4, "text-anchor": "end" }, String(r + 1))));
  return svg("svg", { class: "board k-map", viewBox: `0 0 ${w} ${hgt}`, role: "group", "aria-label": t("khan.map_label") },
    defs, svg("rect", { x: 0, y: 0, width: w, height: hgt, fill: "#f3efe6" }),
    coords, cells, tiles, consentLayer, previewLayer, rulers);
}

function rulerInitials(id) {
  if (id === "russian") return "Ru";
  if (id === "seljuk") return "Se";
  return id.replace("ruler_", "R");
}

function cardEl(card, token, extra = {}) {
  const colour = card.background in TERRAIN ? TERRAIN[card.background] : card.background === "RIVER" ? TERRAIN.R : card.background === "KHAN" ? "#d4af37" : "#f3efe6";
  return h("div.k-card", {
    "data-pick": token, "data-card": card.id, "aria-label": t("khan.card_label", { card: cardText(card) }),
    title: `${card.id}: ${cardText(card)}`, ...extra,
  },
  h("span.k-card-bg", { style: `background: ${colour}` }, backgroundName(card.background)),
  h("span.k-card-ruler", {}, h("span.k-dot", { style: `background: ${RULER_COLOUR[card.ruler] ?? "#999"}` }), rulerName(card.ruler)),
  h("span.k-card-dir", {}, `${ARROW[card.direction] ?? ""} ${card.direction}`));
}

function tileShapeSvg(cells, size = 10) {
  const rows = Math.max(...cells.map((c) => c[0])) + 1;
  const cols = Math.max(...cells.map((c) => c[1])) + 1;
  return svg("svg", { class: "k-shape", viewBox: `0 0 ${cols * size + 2} ${rows * size + 2}`, width: cols * size + 2, height: rows * size + 2, "aria-hidden": "true" },
    cells.map(([r, c]) => svg("rect", { x: 1 + c * size, y: 1 + r * size, width: size - 1, height: size - 1 })));
}

function tileSupply(ctx) {
  const supply = ctx.view.tile_supply ?? {};
  return h("div.k-tiles", { "aria-label": t("khan.tile_supply") }, Object.entries(supply).map(([id, count]) => {
    const tile = REF.tiles[id];
    const label = t("khan.tile_type", { kind: t(tile?.kind === "bridge" ? "khan.kind.bridge" : "khan.kind.tile"), id, points: tile?.value ?? 0, count });
    return h(`div.k-tile-type${count ? "" : ".gone"}${tile?.kind === "bridge" ? ".bridge" : ""}`, { "data-pick": `tile:${id}`, "aria-label": label, title: label },
      tile ? tileShapeSvg(tile.cells) : null, h("span", {}, id), h("span.muted", {}, `×${count}`));
  }));
}

/** The orientations that may come next, drawn as small shapes to point at. */
function orientations(ctx) {
  const shapes = [...(ctx.next ?? [])].filter((tok) => tok.startsWith("shape:"));
  if (!shapes.length) return null;
  return h("div.k-orient", { role: "group", "aria-label": t("khan.orientations") },
    h("span", {}, t("khan.turn_the_tile")),
    shapes.map((tok, i) => h("div.k-orient-opt", { "data-pick": tok, "aria-label": t("khan.orientation", { n: i + 1, shape: khanBoard.tokenLabel(tok) }) },
      tileShapeSvg(tok.slice(6).split(";").map(parseCell), 12))));
}

function players(ctx) {
  const { view, names, seat } = ctx;
  const pts = tilePoints(view);
  const result = view.result;
  const next = ctx.next ?? new Set();
  return h("div.k-players", {}, [...Array(view.players ?? 0).keys()].map((s) => {
    const acting = (view.status?.to_act ?? []).includes(s);
    const specials = view.special_cards?.[s] ?? {};
    const active = (view.active_special_cards ?? []).filter((a) => a.seat === s);
    const mine = s === seat;
    return h(`section.k-player${acting ? ".acting" : ""}`, { "data-seat": s, "aria-label": t("khan.player_label", { who: seatLabel(s, names) }) },
      h("h3", {}, h("span.swatch", { style: `background: ${seatColour(s)}` }), seatLabel(s, names),
        mine ? h("span.badge.you", {}, ctx.mode === "replay" ? t("board.viewpoint") : t("common.you")) : null,
        acting ? h("span.badge.turn", {}, t("board.to_act")) : null),
      h("div.k-facts", {},
        h("span", {}, t("khan.fact.yurts"), h("strong", {}, String(view.player_yurts?.[s]?.length ?? 0))),
        h("span", {}, t("khan.fact.tiles"), h("strong", {}, String((view.tiles_placed ?? []).filter((tp) => tp.owners?.includes(s)).length))),
        h("span", {}, t("khan.fact.tile_points"), h("strong.k-points", {}, String(pts[s] ?? 0))),
        h("span", {}, t("khan.fact.hand"), h("strong", {}, String(view.hand_sizes?.[s] ?? 0)))),
      result ? h("div.k-final", {}, t("khan.final_score"), h("strong.k-score", { "data-seat": s }, String(result.scores?.[s] ?? "—")),
        t("khan.final_detail", { tiles: result.tile_points?.[s] ?? 0, areas: result.area_bonus?.[s] ?? 0, largest: result.largest_area?.[s] ?? 0 }),
        (result.winners ?? []).includes(s) ? h("span.badge.turn", {}, t("result.winner")) : null) : null,
      h("div.k-specials", {}, Object.entries(specials).map(([card, n]) => {
        const token = `special:${card}`;
        const usable = mine && next.has(token);
        return h("span.k-special", { "data-pick": mine ? token : null, "aria-label": t(usable ? "khan.special_left_play" : "khan.special_left", { card: specialName(card), count: n }) },
          `${specialName(card)} ×${n}`);
      }),
      active.map((a) => h("span.badge.live", {}, a.region ? t("khan.active_special_region", { card: specialName(a.card), region: regionName(a.region) })
        : t("khan.active_special", { card: specialName(a.card) })))));
  }));
}

function legend() {
  return h("div.k-legend", { "aria-label": t("khan.legend") },
    ["M", "S", "F", "T", "K", "I", "R"].map((l) => h("span", {},
      h("span.k-swatch", { style: `background: ${TERRAIN[l]}`, "aria-hidden": "true" }), regionName(l))));
}

function camps(view) {
  return h("div.k-camps", { "aria-label": t("khan.camps") }, Object.entries(view.camps ?? {}).map(([id, n]) => {
    const on = (view.rulers ?? {})[id];
    return h(`span.k-camp${on ? "" : ".gone"}`, { title: t(on ? "khan.camp_title" : "khan.camp_title_gone", { ruler: rulerName(id), count: n }) },
      h("span.k-dot", { style: `background: ${RULER_COLOUR[id] ?? "#999"}` }), rulerName(id), " ", h("strong", {}, `⌂${n}`), on ? "" : t("khan.gone"));
  }));
}

function turnInfo(ctx) {
  const { view, names } = ctx;
  const turn = view.turn ?? {};
  const status = view.status ?? ctx.status ?? {};
  const phase = status.phase ? tOr(`khan.phase.${status.phase}`, {}, status.phase) : null;
  return h("div.k-info", {},
    h("span", {}, t("khan.info.turn"), h("strong", {}, String(view.turn_no ?? 0)), view.current !== null && view.current !== undefined ? [" — ", seatLabel(view.current, names)] : null),
    h("span", {}, t("khan.info.step"), h("strong", {}, phase ?? "—")),
    turn.actions_left !== undefined ? h("span", {}, t("khan.info.actions_left"), h("strong", {}, String(turn.actions_left))) : null,
    h("span", {}, t("khan.info.rulers_gone"), h("strong", {}, `${(view.removed_rulers ?? []).length}/5`)),
    h("span", {}, t("khan.info.deck"), h("strong", {}, String(view.draw_pile_size ?? 0))),
    h("span", {}, t("khan.info.neutral_supply"), h("strong", {}, String(view.general_supply ?? 0))),
    view.discard_top ? h("span", {}, t("khan.info.discard_top"), h("strong", {}, cardText(view.discard_top))) : null,
    view.end_phase ? h("span.badge.live", {}, t("khan.phase.end_phase_badge")) : null,
    view.pending_consent ? h("span.badge.live", {}, t("khan.consent_asked", { who: seatLabel(view.pending_consent.ask?.[0] ?? view.pending_consent.seat, names) })) : null);
}

function hand(ctx) {
  const cards = ctx.view.hand;
  if (!cards) return null;
  const discarding = (ctx.picked ?? [])[0] === "choice";
  return h("div.panel.k-hand-panel", {},
    h("h3", {}, ctx.mode === "replay" ? t("khan.hand") : t("board.your_hand"), discarding ? h("span.muted", {}, t("khan.discard_hint")) : null),
    h("div.k-hand", {}, cards.length ? cards.map((c) => cardEl(c, discarding ? `discard:${c.id}` : `card:${c.id}`)) : h("span.muted", {}, t("board.no_cards"))));
}

// -- the module ---------------------------------------------------------------------------------

const khanBoard = {
  /** Passing gives up the rest of the turn's actions: it waits for Confirm. */
  costly(cmd) {
    return cmd?.type === "pass";
  },

  setReference(reference) {
    linkCss();
    const board = reference?.board ?? {};
    REF = {
      rows: board.rows ?? [],
      regions: board.regions ?? {},
      tiles: Object.fromEntries((reference?.tiles?.tiles ?? reference?.tiles ?? []).map((t) => [t.id, t])),
      cards: Object.fromEntries((reference?.deck?.cards ?? []).map((c) => [c.id, c])),
      rulers: reference?.rulers?.rulers ?? [],
    };
  },

  path(cmd, ctx) {
    switch (cmd.type) {
      case "invade":
        return [`card:${cmd.card}`, `cell:${key(cmd.cell)}`];
      case "invade_of_choice": {
        const order = (ctx?.view?.hand ?? []).map((c) => c.id);
        const discard = [...(cmd.discard ?? [])].sort((a, b) => order.indexOf(a) - order.indexOf(b));
        return ["choice", `cell:${key(cmd.cell)}`, ...discard.map((id) => `discard:${id}`)];
      }
      case "drive_out":
        return [`ruler:${cmd.ruler}`];
      case "conquer":
        return [`tile:${cmd.tile}`, `cell:${key(firstCell(cmd.cells))}`, `shape:${shapeKey(cmd.cells)}`];
      case "play_special":
        return cmd.region ? [`special:${cmd.card}`, `region:${cmd.region}`] : [`special:${cmd.card}`];
      case "consent":
        return [cmd.agree ? "consent:yes" : "consent:no"];
      case "pass":
        return ["pass"];
      case "start":
        return ["start"];
      default:
        return [`move:${JSON.stringify(cmd)}`];
    }
  },

  tokenLabel(token, ctx) {
    const i = token.indexOf(":");
    const kind = i < 0 ? token : token.slice(0, i);
    const v = i < 0 ? "" : token.slice(i + 1);
    const phase = ctx?.view?.status?.phase ?? ctx?.status?.phase;
    switch (kind) {
      case "card":
        return t("khan.pick.play_card", { card: cardText(REF.cards[v] ?? (ctx?.view?.hand ?? []).find((c) => c.id === v)) });
      case "cell": {
        const [r, c] = parseCell(v);
        return t("khan.pick.cell", { cell: cellName(r, c), terrain: regionName(REF.rows[r]?.[c]) });
      }
      case "choice":
        return t("khan.pick.choice");
      case "discard":
        return t("khan.pick.discard", { card: cardText(REF.cards[v]) });
      case "ruler":
        return t("khan.pick.drive_out", { ruler: rulerName(v) });
      case "tile":
        return t(REF.tiles[v]?.kind === "bridge" ? "khan.pick.bridge" : "khan.pick.tile", { id: v, points: REF.tiles[v]?.value ?? 0 });
      case "shape": {
        const cells = v.split(";").map(parseCell);
        const rows = Math.max(...cells.map((x) => x[0])) + 1;
        const cols = Math.max(...cells.map((x) => x[1])) + 1;
        return t("khan.pick.shape", { rows, cols });
      }
      case "special":
        return t("khan.pick.special", { card: specialName(v) });
      case "region":
        return t("khan.pick.region", { terrain: regionName(v) });
      case "consent":
        return t(v === "yes" ? "khan.pick.agree" : "khan.pick.refuse");
      case "start":
        return t("khan.pick.start");
      case "pass":
        return t(phase === "special" ? "khan.pick.no_special" : phase === "end_phase" ? "khan.pick.pass_end_phase" : "khan.pick.pass");
      default:
        return token;
    }
  },

  render(root, ctx) {
    linkCss();
    const view = ctx.view ?? {};
    if (!REF.rows.length || view.players === undefined) {
      root.replaceChildren(h("div.panel", {}, h("p.muted", {}, t("khan.waiting_map"))));
      return;
    }
    root.replaceChildren(h("div.khan", {},
      h("div.panel", {}, turnInfo(ctx), camps(view), legend()),
      h("div.panel.k-map-panel", {}, mapSvg(ctx), orientations(ctx)),
      hand(ctx),
      h("div.panel", {}, h("h3", {}, t("khan.tiles_heading")), tileSupply(ctx)),
      h("div.panel", {}, h("h3", {}, t("khan.players_heading")), players(ctx))));
  },
};

export default khanBoard;
