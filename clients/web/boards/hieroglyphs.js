// The Chinese Squared board, drawn as a learning game: the 9×9 square (hieroglyph cards in their
// slots, the four bases, the teleports, the Emperor, every figure), the meaning question where
// the player looks with its four meanings as the buttons, the verdict with the right meaning, the
// played card's back, every player's task, coins and completed tasks, your hand.
//
// A move is what a person points at, in order (path):
//   choose_base   base:<ROLE>            pick_task  task:<id>
//   play_card     play:<card> → claim:yes|no          answer  answer:<0-3>|answer:none
//   move          cell:<id>… (each step; a 0-step move is `stay`)
//   teleport      teleport:<cell>|teleport:stay
//   study         study:<card>           view_task  view_task        blast  block:<Bn>
//   minister_draw minister:top|bottom    minister_resolve  resolve → swap:<h> → pool:<p> … (hand order)
//   spy_swap      give:<own> → take:<seat>:<card>
//   attach        attach:<card>          detach  detach:<card>
//   declare       declare → order:<card>…             end_turn  end_turn → return:<card>… (hand order)
// The characters are drawn with the font the server ships (/web/fonts/, see hieroglyphs.css).
import { h, seatLabel, SEAT_COLOURS, SEAT_INK } from "../render.js";

const ROLE_NAME = { TEACHER: "Teacher", GENERAL: "General", MINISTER: "Minister", SPY: "Spy" };
const ROLE_MARK = { TEACHER: "师", GENERAL: "将", MINISTER: "相", SPY: "谍" };
const TELEPORT_NAME = { TP_N: "north teleport", TP_E: "east teleport", TP_S: "south teleport", TP_W: "west teleport" };
const PHASE_TEXT = {
  waiting: "waiting for the players", setup_bases: "choosing start bases", setup_tasks: "choosing tasks",
  play: "play a card", meaning: "naming the meaning", move: "moving", teleport: "at a teleport",
  base: "at a base", emperor: "at the Emperor", over: "over",
};

// What pointing at a card of your hand does, by the step you are in (one token per verb, so a
// move's tokens say what it does even in a log read later).
const HAND_VERBS = ["play", "attach", "study", "give", "swap", "return"];

let CELLS = [];
let BY_ID = {};
let cssLinked = false;
// The last judged meaning claim seen live, so the verdict stays on screen after the turn ends
// (the view clears the claim with the turn). Replays read only the view of each step.
let lastVerdict = null;
let lastAsked = null;

function linkCss() {
  if (cssLinked || typeof document === "undefined") return;
  cssLinked = true;
  document.head.append(h("link", { rel: "stylesheet", href: "/web/boards/hieroglyphs.css" }));
}

const charOf = (card) => String(card ?? "").split("#")[0];
const seatColour = (s) => SEAT_COLOURS[s % SEAT_COLOURS.length];
const hz = (text, cls = "") => h(`span.hz${cls}`, { lang: "zh-Hans" }, text);

function cellName(id) {
  const c = BY_ID[id];
  if (!c) return id;
  if (c.kind === "base") return `the ${ROLE_NAME[c.role] ?? c.role} base`;
  if (c.kind === "teleport") return `the ${TELEPORT_NAME[c.role] ?? "teleport"}`;
  if (c.kind === "emperor" || id === "EMP") return "the Emperor";
  return `slot ${id}`;
}

function backText(back) {
  if (!back) return "";
  return `${back.pinyin}, tone ${back.tone}, ${back.steps} step${back.steps === 1 ? "" : "s"}: “${back.gloss}”` +
    (back.trad ? `; traditional ${back.trad}` : "");
}

/** The figure tokens standing on a cell. */
function figures(view, id, names) {
  return (view.positions ?? []).map((p, s) => (p === id ? h("span.h-fig", {
    style: `background: ${seatColour(s)}; color: ${SEAT_INK[s % SEAT_INK.length]}`,
    title: seatLabel(s, names), "aria-label": `figure of ${seatLabel(s, names)}`,
  }, String(s)) : null)).filter(Boolean);
}

/** Which token a board cell carries now: the one of the step being picked, if any. */
function cellToken(cell, next) {
  if (cell.kind === "base" && next.has(`base:${cell.role}`)) return `base:${cell.role}`;
  if (cell.kind === "teleport" && next.has(`teleport:${cell.id}`)) return `teleport:${cell.id}`;
  if (cell.block && next.has(`block:${cell.block}`)) return `block:${cell.block}`;
  return `cell:${cell.id}`;
}

function boardGrid(ctx) {
  const { view, names } = ctx;
  const next = ctx.next ?? new Set();
  const slots = view.slots ?? {};
  const stop = view.turn?.stop;
  const blockStart = new Set();
  const seenBlocks = new Set();
  for (const cell of CELLS) {
    if (cell.block && !seenBlocks.has(cell.block)) {
      seenBlocks.add(cell.block);
      blockStart.add(cell.id);
    }
  }
  return h("div.h-board", { role: "group", "aria-label": "the board" }, CELLS.map((cell) => {
    const [x, y] = cell.xy;
    const token = cellToken(cell, next);
    const card = slots[cell.id];
    let body;
    let label;
    if (cell.kind === "slot") {
      body = card ? hz(charOf(card), ".h-char") : h("span.muted", {}, "—");
      label = `${cell.id}: ${card ? charOf(card) : "empty"}` + (cell.block ? `, block ${cell.block}` : "");
    } else if (cell.kind === "base") {
      body = [hz(ROLE_MARK[cell.role] ?? "", ".h-mark"), h("span.h-role", {}, ROLE_NAME[cell.role] ?? cell.role)];
      label = `${cell.id}: ${ROLE_NAME[cell.role] ?? cell.role} base`;
    } else if (cell.kind === "teleport") {
      body = [h("span.h-mark", {}, "⇄"), h("span.h-role", {}, "teleport")];
      label = `${cell.id}: ${TELEPORT_NAME[cell.role] ?? "teleport"}`;
    } else {
      body = [hz("皇", ".h-mark"), h("span.h-role", {}, "Emperor")];
      label = `${cell.id}: the Emperor`;
    }
    const here = figures(view, cell.id, names);
    if (here.length) label += `; here: ${(view.positions ?? []).map((p, s) => (p === cell.id ? seatLabel(s, names) : null)).filter(Boolean).join(", ")}`;
    return h(`div.h-cell.h-${cell.kind}${cell.id === stop ? ".h-stop" : ""}`, {
      style: `grid-column: ${x + 1}; grid-row: ${y + 1}`, "data-pick": token, "data-key": `cell:${cell.id}`,
      "data-cell": cell.id, "data-card": card ?? null, "aria-label": label, title: label,
    }, blockStart.has(cell.id) ? h("span.h-blk", { "aria-hidden": "true" }, cell.block) : null,
    body, here.length ? h("span.h-figs", {}, here) : null,
    // the slot's name, printed where the log and the move labels look for it ("slot P15")
    cell.kind === "slot" ? h("span.h-id", { "aria-hidden": "true" }, cell.id) : null);
  }));
}

/** A hieroglyph card face (the front), with the back when the holder has learned it. */
function cardFace(card, token, learned, extra = {}) {
  const back = learned?.[charOf(card)];
  return h("div.h-card", { "data-pick": token, "data-card": card, "aria-label": `card ${charOf(card)}` + (back ? ` (${backText(back)})` : ""), ...extra },
    hz(charOf(card), ".h-char"), back ? h("span.h-back", {}, `${back.pinyin} · ${back.gloss}`) : null);
}

/** The meaning question (for the claimer) or its verdict (for everyone), where the eyes are. */
function meaningPanel(ctx) {
  const { view, names, seat } = ctx;
  const turn = view.turn ?? {};
  const claim = turn.claim;
  const active = view.active;
  const who = active === seat && ctx.mode === "play" ? "You" : seatLabel(active, names);
  if (claim?.pending) {
    const ch = charOf(turn.played);
    if (!claim.options) {
      return h("div.panel.h-question", { id: "meaning-question", role: "status" },
        h("p", {}, `${who} played `, hz(ch, ".h-big"), " and is naming its meaning…"));
    }
    const panel = h("div.panel.h-question", { id: "meaning-question", role: "group", "aria-label": `What does ${ch} mean?` },
      h("p.h-ask", {}, "What does ", hz(ch, ".h-big"), " mean?"),
      h("div.h-options", {}, claim.options.map((text, i) => h("button.h-option", { type: "button", "data-pick": `answer:${i}`, "aria-label": `meaning: ${text}` }, text)),
        h("button.h-option.secondary", { type: "button", "data-pick": "answer:none", "aria-label": "I don't know" }, "I don't know")));
    // the question comes where the player looks: brought into view once, when it is asked
    const asked = `${view.round}:${active}:${turn.played}`;
    if (asked !== lastAsked) {
      lastAsked = asked;
      requestAnimationFrame(() => panel.isConnected && panel.scrollIntoView({ block: "nearest", behavior: "smooth" }));
    }
    return panel;
  }
  let verdict = null;
  if (claim && claim.pending === false && claim.options) {
    verdict = { seat: active, card: turn.played, back: turn.played_back, ...claim };
    if (ctx.mode !== "replay") lastVerdict = { ...verdict, round: view.round };
  } else if (ctx.mode !== "replay" && lastVerdict && lastVerdict.round !== undefined && view.round - lastVerdict.round <= 1) {
    verdict = lastVerdict;
  }
  if (!verdict) return null;
  const ch = charOf(verdict.card);
  const chosen = verdict.choice === null || verdict.choice === undefined ? null : verdict.options[verdict.choice];
  const right = verdict.options[verdict.correct_index];
  const by = verdict.seat === seat && ctx.mode === "play" ? "You" : seatLabel(verdict.seat, names);
  return h(`div.panel.h-verdict.${verdict.correct ? "right" : "wrong"}`, { id: "meaning-verdict", role: "status", "data-correct": String(!!verdict.correct) },
    hz(ch, ".h-big"),
    h("div", {},
      h("p", {}, h("strong.h-mark-verdict", {}, verdict.correct ? "✓ Right" : "✗ Wrong"), " — ",
        chosen === null ? `${by} gave no answer.` : `${by} chose “${chosen}”.`),
      h("p", {}, ch, " means ", h("strong.h-right", {}, `“${right}”`),
        verdict.back ? ` (${verdict.back.pinyin}, ${verdict.back.steps} step${verdict.back.steps === 1 ? "" : "s"})` : "", "."),
      h("p.muted", {}, "Options were: ", verdict.options.map((o, i) => (i === verdict.correct_index ? `${o} ✓` : o)).join(" · "))));
}

/** This turn's declarations at the Emperor: right or wrong, and the answer with its reading. */
function declarationPanel(ctx) {
  const { view, names, seat } = ctx;
  const decls = view.turn?.declarations ?? [];
  if (!decls.length) return null;
  const by = view.active === seat && ctx.mode === "play" ? "You" : seatLabel(view.active, names);
  return decls.map((d) => h(`div.panel.h-verdict.h-declared.${d.correct ? "right" : "wrong"}`, { role: "status", "data-task": d.task?.id, "data-correct": String(!!d.correct) },
    d.task?.answer ? hz(d.task.answer, ".h-big") : null,
    h("div", {},
      h("p", {}, h("strong.h-mark-verdict", {}, d.correct ? "✓ Right" : "✗ Wrong"), ` — ${by} declared `,
        hz(d.order.map(charOf).join(""), ".h-mid"), ` for ${d.task?.id}: “${d.task?.question ?? ""}”.`),
      d.task?.answer ? h("p", {}, "The answer is ", hz(d.task.answer, ".h-mid"), d.task.pinyin ? ` (${d.task.pinyin})` : "", ".") : null)));
}

function turnPanel(ctx) {
  const { view, names } = ctx;
  const t = view.turn ?? {};
  const played = t.played;
  return h("div.h-turn", {},
    h("span", {}, "Round ", h("strong", {}, String(view.round ?? 0)), view.mode === "rounds" ? ` of ${view.round_limit}` : view.target ? ` (first to ${view.target} tasks)` : ""),
    h("span", {}, "Step: ", h("strong", {}, PHASE_TEXT[view.phase] ?? view.phase)),
    view.active !== null && view.active !== undefined ? h("span", {}, "Turn of ", h("strong", {}, seatLabel(view.active, names))) : null,
    view.chooser !== null && view.chooser !== undefined ? h("span", {}, "Choosing: ", h("strong", {}, seatLabel(view.chooser, names))) : null,
    played ? h("span.h-played", {}, "Played ", hz(charOf(played), ".h-mid"), t.played_back ? ` — ${backText(t.played_back)}` : "") : null,
    t.steps !== null && t.steps !== undefined ? h("span", {}, "steps ", h("strong", {}, String(t.steps))) : null,
    t.stop ? h("span", {}, "stopped on ", h("strong", {}, cellName(t.stop))) : null,
    ["base", "emperor"].includes(view.phase) ? h("span", {}, "next action costs ", h("strong", {}, `${t.next_price ?? 0} coin${t.next_price === 1 ? "" : "s"}`)) : null,
    h("span", {}, "bank ", h("strong", {}, String(view.bank ?? 0))),
    h("span", {}, "deck ", h("strong", {}, String(view.deck_count ?? 0))),
    h("span", {}, "tasks left ", h("strong", {}, String(view.task_deck_count ?? 0))),
    (t.declarations ?? []).map((d) => h(`span.badge.${d.correct ? "turn" : "live"}`, {}, `declared ${d.task?.id}: ${d.correct ? "right" : "wrong"}`,
      d.task?.answer ? [" — answer ", hz(d.task.answer)] : null)));
}

function taskBox(task, { attachedToken = null } = {}) {
  if (!task) return h("p.muted", {}, "no task");
  return h("div.h-task", { "data-task": task.id },
    h("p", {}, h("strong", {}, task.id), " ", task.question),
    task.answer ? h("p", {}, "Answer: ", hz(task.answer, ".h-mid"), task.pinyin ? ` (${task.pinyin})` : "") : null,
    task.attached ? h("div.h-attached", { "aria-label": "cards attached to the task" },
      task.attached.length ? task.attached.map((c) => h("div.h-card.small", {
        "data-pick": attachedToken ? attachedToken(c) : null, "data-card": c, "aria-label": `attached card ${charOf(c)}`,
      }, hz(charOf(c), ".h-char"))) : h("span.muted", {}, "nothing attached")) : null);
}

function players(ctx) {
  const { view, names, seat } = ctx;
  const declaring = (ctx.picked ?? [])[0] === "declare";
  return h("div.h-players", {}, [...Array(view.players ?? 0).keys()].map((s) => {
    const acting = view.active === s || view.chooser === s;
    const mine = s === seat;
    const attachedToken = mine ? (c) => (declaring ? `order:${c}` : `detach:${c}`) : null;
    return h(`section.h-player${acting ? ".acting" : ""}`, { "data-seat": s, "aria-label": `player ${seatLabel(s, names)}` },
      h("h3", {}, h("span.h-fig", { style: `background: ${seatColour(s)}; color: ${SEAT_INK[s % SEAT_INK.length]}` }, String(s)),
        seatLabel(s, names), mine ? h("span.badge.you", {}, ctx.mode === "replay" ? "viewpoint" : "you") : null,
        acting ? h("span.badge.turn", {}, "to act") : null),
      h("div.h-facts", {},
        h("span", {}, "tasks done ", h("strong.h-score", { "data-seat": s }, String(view.scores?.[s] ?? 0))),
        h("span", {}, "coins ", h("strong", {}, String(view.coins?.[s] ?? 0))),
        h("span", {}, "hand ", h("strong", {}, String(view.hand_counts?.[s] ?? 0))),
        h("span", {}, "on ", h("strong", {}, view.positions?.[s] ? cellName(view.positions[s]) : "—")),
        view.start_bases?.[s] ? h("span", {}, "started at ", ROLE_NAME[view.start_bases[s]] ?? view.start_bases[s]) : null),
      taskBox(view.tasks?.[s], { attachedToken }),
      (view.completed?.[s] ?? []).length ? h("p.h-done", {}, "Completed: ", view.completed[s].map((t) => [hz(t.answer ?? t.id), " "])) : null);
  }));
}

function privatePanel(ctx) {
  const you = ctx.view.you;
  if (!you) return null;
  const picked = ctx.picked ?? [];
  const next = ctx.next ?? new Set();
  const returning = picked[0] === "end_turn";
  // a hand card carries the token of what pointing at it would do now
  const handToken = (c) => HAND_VERBS.map((verb) => `${verb}:${c}`).find((t) => next.has(t)) ?? `hand:${c}`;
  const mine = ctx.mode === "replay" ? "Hand" : "Your hand";
  return h("div.panel.h-private", {},
    h("h3", {}, mine, returning ? h("span.muted", {}, " — point at the cards to put back under the deck") : null),
    h("div.h-hand.h-own", { "aria-label": "your hand" }, you.hand.length ? you.hand.map((c) => cardFace(c, handToken(c), you.learned)) : h("span.muted", {}, "no cards")),
    next.has("claim:yes") || next.has("claim:no") ? h("div.h-claim", { role: "group", "aria-label": "how to play the card" },
      h("button.h-option", { type: "button", "data-pick": "claim:yes", "aria-label": "play it and name its meaning" }, "Name its meaning (+1 coin if right)"),
      h("button.h-option.secondary", { type: "button", "data-pick": "claim:no", "aria-label": "just play it" }, "Just play it")) : null,
    you.pool ? [h("h3", {}, "The Minister's pool"), h("div.h-hand", {}, you.pool.map((c) => cardFace(c, `pool:${c}`, you.learned)))] : null,
    you.opponents_hands ? [h("h3", {}, "Their hands (you are on the Spy)"), you.opponents_hands.map((hand, s) => (hand ? h("div.h-hand", { "aria-label": `hand of ${seatLabel(s, ctx.names)}` },
      h("span.muted", {}, seatLabel(s, ctx.names), ": "), hand.map((c) => cardFace(c, `take:${s}:${c}`, you.learned))) : null))] : null,
    Object.keys(you.learned ?? {}).length ? h("p.muted", {}, "Studied: ", Object.entries(you.learned).map(([ch, back]) => [hz(ch), ` ${backText(back)}; `])) : null);
}

function taskOffer(ctx) {
  const offer = ctx.view.task_offer ?? [];
  if (!offer.length) return null;
  return h("div.panel", {}, h("h3", {}, "Tasks to choose from"),
    h("div.h-offer", {}, offer.map((t) => h("div.h-task.offer", { "data-pick": `task:${t.id}`, "aria-label": `task ${t.id}: ${t.question}` },
      h("strong", {}, t.id), " ", t.question))));
}

function resultPanel(ctx) {
  const r = ctx.view.result;
  if (!r) return null;
  const reason = { TARGET_REACHED: "a player completed the target number of tasks", ROUND_LIMIT: "the last round was played",
    MAX_ROUNDS: "the round cap was reached", NO_TASKS: "no tasks were left", STALLED: "nobody could play a card" }[r.reason] ?? r.reason;
  return h("div.panel.h-result", { id: "h-result" },
    h("h3", {}, "Final result"),
    h("p", {}, `The game ended because ${reason}.`),
    h("ul", {}, (r.scores ?? []).map((sc, s) => h("li", { "data-seat": s },
      seatLabel(s, ctx.names), ": ", h("strong.h-final", { "data-seat": s }, String(sc)), ` task${sc === 1 ? "" : "s"}`,
      ` · ${ctx.view.coins?.[s] ?? 0} coins`, (r.winners ?? []).includes(s) ? h("span.badge.turn", {}, "winner") : null))));
}

// -- the module ---------------------------------------------------------------------------------

export default {
  setReference(reference) {
    linkCss();
    lastVerdict = null; // a new screen (another match, or a replay): nothing remembered from before
    lastAsked = null;
    CELLS = reference?.board?.cells ?? [];
    BY_ID = Object.fromEntries(CELLS.map((c) => [c.id, c]));
  },

  path(cmd, ctx) {
    const handOrder = (cards) => {
      const hand = ctx?.view?.you?.hand ?? [];
      return [...cards].sort((a, b) => hand.indexOf(a) - hand.indexOf(b));
    };
    switch (cmd.type) {
      case "choose_base": return [`base:${cmd.base}`];
      case "pick_task": return [`task:${cmd.task}`];
      case "play_card": return [`play:${cmd.card}`, cmd.claim ? "claim:yes" : "claim:no"];
      case "answer": return [cmd.choice === null || cmd.choice === undefined ? "answer:none" : `answer:${cmd.choice}`];
      case "move": return cmd.path.length ? cmd.path.map((c) => `cell:${c}`) : ["stay"];
      case "teleport": return [cmd.to ? `teleport:${cmd.to}` : "teleport:stay"];
      case "study": return [`study:${cmd.card}`];
      case "view_task": return ["view_task"];
      case "blast": return [`block:${cmd.block}`];
      case "minister_draw": return [`minister:${cmd.from}`];
      case "minister_resolve": {
        const hand = ctx?.view?.you?.hand ?? [];
        const pairs = [...cmd.swaps].sort((a, b) => hand.indexOf(a[0]) - hand.indexOf(b[0]));
        return ["resolve", ...pairs.flatMap(([mine, pool]) => [`swap:${mine}`, `pool:${pool}`])];
      }
      case "spy_swap": return [`give:${cmd.own_card}`, `take:${cmd.target}:${cmd.target_card}`];
      case "attach": return [`attach:${cmd.card}`];
      case "detach": return [`detach:${cmd.card}`];
      case "declare": return ["declare", ...cmd.order.map((c) => `order:${c}`)];
      case "end_turn": return ["end_turn", ...handOrder(cmd.return ?? []).map((c) => `return:${c}`)];
      case "start": return ["start"];
      case "timeout": return ["timeout"];
      default: return [`move:${JSON.stringify(cmd)}`];
    }
  },

  tokenLabel(token, ctx) {
    const i = token.indexOf(":");
    const kind = i < 0 ? token : token.slice(0, i);
    const v = i < 0 ? "" : token.slice(i + 1);
    const view = ctx?.view ?? {};
    switch (kind) {
      case "base": return `start on the ${ROLE_NAME[v] ?? v}`;
      case "task": {
        const t = (view.task_offer ?? []).find((x) => x.id === v);
        return `take task ${v}${t ? `: ${t.question}` : ""}`;
      }
      case "hand": return `your ${charOf(v)}`;
      case "play": return `play ${charOf(v)}`;
      case "attach": return `attach ${charOf(v)} to the task`;
      case "study": return `study ${charOf(v)}`;
      case "give": return `give ${charOf(v)} away`;
      case "swap": return `swap ${charOf(v)}`;
      case "claim": return v === "yes" ? "play it and name its meaning (a coin if right)" : "just play it";
      case "answer": {
        if (v === "none") return "no answer";
        const text = view.turn?.claim?.options?.[Number(v)];
        return text ? `it means “${text}”` : `answer with meaning ${Number(v) + 1} of 4`;
      }
      case "cell": return `step to ${cellName(v)}`;
      case "stay": return "stay here (0 steps)";
      case "teleport": return v === "stay" ? "stay on this teleport" : `jump to ${cellName(v)}`;
      case "view_task": return "look at the answer of your task";
      case "block": return `blow up block ${v}`;
      case "minister": return `draw three cards from the ${v} of the deck`;
      case "resolve": return "swap with the pool (or keep your hand)";
      case "pool": return `take ${charOf(v)} from the pool`;
      case "take": {
        const [s, card] = v.split(":");
        return `take ${charOf(card)} from ${seatLabel(Number(s), ctx?.names)}`;
      }
      case "detach": return `take ${charOf(v)} back from your task`;
      case "declare": return "declare your task (put the attached cards in order)";
      case "order": return `then ${charOf(v)}`;
      case "end_turn": return "end your turn";
      case "return": return `put ${charOf(v)} back under the deck`;
      case "start": return "the match starts: cards shuffled and dealt";
      case "timeout": return "time ran out for the meaning: no answer, no coin";
      default: return token;
    }
  },

  render(root, ctx) {
    linkCss();
    const view = ctx.view ?? {};
    if (!CELLS.length || view.players === undefined) {
      root.replaceChildren(h("div.panel", {}, h("p.muted", {}, "Waiting for the board…")));
      return;
    }
    root.replaceChildren(h("div.hieroglyphs", {},
      resultPanel(ctx),
      meaningPanel(ctx),
      declarationPanel(ctx),
      h("div.panel", {}, turnPanel(ctx)),
      taskOffer(ctx),
      privatePanel(ctx),
      h("div.panel.h-board-panel", {}, boardGrid(ctx)),
      h("div.panel", {}, h("h3", {}, "Players"), players(ctx))));
  },
};
