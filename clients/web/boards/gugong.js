// The Gùgōng board: the seven locations with the gift card lying at each, the Palace stairs,
// the Intrigue track, the Great Wall, the jade houses, the Grand Canal with its ports and boats,
// the travel map with its tokens and travellers, the decrees in play, your hand and gift
// discard pile as cards with value and action, and every family's public area.
// A gift exchange is a hand card, then the location, then (when not free) how to pay; an action
// is "card action" or "location action" followed by its choices (option, jade spot, decree,
// boat, unit, ...), each pointed at on the board where it has a place, else offered as a button.
import { t, tOr } from "../i18n.js";
import { h, renderGeneric, SEAT_COLOURS, SEAT_INK, seatLabel, seatSwatch, svg } from "../render.js";

let REF = null;

// Every name and sentence comes from the catalogue: locations, card actions, travel tokens,
// harbour rewards, decree effects (gugong.*).
const locName = (loc) => (loc ? tOr(`gugong.loc.${loc}`, {}, loc) : "?");
const locText = (loc) => tOr(`gugong.loc_text.${loc}`, {}, "");
const actionName = (a) => tOr(`gugong.action.${a}`, {}, null) ?? locName(a);
const tokenName = (type) => tOr(`gugong.token.${type}`, {}, type);
const tokenShort = (type) => tOr(`gugong.token_short.${type}`, {}, type);
const rewardName = (r) => tOr(`gugong.reward.${r}`, {}, r);
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
  for (const p of view?.players ?? []) for (const tok of p.tokens ?? []) if (tok?.id === id) return tok.type;
  return null;
};
const who = (seat, ctx) => ctx?.names?.[seat] || t("common.seat", { seat });

// A decree's effect in a player's words, not the data's (service/games/gugong/data/decrees.json;
// the rules: scoring.py's decree_end_vp, the actions' board.ability).
function decreeText(id) {
  const d = decreeRef(id);
  if (!d) return id;
  const parts = [];
  const say = (when, e) => tOr(`gugong.${when}.${e.kind}`, { n: e.n, min: e.min ?? 1, vp: e.vp, steps: e.steps }, e.kind.replace(/_/g, " "));
  if (d.vp_now) parts.push(t("gugong.decree.vp_now", { n: d.vp_now }));
  if (d.morning) parts.push(t("gugong.decree.morning", { effect: say("morning", d.morning) }));
  if (d.ability) parts.push(t("gugong.decree.ability", { effect: say("ability", d.ability) }));
  if (d.end) parts.push(t("gugong.decree.end", { effect: say("end", d.end) }));
  return parts.join(t("gugong.decree.separator"));
}

/** The final scoring (rulebook §4.4), a row per seat: the Wall's majority, the Palace arrival,
 * the level-3 decrees, jade, the total, and whether the seat reached the Palace at all. */
function finalTable(bd, ctx) {
  const seats = bd.seats ?? [];
  const cols = ["wall", "palace", "decrees", "jade"];
  return h("div.scroll-x", {}, h("table.scores", { "aria-label": t("gugong.final.label") },
    h("thead", {}, h("tr", {}, h("th", {}, t("result.player")), cols.map((k) => h("th.num", {}, t(`gugong.final.${k}`))), h("th.num", {}, t("gugong.final.total")),
      h("th", {}, t("gugong.final.reached")))),
    h("tbody", {}, seats.map((b, s) => h("tr", { "data-seat": s },
      h("td", {}, seatSwatch(s), seatLabel(s, ctx.names)),
      cols.map((k) => h("td.num", {}, b[k] ? `+${b[k]}` : "0")),
      h("td.num", {}, h("strong", {}, String(b.vp))),
      h("td", {}, b.eligible ? t("common.yes") : t("gugong.final.cannot_win")))))));
}

function cardText(c) {
  return t("gugong.card_text", { id: c.id, value: c.value, action: actionName(c.action) });
}

function giftCard(c, attrs = {}) {
  if (!c) return h("div.gcard.empty", attrs, "—");
  return h("div.gcard", { "data-card": c.id, "aria-label": cardText(c), title: cardText(c), ...attrs },
    h("span.gc-value", {}, String(c.value)), h("span.gc-action", {}, actionName(c.action)), h("span.gc-id", {}, c.id));
}

function unitLabel(u) {
  return u === "foreman" ? t("gugong.unit.foreman") : t("gugong.unit.servant");
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
  if (!p) return view.phase === "finished" ? t("gugong.prompt.over") : "";
  const name = who(p.seat, ctx);
  if (p.kind === "turn") {
    const turn = view.turn ?? {};
    return turn.exchanged ? t("gugong.prompt.actions", { who: name, location: locName(turn.location) }) : t("gugong.prompt.gift", { who: name });
  }
  const params = { who: name, left: p.left ?? 1, route: p.route ?? "", port: p.port ?? "" };
  return tOr(`gugong.prompt.${p.kind}`, params, null) ?? t("gugong.prompt.other", { who: name, kind: p.kind.replace(/_/g, " ") });
}

function tracksSvg(view, ctx) {
  const players = view.players ?? [];
  const parts = [];
  // Palace stairs: 0..8, the Envoys
  const stairX = (i) => 30 + i * 58;
  parts.push(svg("text", { x: 10, y: 20, "font-size": 15, "font-weight": 700 }, t("gugong.stairs")));
  for (let i = 0; i <= 8; i++) {
    parts.push(svg("rect", { x: stairX(i) - 24, y: 60 - i * 4, width: 50, height: 30 + i * 4, rx: 4,
      fill: i === 8 ? "#d9a800" : "#efe7d8", stroke: "#9c8f7c" }));
    parts.push(svg("text", { x: stairX(i), y: 104, "font-size": 11, "text-anchor": "middle", fill: "#6f675e" }, i === 8 ? t("gugong.loc.PALACE") : String(i)));
  }
  players.forEach((p, s) => {
    const step = Math.min(p.envoy ?? 0, 8);
    parts.push(svg("circle", { class: "envoy", "data-seat": s, cx: stairX(step) - 14 + (s % 3) * 14, cy: 70 + Math.floor(s / 3) * 14, r: 6,
      fill: SEAT_COLOURS[s], stroke: "#23201c" }, svg("title", {}, t("gugong.envoy_title", { who: who(s, ctx), step: p.envoy }))));
  });
  // Intrigue track 0..14, higher on top when tied
  const intX = (i) => 22 + i * 38;
  parts.push(svg("text", { x: 10, y: 140, "font-size": 15, "font-weight": 700 }, t("gugong.intrigue_track")));
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
      fill: SEAT_COLOURS[s], stroke: "#23201c" }, svg("title", {}, t("gugong.intrigue_title", { who: who(s, ctx), step: pos }))));
  });
  return svg("svg", { class: "board gugong-tracks", viewBox: "0 0 580 212", role: "img", "aria-label": t("gugong.tracks_label") }, parts);
}

function canal(view, ctx) {
  const routes = REF?.board?.canal?.routes ?? {};
  return h("div.canal", { "aria-label": t("gugong.canal_label") }, Object.entries(view.canal ?? {}).map(([r, ports]) =>
    h("div.route", { "data-key": `route:${r}` }, h("span.route-name", {}, t("gugong.route", { route: r })),
      ports.map((b, i) => {
        const port = routes[r]?.[i] ?? {};
        const id = `${r}${i + 1}`;
        const place = port.reward ? t("gugong.port_reward", { name: port.name ?? id, id, reward: rewardName(port.reward) }) : t("gugong.port", { name: port.name ?? id, id });
        const label = b ? t(b.foreman ? "gugong.port_boat_foreman" : "gugong.port_boat", { place, who: who(b.owner, ctx), servants: b.cubes })
          : t("gugong.port_empty", { place });
        return h("div.port", { "data-pick": `boat:${id}`, "data-port": id, "aria-label": label, title: label },
          h("span.port-name", {}, port.name ?? id), h("span.port-reward", {}, port.reward ? rewardName(port.reward) : t("gugong.port_start")),
          b ? h("span.boat", { style: `background: ${SEAT_COLOURS[b.owner]}; color: ${SEAT_INK[b.owner]}` },
            t(b.foreman ? "gugong.boat_foreman" : "gugong.boat", { servants: b.cubes })) : h("span.muted", {}, "·"));
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
    const visitors = here.map((s) => who(s, ctx));
    const label = tok ? t(here.length ? "gugong.city_token_travellers" : "gugong.city_token", { city: c.name, token: tokenName(tok.type), travellers: visitors })
      : t(here.length ? "gugong.city_travellers" : "gugong.city", { city: c.name, travellers: visitors });
    return svg("g", { class: "city", "data-key": `city:${c.id}` },
      svg("circle", { cx: x, cy: y, r: 26, fill: tok ? "#fff4d6" : "#f4f1ec", stroke: "#8a6d3b", "stroke-width": 2,
        "data-pick": `city:${c.id}`, "aria-label": label }, svg("title", {}, label)),
      svg("text", { x, y: y - 30, "font-size": 13, "text-anchor": "middle", "font-weight": 600, "pointer-events": "none" }, c.name),
      tok ? svg("text", { x, y: y + 5, "font-size": 12, "text-anchor": "middle", "pointer-events": "none" }, tokenShort(tok.type)) : null,
      here.map((s, i) => svg("circle", { cx: x + 20 - i * 10, cy: y + 20, r: 7, fill: SEAT_COLOURS[s], stroke: "#23201c", "pointer-events": "none" })));
  });
  return svg("svg", { class: "board gugong-map", viewBox: "0 0 620 500", role: "group", "aria-label": t("gugong.map_label") }, roads, cities);
}

function playerArea(p, view, ctx) {
  const s = p.seat;
  const acting = view.prompt?.seat === s;
  return h(`div.player${acting ? ".acting" : ""}`, { "data-seat": s, "data-key": `player:${s}` },
    h("div.player-name", {}, seatSwatch(s), h("strong", {}, seatLabel(s, ctx.names)),
      s === ctx.seat ? h("span.badge.you", {}, ctx.mode === "replay" ? t("board.viewpoint") : t("common.you")) : null,
      view.start_player === s ? h("span.badge", {}, t("gugong.start_player")) : null,
      view.medal === s ? h("span.badge", { title: t("gugong.medal_title") }, t("gugong.medal")) : null,
      acting ? h("span.badge.turn", {}, t("board.to_act")) : null),
    h("div.player-facts", {},
      h("span", {}, t("gugong.fact.vp"), h("strong.vp", {}, String(p.vp))),
      h("span", {}, t("gugong.fact.servants"), h("strong", {}, String(p.pool)), t("gugong.fact.supply", { supply: p.supply })),
      h("span", {}, t("gugong.fact.foreman"), h("strong", {}, tOr(`gugong.foreman.${p.foreman}`, {}, String(p.foreman)))),
      h("span", {}, t("gugong.fact.jade"), h("strong", {}, String(p.jade))),
      h("span", {}, t("gugong.fact.envoy"), h("strong", {}, `${p.envoy}/8`), p.arrival_vp !== null ? t("gugong.fact.arrived", { vp: p.arrival_vp }) : ""),
      h("span", {}, t("gugong.fact.intrigue"), h("strong", {}, String(p.intrigue))),
      h("span", {}, t("gugong.fact.hand"), h("strong", {}, String(p.hand_count)), t("gugong.fact.gifts", { count: p.discard_count })),
      h("span", {}, t("gugong.fact.boats_left"), h("strong", {}, String(p.boats_left))),
      h("span", {}, t("gugong.fact.traveller"), h("strong", {}, p.traveller ? cityName(p.traveller) : t("gugong.fact.not_out"))),
      h("span", {}, t("gugong.fact.rewards"), h("strong", {}, Object.entries(p.slots ?? {}).map(([k, v]) => `${rewardName(k)} × ${v}`).join(", "))),
      p.decrees?.length ? h("span", {}, t("gugong.fact.decrees"), h("strong", {}, p.decrees.join(", "))) : null),
    p.tokens?.length ? h("div.tokens", {}, p.tokens.map((tok) => h("span.token", { title: tokenName(tok.type), "data-token": tok.id }, tokenName(tok.type)))) : null);
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
        return c ? t("gugong.pick.card", { id: a, value: c.value, action: actionName(c.action) }) : a;
      }
      case "loc": {
        const lying = view.locations?.[a];
        return lying ? t("gugong.pick.loc_takes", { location: locName(a), id: lying.id, value: lying.value }) : t("gugong.pick.loc", { location: locName(a) });
      }
      case "pay": return tOr(`gugong.pick.pay_${a}`, {}, null) ?? t("gugong.pick.pay", { what: a });
      case "foreman": return t("gugong.pick.foreman_pays");
      case "do": {
        if (a === "token") return t("gugong.pick.use_token");
        const turn = view.turn ?? {};
        if (a === "location") return t("gugong.pick.location_action", { location: turn.location ? locName(turn.location) : t("gugong.pick.the_location") });
        const given = turn.location ? view.locations?.[turn.location] : null;
        return t("gugong.pick.card_action", { action: given ? actionName(given.action) : t("gugong.pick.the_cards") });
      }
      case "opt": return t("gugong.pick.option", { option: a });
      case "jade": return a === "supply" ? t("gugong.pick.jade_supply") : t("gugong.pick.jade_house", { n: Number(a) + 1, cost: view.jade_spots?.[a]?.cost ?? "?" });
      case "decree": return t("gugong.pick.decree", { id: a, text: decreeText(a) });
      case "unit": return t("gugong.pick.with_foreman");
      case "units": return t("gugong.pick.units", { units: a.split("+").map(unitLabel) });
      case "boat": return t("gugong.pick.boat", { port: a });
      case "to": return t("gugong.pick.move_boat", { port: a });
      case "city": return view.map?.[a] ? t("gugong.pick.city_token", { city: cityName(a), token: tokenName(view.map[a].type) }) : t("gugong.pick.city", { city: cityName(a) });
      case "reward": return t("gugong.pick.reward", { reward: rewardName(a) });
      case "down": return t("gugong.pick.down", { steps: a });
      case "die": return t("gugong.pick.die", { n: Number(a) + 1 });
      case "face": return t("gugong.pick.face", { face: a });
      case "trade": {
        const ids = (b ?? "").split("+");
        return t("gugong.pick.trade", { tokens: ids.map((id) => { const type = tokenType(id, view); return type ? tokenName(type) : id; }), reward: a });
      }
      case "end_turn": return t("gugong.pick.end_turn");
      case "decline": return t("gugong.pick.decline");
      case "done": return t("gugong.pick.done");
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
      h("span", {}, t("gugong.info.day", { day: view.day ?? 0 })),
      h("span", {}, t("gugong.info.phase"), h("strong", {}, view.phase ? tOr(`gugong.phase.${view.phase}`, {}, view.phase) : "?")),
      h("span", { "data-key": "dice", title: t("gugong.info.dice_title") }, t("gugong.info.dice"), (view.dice ?? []).map((d) => h("span.die", {}, String(d)))),
      h("span", {}, t("gugong.info.draw_pile"), h("strong", {}, String(view.draw_pile_count ?? 0))),
      h("span", {}, t("gugong.info.travel_piles"), h("strong", {}, `${view.pile_a_count ?? 0} + ${view.pile_b_count ?? 0}`)));
    const prompt = h("p.prompt", { id: "prompt" }, promptText(view, ctx));
    const locations = h("div.locations", { "aria-label": t("gugong.locations_label") }, (REF.board?.locations ?? Object.keys(view.locations ?? {})).map((loc) =>
      h("div.location", { "data-pick": `loc:${loc}`, "data-key": `loc:${loc}`, "data-location": loc,
        "aria-label": t("gugong.location_label", { location: locName(loc), text: locText(loc), card: view.locations?.[loc] ? cardText(view.locations[loc]) : t("common.none") }) },
      h("strong", {}, locName(loc)), h("span.loc-text", {}, locText(loc)), giftCard(view.locations?.[loc]))));
    const threshold = view.wall_threshold ?? 4;
    const onWall = (view.wall ?? []).length;
    const wall = h("div.wall", { "data-key": "wall", "aria-label": t("gugong.wall_label", { count: onWall, threshold }) },
      h("strong", {}, t("gugong.wall")), h("span.muted", {}, t("gugong.wall_note", { count: onWall, threshold })),
      h("div.wall-row", {}, Array.from({ length: Math.max(threshold, onWall) }, (_, i) => {
        const w = view.wall?.[i];
        return h("span.brick", { style: w ? `background: ${SEAT_COLOURS[w.seat]}; color: ${SEAT_INK[w.seat]}` : null,
          title: w ? (w.foreman ? t("gugong.brick_foreman", { who: who(w.seat, ctx) }) : who(w.seat, ctx)) : t("gugong.free") }, w ? (w.foreman ? "F" : "■") : "");
      })));
    const jade = h("div.jade", { "aria-label": t("gugong.jade_label") }, h("strong", {}, t("gugong.jade_houses")),
      (view.jade_spots ?? []).map((j, i) => h("span.jade-spot", { "data-pick": `jade:${i}`, "data-key": `jade:${i}`, class: j.jade ? "full" : "empty",
        "aria-label": t(j.jade ? "gugong.jade_house" : "gugong.jade_house_empty", { n: i + 1, cost: j.cost }) }, j.jade ? `◆ ${j.cost}` : `· ${j.cost}`)));
    const decrees = h("div.decrees", {}, (view.decrees ?? []).map((d) => h("div.decree", { "data-pick": `decree:${d.id}`, "data-key": `decree:${d.id}`,
      "aria-label": t("gugong.decree_label", { id: d.id, level: d.level, cost: d.cost, text: decreeText(d.id) }) },
    h("strong", {}, t("gugong.decree_head", { id: d.id, level: d.level, cost: d.cost })), h("span.decree-text", {}, decreeText(d.id)),
    h("span", {}, d.servants.map((s) => h("span.cube", { style: `background: ${SEAT_COLOURS[s]}`, title: who(s, ctx) }))))));
    const replay = ctx.mode === "replay";
    const owner = { who: seatLabel(ctx.seat, ctx.names) };
    const hand = me?.hand ? h("div.panel", {}, h("h3", {}, replay ? t("board.hand_of", owner) : t("board.your_hand")),
      h("div.hand", { "aria-label": t("board.your_hand_label") }, me.hand.length ? me.hand.map((c) => giftCard(c, { "data-pick": `card:${c.id}` })) : h("span.muted", {}, t("common.empty"))),
      me.discard?.length ? [h("h3", { style: "margin-top: .5rem" }, replay ? t("gugong.gifts_of", owner) : t("gugong.your_gifts")),
        h("div.hand.small", {}, me.discard.map((c) => giftCard(c, { "data-pick": `card:${c.id}` })))] : null) : null;
    const bd = view.breakdown;
    const end = bd ? h("div.panel", { id: "breakdown" }, h("h3", {}, t("board.final_scoring")),
      bd.nobody_arrived ? h("p.why", {}, t("gugong.nobody_arrived")) : null,
      finalTable(bd, ctx)) : null;
    root.replaceChildren(h("div.gugong", {},
      h("div.panel", {}, info, prompt, h("div.players", {}, view.players.map((p) => playerArea(p, view, ctx)))),
      hand,
      h("div.panel", {}, h("h3", {}, t("gugong.locations")), locations),
      h("div.panel", {}, tracksSvg(view, ctx), wall, jade),
      h("div.panel", {}, h("h3", {}, t("gugong.loc.CANAL")), canal(view, ctx)),
      h("div.panel", {}, h("h3", {}, t("gugong.loc.DECREE")), decrees),
      h("div.panel.map-panel", {}, h("h3", {}, t("gugong.travel_map")), mapSvg(view, ctx)),
      end));
  },
};
