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
import { tOr } from "../i18n.js";
import { h, seatLabel, SEAT_COLOURS, svg } from "../render.js";

const CELL = 40;
const PAD = 20; // room for the coordinates drawn along the top and the left
export const TERRAIN = { M: "#a39382", S: "#ecd48f", F: "#4f9a58", T: "#b9d3ae", K: "#c4ab8c", I: "#e6f2f7", R: "#4d8fd6" };
const ARROW = { N: "↑", NE: "↗", E: "→", SE: "↘", S: "↓", SW: "↙", W: "←", NW: "↖" };
const RULER_COLOUR = {
  russian: "#8ecae6", seljuk: "#8d8d8d", ruler_3: "#7b4fa0", ruler_4: "#e07a1f",
  ruler_5: "#d6559b", ruler_6: "#7a4a26", ruler_7: "#1f8a8a", ruler_8: "#7d8b2a",
};
const SPECIAL_NAME = { high_morale: "High Morale", protection: "Protection of the Great Khan", divine_support: "Divine Support" };

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
  return tOr(`khan.terrain.${letter}`, {}, letter === "R" ? "river" : REF.regions[letter] ?? letter);
}

function backgroundName(bg) {
  if (bg === "RIVER") return "river";
  if (bg === "OUTER") return "outer area";
  if (bg === "KHAN") return "Khan (any land cell)";
  return REF.regions[bg] ?? bg;
}

function rulerName(id) {
  if (id === "russian") return "the Russian";
  if (id === "seljuk") return "the Seljuk";
  return id.replace(/^ruler_(\d+)$/, "Ruler $1");
}

function cardText(card) {
  if (!card) return "a card";
  return `${rulerName(card.ruler)} ${ARROW[card.direction] ?? ""}${card.direction}, ${backgroundName(card.background)}`;
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
  const t = picked.indexOf(picked.find((p) => p.startsWith("tile:")));
  if (t >= 0 && picked[t + 2]?.startsWith("shape:")) preview = placeShape(picked[t + 2].slice(6), parseCell(picked[t + 1].slice(5)));
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
    const what = ruler ? `, ${rulerName(ruler)}` : occ?.kind === "neutral" ? ", a neutral yurt"
      : occ?.kind === "yurt" ? `, a yurt of ${seatLabel(occ.seat, ctx.names)}` : "";
    const cellToken = `cell:${k}`;
    cells.push(svg("g", { "data-key": `cell:${k}`, class: previewSet.has(k) ? "k-preview" : null },
      svg("rect", {
        x, y, width: CELL, height: CELL, fill: TERRAIN[letter] ?? "#ccc", class: `k-cell k-${letter}`,
        "data-pick": cellToken, "aria-label": `${cellName(r, c)}: ${regionName(letter)}${what}`,
        stroke: "#0003", "stroke-width": 1,
      }),
      occ?.kind === "neutral" ? yurt(x + CELL / 2, y + CELL / 2 + 3, "#1b1b1b", "neutral yurt") : null,
      occ?.kind === "yurt" ? yurt(x + CELL / 2, y + CELL / 2 + 3, seatColour(occ.seat), `yurt of ${seatLabel(occ.seat, ctx.names)}`) : null));
  }));

  const tiles = (view.tiles_placed ?? []).map((tp, i) => {
    const bridge = REF.tiles[tp.tile]?.kind === "bridge" || tp.tile.startsWith("B-");
    const [fr, fc] = firstCell(tp.cells);
    const marks = (tp.owners ?? []).map((s, j) => yurt(PAD + fc * CELL + 12 + j * 15, PAD + fr * CELL + 16, seatColour(s), `yurt of ${seatLabel(s, ctx.names)}`));
    return svg("g", { class: `k-tile${bridge ? " k-bridge" : ""}`, "data-key": `tile:${i}`, "aria-hidden": "true" },
      svg("title", {}, `${bridge ? "bridge" : "tile"} ${tp.tile} (${REF.tiles[tp.tile]?.value ?? "?"} points) of ${(tp.owners ?? []).map((s) => seatLabel(s, ctx.names)).join(" and ")}`),
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
        "data-pick": token, "aria-label": `${rulerName(id)} at ${cellName(r, c)}` + (next.has(token) ? ": drive him out" : ""),
      }),
      svg("text", { x: PAD + c * CELL + CELL / 2, y: PAD + r * CELL + CELL / 2 + 5, class: "k-ruler-text", "aria-hidden": "true" }, rulerInitials(id)));
  });

  // the coordinates, as the log, the move labels and docs/games/khan.md name a cell: A1 top left
  const cols = rows[0]?.length ?? 13;
  const coords = svg("g", { class: "k-coords", "aria-hidden": "true" },
    Array.from({ length: cols }, (_, c) => svg("text", { x: PAD + c * CELL + CELL / 2, y: PAD - 6, "text-anchor": "middle" }, colLetter(c))),
    Array.from({ length: n }, (_, r) => svg("text", { x: PAD - 4, y: PAD + r * CELL + CELL / 2 + 4, "text-anchor": "end" }, String(r + 1))));
  return svg("svg", { class: "board k-map", viewBox: `0 0 ${w} ${hgt}`, role: "group", "aria-label": "the map of Khan" },
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
    "data-pick": token, "data-card": card.id, "aria-label": `card ${cardText(card)}`,
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
  return h("div.k-tiles", { "aria-label": "tile supply" }, Object.entries(supply).map(([id, count]) => {
    const t = REF.tiles[id];
    const label = `${t?.kind === "bridge" ? "bridge" : "tile"} ${id}, ${t?.value ?? "?"} points, ${count} left`;
    return h(`div.k-tile-type${count ? "" : ".gone"}${t?.kind === "bridge" ? ".bridge" : ""}`, { "data-pick": `tile:${id}`, "aria-label": label, title: label },
      t ? tileShapeSvg(t.cells) : null, h("span", {}, id), h("span.muted", {}, `×${count}`));
  }));
}

/** The orientations that may come next, drawn as small shapes to point at. */
function orientations(ctx) {
  const shapes = [...(ctx.next ?? [])].filter((t) => t.startsWith("shape:"));
  if (!shapes.length) return null;
  return h("div.k-orient", { role: "group", "aria-label": "orientations of the tile" },
    h("span", {}, "Turn the tile: "),
    shapes.map((tok, i) => h("div.k-orient-opt", { "data-pick": tok, "aria-label": `orientation ${i + 1}: ${khanBoard.tokenLabel(tok)}` },
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
    return h(`section.k-player${acting ? ".acting" : ""}`, { "data-seat": s, "aria-label": `player ${seatLabel(s, names)}` },
      h("h3", {}, h("span.swatch", { style: `background: ${seatColour(s)}` }), seatLabel(s, names),
        mine ? h("span.badge.you", {}, ctx.mode === "replay" ? "viewpoint" : "you") : null,
        acting ? h("span.badge.turn", {}, "to act") : null),
      h("div.k-facts", {},
        h("span", {}, "yurts ", h("strong", {}, String(view.player_yurts?.[s]?.length ?? 0))),
        h("span", {}, "tiles ", h("strong", {}, String((view.tiles_placed ?? []).filter((t) => t.owners?.includes(s)).length))),
        h("span", {}, "tile points ", h("strong.k-points", {}, String(pts[s] ?? 0))),
        h("span", {}, "hand ", h("strong", {}, String(view.hand_sizes?.[s] ?? 0)))),
      result ? h("div.k-final", {}, "Final score ", h("strong.k-score", { "data-seat": s }, String(result.scores?.[s] ?? "—")),
        ` (tiles ${result.tile_points?.[s] ?? 0} + areas ${result.area_bonus?.[s] ?? 0}; largest area ${result.largest_area?.[s] ?? 0})`,
        (result.winners ?? []).includes(s) ? h("span.badge.turn", {}, "winner") : null) : null,
      h("div.k-specials", {}, Object.entries(specials).map(([card, n]) => {
        const token = `special:${card}`;
        const usable = mine && next.has(token);
        return h("span.k-special", { "data-pick": mine ? token : null, "aria-label": `${SPECIAL_NAME[card] ?? card}: ${n} left` + (usable ? ", play it" : "") },
          `${SPECIAL_NAME[card] ?? card} ×${n}`);
      }),
      active.map((a) => h("span.badge.live", {}, `active: ${SPECIAL_NAME[a.card] ?? a.card}${a.region ? ` (${regionName(a.region)})` : ""}`))));
  }));
}

function legend() {
  return h("div.k-legend", { "aria-label": "map legend" },
    ["M", "S", "F", "T", "K", "I", "R"].map((l) => h("span", {},
      h("span.k-swatch", { style: `background: ${TERRAIN[l]}`, "aria-hidden": "true" }), regionName(l))));
}

function camps(view) {
  return h("div.k-camps", { "aria-label": "the rulers' camps" }, Object.entries(view.camps ?? {}).map(([id, n]) => {
    const on = (view.rulers ?? {})[id];
    return h(`span.k-camp${on ? "" : ".gone"}`, { title: `${rulerName(id)}: ${n} yurts in camp${on ? "" : ", has left the board"}` },
      h("span.k-dot", { style: `background: ${RULER_COLOUR[id] ?? "#999"}` }), rulerName(id), " ", h("strong", {}, `⌂${n}`), on ? "" : " (gone)");
  }));
}

function turnInfo(ctx) {
  const { view, names } = ctx;
  const turn = view.turn ?? {};
  const status = view.status ?? ctx.status ?? {};
  const phase = { actions: "actions", extra_action: "the High Morale action", special: "a special card", consent: "consent", end_phase: "end phase: conquests only", waiting: "waiting", finished: "over" }[status.phase] ?? status.phase;
  return h("div.k-info", {},
    h("span", {}, "Turn ", h("strong", {}, String(view.turn_no ?? 0)), view.current !== null && view.current !== undefined ? [" — ", seatLabel(view.current, names)] : null),
    h("span", {}, "Step: ", h("strong", {}, phase ?? "—")),
    turn.actions_left !== undefined ? h("span", {}, "actions left ", h("strong", {}, String(turn.actions_left))) : null,
    h("span", {}, "rulers gone ", h("strong", {}, `${(view.removed_rulers ?? []).length}/5`)),
    h("span", {}, "deck ", h("strong", {}, String(view.draw_pile_size ?? 0))),
    h("span", {}, "neutral supply ", h("strong", {}, String(view.general_supply ?? 0))),
    view.discard_top ? h("span", {}, "top of the discard pile: ", h("strong", {}, cardText(view.discard_top))) : null,
    view.end_phase ? h("span.badge.live", {}, "end phase") : null,
    view.pending_consent ? h("span.badge.live", {}, `${seatLabel(view.pending_consent.ask?.[0] ?? view.pending_consent.seat, names)} is asked to agree to a conquest (dashed)`) : null);
}

function hand(ctx) {
  const cards = ctx.view.hand;
  if (!cards) return null;
  const discarding = (ctx.picked ?? [])[0] === "choice";
  return h("div.panel.k-hand-panel", {},
    h("h3", {}, ctx.mode === "replay" ? "Hand" : "Your hand", discarding ? h("span.muted", {}, " — point at the cards to discard, then confirm") : null),
    h("div.k-hand", {}, cards.length ? cards.map((c) => cardEl(c, discarding ? `discard:${c.id}` : `card:${c.id}`)) : h("span.muted", {}, "no cards")));
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
        return `play ${cardText(REF.cards[v] ?? (ctx?.view?.hand ?? []).find((c) => c.id === v)) }`;
      case "cell": {
        const [r, c] = parseCell(v);
        return `${cellName(r, c)} (${regionName(REF.rows[r]?.[c])})`;
      }
      case "choice":
        return "invasion of choice (both actions)";
      case "discard":
        return `discard ${cardText(REF.cards[v])}`;
      case "ruler":
        return `drive out ${rulerName(v)}`;
      case "tile":
        return `conquer with ${REF.tiles[v]?.kind === "bridge" ? "bridge" : "tile"} ${v} (${REF.tiles[v]?.value ?? "?"} points)`;
      case "shape": {
        const cells = v.split(";").map(parseCell);
        const rows = Math.max(...cells.map((x) => x[0])) + 1;
        const cols = Math.max(...cells.map((x) => x[1])) + 1;
        return `turned ${rows} row${rows === 1 ? "" : "s"} by ${cols} column${cols === 1 ? "" : "s"}`;
      }
      case "special":
        return `play ${SPECIAL_NAME[v] ?? v}`;
      case "region":
        return `protect the ${regionName(v)}`;
      case "consent":
        return v === "yes" ? "agree to the conquest" : "refuse the conquest";
      case "start":
        return "the match starts: cards dealt, the first ruler flees";
      case "pass":
        return phase === "special" ? "play no special card" : phase === "end_phase" ? "pass: no more conquests this turn" : "pass: end your actions";
      default:
        return token;
    }
  },

  render(root, ctx) {
    linkCss();
    const view = ctx.view ?? {};
    if (!REF.rows.length || view.players === undefined) {
      root.replaceChildren(h("div.panel", {}, h("p.muted", {}, "Waiting for the map…")));
      return;
    }
    root.replaceChildren(h("div.khan", {},
      h("div.panel", {}, turnInfo(ctx), camps(view), legend()),
      h("div.panel.k-map-panel", {}, mapSvg(ctx), orientations(ctx)),
      hand(ctx),
      h("div.panel", {}, h("h3", {}, "Tiles to conquer with"), tileSupply(ctx)),
      h("div.panel", {}, h("h3", {}, "Players"), players(ctx))));
  },
};

export default khanBoard;
