// The Teahouse web client: lobby, match screen (play or watch), replay. Hash routes:
//   #/                         the lobby
//   #/match/<id>[?seat=N]      play seat N (with a token this browser holds) or watch
//   #/match/<id>?take=N        an invitation: take seat N if it is free, then play it
//   #/m/<id>@<seq>[?as=public|seat:N]  one moment of a match as one audience: its address
//   #/replay/<id>[?seat=S&seq=N]  the same, in the older form
//   #/me                       my matches (as a player), who I am, the turn notifications
//   #/leaderboard/<game>       a game's ratings
import { ConnectionLost, Rejected, ServerError, TeahouseClient } from "/js/teahouse.js";
import { boardFor, loadBoard } from "./boards/index.js";
import { optionsForm } from "./options_form.js";
import { renderChances } from "./chances.js";
import { alwaysConfirm, escapeCancels, Picker, setAlwaysConfirm } from "./picker.js";
import { identity, leaderboardScreen, myMatchesScreen, notify, renderRatings, takeSeatAs, watchTurns } from "./players.js";
import { language, languageSwitch, list, missingKeys, onLanguage, startI18n, t, tOr } from "./i18n.js";
import { fill, h, moveLabel, renderStatus, seatLabel } from "./render.js";
import { positionRegion } from "./position.js";
import { playTurnSound, soundSwitch } from "./turn_sound.js";
import { rulesButton } from "./rules.js";

const client = new TeahouseClient();
const app = document.getElementById("app");
let cleanup = () => {};
let gamesCache = null;

// -- small utilities ----------------------------------------------------------------------------

/** A map kept in localStorage as JSON ({} when absent or unreadable). */
function storedMap(key) {
  try {
    return JSON.parse(localStorage.getItem(key) || "{}");
  } catch {
    return {};
  }
}

const store = {
  name() {
    return localStorage.getItem("teahouse.name") || "";
  },
  setName(v) {
    localStorage.setItem("teahouse.name", v);
  },
  seats() {
    return storedMap("teahouse.seats");
  },
  /** {seat: token} this browser holds for a match. */
  tokens(match) {
    return this.seats()[match] ?? {};
  },
  /** A private match's spectator key (SPEC 2.4) this browser was given, or null. */
  key(match) {
    try {
      return JSON.parse(localStorage.getItem("teahouse.keys") || "{}")[match] ?? null;
    } catch {
      return null;
    }
  },
  addKey(match, key) {
    let all = {};
    try {
      all = JSON.parse(localStorage.getItem("teahouse.keys") || "{}");
    } catch { /* a damaged entry is replaced */ }
    all[match] = key;
    localStorage.setItem("teahouse.keys", JSON.stringify(all));
  },
  addToken(match, seat, token) {
    const all = this.seats();
    all[match] = { ...(all[match] ?? {}), [seat]: token };
    localStorage.setItem("teahouse.seats", JSON.stringify(all));
  },
  /** The invite links of the matches this browser created. */
  links() {
    return storedMap("teahouse.invites");
  },
  /** [{seat, invite}] of a match this browser created. */
  invites(match) {
    return this.links()[match] ?? [];
  },
  keepInvites(summary) {
    if (!summary.invites?.length) return;
    const all = this.links();
    all[summary.match] = summary.invites;
    localStorage.setItem("teahouse.invites", JSON.stringify(all));
  },
};

let toastTimer;
function toast(text, kind = "info") {
  const el = document.getElementById("toast");
  el.textContent = text;
  el.className = `toast ${kind}`;
  el.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { el.hidden = true; }, kind === "error" ? 6000 : 3000);
}

function explain(err) {
  if (err instanceof ServerError) return `${err.serverMessage} (${err.code})`;
  return err?.message ?? String(err);
}

/** The address of one moment: `#/m/<match>@<seq>?as=public|seat:N`. */
function momentAddress(match, seq, seat) {
  return `#/m/${match}@${seq}?as=${seat === null || seat === undefined ? "public" : `seat:${seat}`}`;
}

/** The link that invites a friend to take `seat` of a match (the match screen takes it). */
function inviteLink(match, seat) {
  return `${location.origin}${location.pathname}#/match/${match}?take=${seat}`;
}

/** `<match>@<seq>` and `as=` into the replay screen's (match, params). */
function momentOf(part, params) {
  const [match, seq] = part.split("@");
  const out = new URLSearchParams();
  if (seq !== undefined && seq !== "") out.set("seq", seq);
  const as = params.get("as") ?? "public";
  out.set("seat", as.startsWith("seat:") ? as.slice(5) : "spectator");
  return [match, out];
}

function parseHash() {
  const raw = location.hash.replace(/^#/, "") || "/";
  const [path, query = ""] = raw.split("?");
  return { parts: path.split("/").filter(Boolean), params: new URLSearchParams(query) };
}

async function games() {
  gamesCache ??= await client.games();
  return gamesCache;
}

/** A game's name in the reader's language (the catalogue's), else the server's. */
function gameName(id) {
  return tOr(`game.${id}.name`, {}, gamesCache?.find((g) => g.id === id)?.name ?? id);
}

function names(summary) {
  return (summary?.seats ?? []).map((s) => s.name);
}

/** The public facts a board draws from (card faces, the map): the board module learns them. */
async function loadReference(summary) {
  const board = await loadBoard(summary.game);
  try {
    const reference = (await client.reference(summary.match)).reference;
    board.setReference(reference);
    return reference;
  } catch (err) {
    toast(t("error.no_reference", { why: explain(err) }), "error"); // the board still draws what it can
    return {};
  }
}

async function takeSeat(match, seat = null) {
  const name = store.name() || null;
  const got = await takeSeatAs(client, match, seat, name); // as this browser's player, if it is one
  store.addToken(match, got.seat, got.token);
  return got;
}

// -- router -------------------------------------------------------------------------------------

async function route() {
  cleanup();
  cleanup = () => {};
  delete document.body.dataset.replaySeq; // a new screen has shown no step yet
  const { parts, params } = parseHash();
  // A spectator link (…?key=K) of a private match: the key is kept for every screen of it.
  const matchOf = parts[0] === "m" ? (parts[1] ?? "").split("@")[0] : parts[1];
  if (params.get("key") && matchOf) store.addKey(matchOf, params.get("key"));
  fill(app, h("p.muted", {}, t("common.loading")));
  try {
    if (parts[0] === "match" && parts[1]) cleanup = await matchScreen(parts[1], params);
    else if (parts[0] === "replay" && parts[1]) cleanup = await replayScreen(parts[1], params);
    else if (parts[0] === "m" && parts[1]) cleanup = await replayScreen(...momentOf(parts[1], params));
    else if (parts[0] === "me") cleanup = await myMatchesScreen(app, client, playerContext());
    else if (parts[0] === "leaderboard") cleanup = await leaderboardScreen(app, client, playerContext(), parts[1]);
    else if (parts[0] === "invite" && parts[1] && parts[2]) await inviteScreen(parts[1], parts[2]);
    else cleanup = await lobbyScreen();
  } catch (err) {
    fill(app, h("div.panel", {}, h("h2", {}, t("error.title")), h("p", {}, explain(err)),
      h("a.button", { href: "#/" }, t("common.back_to_lobby"))));
  }
}

/** What the players' pages (players.js) use of this module. */
function playerContext() {
  return { name: () => store.name(), setName: (v) => { store.setName(v); const el = document.getElementById("my-name"); if (el) el.value = v; },
    tokens: (m) => store.tokens(m), toast, explain, games, gameName };
}

// -- links: invites, watching ------------------------------------------------------------------

/** The address of a page of this client, for another device. */
const pageLink = (hash) => `${location.origin}${location.pathname}${hash}`;

/** An invite link opened (on any device): it takes its seat here, then plays it. */
async function inviteScreen(match, invite) {
  try {
    const got = await client.takeSeat(match, { invite, name: store.name() || null });
    store.addToken(match, got.seat, got.token);
    location.replace(`#/match/${match}?seat=${got.seat}`);
  } catch (err) {
    fill(app, h("div.panel", { id: "invite-failed" }, h("h2", {}, t("invite.no_seat")),
      h("p", {}, explain(err)),
      h("a.button", { href: `#/match/${match}` }, t("invite.watch")), " ", h("a.button.secondary", { href: "#/" }, t("common.back_to_lobby"))));
  }
}

/** A link to hand to someone: shown whole (it can be selected), with a copy button. */
function copyLine(label, url, id) {
  const box = h("input.mono", { id, value: url, readonly: true, "aria-label": label, onfocus: (ev) => ev.target.select() });
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(url);
      toast(t("link.copied"));
    } catch {
      box.focus(); // no clipboard here (an insecure page): selected, ready for Ctrl+C
      toast(t("link.copy_by_hand"), "error");
    }
  };
  return h("div.row.link-line", {}, h("span.grow", {}, label), box,
    h("button.small.secondary", { type: "button", id: `${id}-copy`, onclick: copy }, t("link.copy")));
}

// -- lobby --------------------------------------------------------------------------------------

// The server's bot strengths (docs/bots.md), for the lobby's seat pickers.
const BOT_STRENGTHS = [0, 1, 2, 3, 4, 5];

async function lobbyScreen() {
  document.title = t("lobby.title");
  const list = await games();
  const gameSel = h("select", { id: "new-game", name: "game" }, list.map((g) => h("option", { value: g.id }, t("lobby.game_option", { game: gameName(g.id), min: g.min_players, max: g.max_players }))));
  const players = h("input", { id: "new-players", type: "number", name: "players", min: 2, max: 5, value: 2, style: "width: 4.5rem" });
  const options = h("input", { id: "new-options", name: "options", placeholder: t("lobby.options_placeholder"), style: "width: 14rem", class: "mono",
    title: t("lobby.options_title") });
  // The game's own options, as a form built from what it declares (GET /api/games).
  const optionsBox = h("div", { id: "new-options-form" });
  let form = null;
  const drawOptions = () => {
    form = optionsForm(list.find((x) => x.id === gameSel.value), Number(players.value) || 0);
    fill(optionsBox, form.element);
  };
  const clock = h("input", { id: "new-clock", type: "number", name: "turn_seconds", min: 1, max: 604800, placeholder: t("lobby.clock_none"), style: "width: 5.5rem", title: t("lobby.clock_title_kinds") });
  // The time control (SPEC 2.4): seconds per move, days per move, or Fischer (a bank and an increment).
  const clockKind = h("select", { id: "new-clock-kind", "aria-label": t("lobby.clock_kind") },
    h("option", { value: "per_move" }, t("lobby.clock_per_move")), h("option", { value: "correspondence" }, t("lobby.clock_days")),
    h("option", { value: "fischer" }, t("lobby.clock_fischer")));
  const increment = h("input", { id: "new-clock-increment", type: "number", min: 0, max: 86400, value: 0, style: "width: 4.5rem", "aria-label": t("lobby.clock_increment_label") });
  const incrementBox = h("label", { hidden: true }, t("lobby.clock_increment"), increment);
  clockKind.addEventListener("change", () => { incrementBox.hidden = clockKind.value !== "fischer"; });
  const timeControl = () => {
    if (!clock.value.trim()) return null;
    const n = Number(clock.value);
    if (clockKind.value === "correspondence") return { type: "correspondence", days: n };
    if (clockKind.value === "fischer") return { type: "fischer", bank_seconds: n, increment_seconds: Number(increment.value) || 0 };
    return { type: "per_move", seconds: n };
  };
  const listed = h("input", { type: "checkbox", id: "new-listed", checked: true });
  // A spectator delay the server enforces (SPEC 2.4): the public sees the match N commits or T s late.
  const delay = h("input", { id: "new-delay", type: "number", name: "spectator_delay", min: 1, placeholder: t("lobby.clock_none"), style: "width: 5rem",
    title: t("lobby.delay_title") });
  const delayUnit = h("select", { id: "new-delay-unit", "aria-label": t("lobby.delay_unit") },
    h("option", { value: "commits" }, t("lobby.delay_moves")), h("option", { value: "seconds" }, t("lobby.delay_seconds")));
  // A private match (SPEC 2.4): watched by its spectator link only, or by nobody; never listed.
  const watchers = h("select", { id: "new-spectators", "aria-label": t("lobby.watchers_label") },
    h("option", { value: "public" }, t("lobby.watchers_public")), h("option", { value: "link" }, t("lobby.watchers_link")),
    h("option", { value: "off" }, t("lobby.watchers_off")));
  const sit = h("input", { type: "checkbox", id: "new-sit", checked: true });
  // Who plays each seat: a person (who takes it from the lobby) or one of the server's bots.
  const seatsBox = h("div.row", { id: "new-seats" });
  const seatPickers = [];
  const drawSeats = () => {
    const n = Number(players.value) || 0;
    while (seatPickers.length < n) {
      const i = seatPickers.length;
      seatPickers.push(h("select", { id: `new-bot-${i}`, "data-seat": i, "aria-label": t("lobby.who_plays_seat", { seat: i }) },
        h("option", { value: "" }, t("lobby.a_person")),
        BOT_STRENGTHS.map((v) => h("option", { value: String(v) }, t("lobby.bot", { strength: t(`bot.${v}`) })))));
    }
    fill(seatsBox, ...seatPickers.slice(0, n).map((sel, i) => h("label", {}, t("common.seat", { seat: i }), sel)));
  };
  const pickedBots = () => seatPickers.slice(0, Number(players.value) || 0)
    .map((sel, seat) => ({ seat, strength: sel.value === "" ? null : Number(sel.value) }))
    .filter((b) => b.strength !== null);
  const pick = () => {
    const g = list.find((x) => x.id === gameSel.value);
    players.min = g.min_players;
    players.max = g.max_players;
    players.value = Math.min(Math.max(Number(players.value) || g.min_players, g.min_players), g.max_players);
    drawSeats();
    drawOptions();
  };
  gameSel.value = list.some((g) => g.id === "pixies") ? "pixies" : list[0]?.id;
  gameSel.addEventListener("change", pick);
  players.addEventListener("input", () => { drawSeats(); drawOptions(); });
  pick();

  const create = async (ev) => {
    ev.preventDefault();
    let opts = form.options();
    if (options.value.trim()) {
      try {
        opts = { ...opts, ...JSON.parse(options.value) }; // the advanced field has the last word
      } catch {
        toast(t("lobby.options_bad"), "error");
        return;
      }
    }
    try {
      const bots = pickedBots();
      const spectatorDelay = delay.value.trim() ? { [delayUnit.value]: Number(delay.value) } : null;
      const spectators = watchers.value;
      const m = await client.createMatch(gameSel.value, Number(players.value), { options: opts,
        listed: listed.checked && spectators === "public", timeControl: timeControl(), bots, spectatorDelay, spectators });
      if (m.spectator_key) store.addKey(m.match, m.spectator_key); // shown once: the match screen offers its link
      store.keepInvites(m);
      if (sit.checked && bots.length < Number(players.value)) {
        const s = await takeSeat(m.match);
        location.hash = `#/match/${m.match}?seat=${s.seat}`;
      } else {
        location.hash = `#/match/${m.match}`;
      }
    } catch (err) {
      toast(t("lobby.create_failed", { why: explain(err) }), "error");
    }
  };

  const tbody = h("tbody", { id: "match-rows" });
  // By default the matches one can play or watch now: finished ones and forks (a study of a
  // finished match) are one choice away.
  const filter = h("select", { id: "match-filter" },
    h("option", { value: "current" }, t("lobby.filter_current")), h("option", { value: "open" }, t("state.open")),
    h("option", { value: "live" }, t("state.live")), h("option", { value: "finished" }, t("state.finished")),
    h("option", { value: "forks" }, "forks"), h("option", { value: "" }, t("lobby.filter_all")));
  const refresh = async () => {
    let rows;
    try {
      const state = ["open", "live", "finished"].includes(filter.value) ? filter.value : null;
      rows = await client.matches(state);
    } catch (err) {
      fill(tbody, h("tr", {}, h("td", { colspan: 6 }, t("lobby.list_failed", { why: explain(err) }))));
      return;
    }
    if (filter.value === "current") rows = rows.filter((m) => ["open", "live"].includes(m.state) && !m.forked_from);
    if (filter.value === "forks") rows = rows.filter((m) => m.forked_from);
    rows.sort((a, b) => b.created - a.created);
    fill(tbody, ...(rows.length ? rows.slice(0, 100).map(matchRow)
      : [h("tr", {}, h("td.muted", { colspan: 6 }, t("lobby.none")))]));
  };
  filter.addEventListener("change", refresh);

  function matchRow(m) {
    const mine = store.tokens(m.match);
    const actions = [];
    for (const [seat, _] of Object.entries(mine)) {
      if (m.state !== "finished") actions.push(h("a.button.small", { href: `#/match/${m.match}?seat=${seat}` }, t("lobby.play_seat", { seat })));
    }
    if (m.state === "open") {
      for (const s of m.seats.filter((x) => !x.taken)) {
        actions.push(h("button.small.take-seat", {
          "data-seat": s.seat,
          onclick: async () => {
            try {
              const got = await takeSeat(m.match, s.seat);
              location.hash = `#/match/${m.match}?seat=${got.seat}`;
            } catch (err) {
              toast(t("lobby.take_failed", { why: explain(err) }), "error");
              refresh();
            }
          },
        }, t("lobby.take_seat", { seat: s.seat })));
      }
    }
    actions.push(h("a.button.small.secondary.watch", { href: `#/match/${m.match}` }, m.state === "finished" ? t("lobby.view") : t("lobby.watch")));
    actions.push(h("a.button.small.secondary.replay", { href: `#/replay/${m.match}` }, t("common.replay")));
    const seats = m.seats.map((s) => s.taken ? (s.name || t("common.seat_lower", { seat: s.seat })) : h("span.muted", {}, t("lobby.free")));
    return h("tr", { "data-match": m.match },
      h("td.mono", {}, m.match),
      h("td", {}, gameName(m.game)),
      h("td", {}, h(`span.badge.${m.state}`, {}, t(`state.${m.state}`)), " ", openHandBadge(m), delayBadge(m), " ", clockBadge(m)),
      h("td", {}, seats.flatMap((s, i) => (i ? [", ", s] : [s]))),
      h("td", {}, new Date(m.created).toLocaleTimeString(document.documentElement.lang)),
      h("td", {}, h("div.row", {}, actions)));
  }

  fill(app, 
    h("section.panel", {},
      h("h2", {}, t("lobby.new_match")),
      h("form.row", { id: "create-form", onsubmit: create },
        h("label", {}, t("lobby.game"), gameSel), rulesButton(() => gameSel.value, gameName, "lobby-rules"),
        h("label", {}, t("lobby.players"), players),
        h("label", {}, t("lobby.advanced_options"), options),
        h("label", {}, t("lobby.clock"), clockKind, clock), incrementBox,
        h("label", {}, t("lobby.delay"), delay, delayUnit),
        h("label", {}, t("lobby.watchers"), watchers),
        h("label", {}, listed, t("lobby.listed")), h("label", {}, sit, t("lobby.sit")),
        h("button", { type: "submit", id: "create-match" }, t("lobby.create"))),
      h("div.row", {}, h("span.muted", {}, t("lobby.options")), optionsBox),
      h("div.row", {}, h("span.muted", {}, t("lobby.who_plays")), seatsBox)),
    h("section.panel", {},
      h("div.row", {}, h("h2.grow", {}, t("lobby.matches")), h("label", {}, t("lobby.show"), filter),
        h("button.secondary.small", { onclick: refresh }, t("lobby.refresh"))),
      h("table.matches", { id: "match-table" }, h("thead", {}, h("tr", {}, ["match", "game", "state", "seats", "created"].map((k) => h("th", {}, t(`lobby.col_${k}`))), h("th", {}, ""))), tbody)));
  await refresh();
  const timer = setInterval(refresh, 4000);
  return () => clearInterval(timer);
}

// -- the board, shared by the match, spectator and replay screens --------------------------------

/**
 * Draws a game's board into `root` with the picker's marks, and remembers what each keyed part
 * of the board (data-key) looked like, so the parts the last commit changed are highlighted.
 */
class BoardView {
  constructor(game, reference) {
    this.game = game;
    this.module = boardFor(game);
    this.reference = reference;
    this.root = h("div.board-root", { id: "board-root" });
    this.before = new Map();
    this.changed = new Set();
    this.seq = null;
  }

  draw(ctx, picker = null, seq = null) {
    const focused = document.activeElement?.closest?.("[data-pick]");
    const focusToken = focused && this.root.contains(focused) ? focused.getAttribute("data-pick") : null;
    this.module.render(this.root, { reference: this.reference, ...ctx,
      picked: picker?.picked ?? [], next: picker ? picker.next : new Set() });
    this.root.append(positionRegion(this.game, { reference: this.reference, ...ctx }));
    const now = new Map([...this.root.querySelectorAll("[data-key]")].map((el) => [el.getAttribute("data-key"), el.innerHTML]));
    if (seq !== this.seq) {
      // a new commit (not a pick): what changed since the last one drawn is the last move
      this.changed = this.seq === null || seq === null || seq !== this.seq + 1 ? new Set()
        : new Set([...now].filter(([k, v]) => this.before.has(k) && this.before.get(k) !== v).map(([k]) => k));
      this.before = now;
      this.seq = seq;
    }
    for (const el of this.root.querySelectorAll("[data-key]")) {
      if (this.changed.has(el.getAttribute("data-key"))) el.classList.add("last-move");
    }
    for (const el of this.root.querySelectorAll("[data-pick]")) {
      if ((ctx.last?.tokens ?? []).includes(el.getAttribute("data-pick"))) el.classList.add("last-move");
    }
    // a labelled part with no role is an image to assistive technology (an SVG space, a card:
    // its label its name), or a group when it holds labelled parts (a hand, the market); the
    // picker makes the pickable ones buttons
    for (const el of this.root.querySelectorAll("[aria-label]:not([role])")) {
      el.setAttribute("role", el.querySelector("[aria-label], [data-pick]") ? "group" : "img");
    }
    if (picker) picker.decorate(this.root, focusToken);
  }

  label(token, ctx) {
    return this.module.tokenLabel ? this.module.tokenLabel(token, { reference: this.reference, ...ctx }) : token;
  }

  /** A command in words, from the board's tokens (when the server gives no sentence). */
  describe(cmd, ctx) {
    try {
      return this.module.path(cmd, { reference: this.reference, ...ctx }).map((t) => this.label(t, ctx)).join(" → ");
    } catch {
      return moveLabel(cmd, "");
    }
  }
}

/** The running log of sentences, newest last, scrolled to the end. */
function renderLog(entries, names) {
  // tabindex: a keyboard can focus the log and scroll it; #announce speaks new sentences.
  const list = h("ol.log", { id: "game-log", "aria-label": t("log.label"), tabindex: 0 },
    entries.map((e) => h("li", { "data-seq": e.seq, class: e.kind ?? null },
      h("span.log-seq", {}, String(e.seq)), " ",
      e.seat !== null && e.seat !== undefined ? h("strong", {}, t("log.who", { who: names[e.seat] || t("common.seat", { seat: e.seat }) })) : null,
      words(e))));
  return h("div.panel.log-panel", {}, h("h3", {}, t("log.title")),
    entries.length ? list : h("p.muted", { id: "game-log" }, t("log.empty")));
}

/** The sentences the server says about a commit (narration), when it sends them. */
function saidOf(game) {
  const said = game?.said ?? game?.doc?.said;
  return Array.isArray(said) ? said.filter((s) => typeof s === "string") : [];
}

/** A commit's sentences as log entries: the English text and, when the server sent one
 * (SPEC 3.14, `said_keys`), the message key and parameters to say it in the reader's language. */
function entriesOf(seq, said, keys, extra = {}) {
  return said.map((text, i) => ({ seq, seat: null, text, msg: keys?.[i] ?? null, ...extra }));
}

// The game whose words the page shows now: message parameters such as cards are named from its
// catalogue.
let currentGame = null;

/** An entry's words: the server's sentence in the reader's language when the catalogue knows its
 * key, else its English text. */
function words(e) {
  const msg = e.msg;
  if (!msg?.key) return e.text;
  return tOr(`said.${msg.key}`, sayParams(msg.params ?? {}), e.text);
}

/** Message parameters made readable: a card id is named by the game's board in the reader's language, a list of
 * names is joined as the language joins lists. */
function sayParams(params) {
  const out = {};
  const cardName = currentGame ? boardFor(currentGame).cardName : null;
  for (const [k, v] of Object.entries(params)) {
    const named = (x) => {
      if (x && typeof x === "object" && typeof x.text === "string") return words({ text: x.text, msg: x }); // a sentence
      if (cardName && /^(cards?|discarded)$/.test(k)) return cardName(x);
      if (typeof x !== "string") return x;
      if (k === "move") return tOr(`move.${x}`, {}, x.replace(/_/g, " ")); // a command's type
      return x;
    };
    out[k] = Array.isArray(v) ? list(v.map(named)) : named(v);
  }
  return out;
}

/** The end: final scores and the sentences that say why. */
function renderEnd(status, lastSaid, names, seat) {
  if (!status?.finished) return null;
  const result = status.result ?? {};
  const winners = (result.winners ?? []).map((s) => (s === seat ? t("common.you") : names[s] || t("common.seat", { seat: s })));
  const scores = result.scores ? list(result.scores.map((sc, i) => t("end.score", { who: names[i] || t("common.seat", { seat: i }), score: sc }))) : null;
  return h("div.panel.end", { id: "the-end", role: "status" },
    h("h2", {}, t("end.title")),
    h("p", {}, winners.length ? t("end.won_by", { winners: list(winners), scores: scores ?? "" , has_scores: scores ? 1 : 0 }) : t("end.nobody_won")),
    result.reason ? h("p.why", {}, String(result.reason)) : null,
    lastSaid.length ? h("ul.why", {}, lastSaid.map((s) => h("li", {}, typeof s === "string" ? s : words(s)))) : null);
}

// -- match --------------------------------------------------------------------------------------

async function matchScreen(matchId, params) {
  const key = store.key(matchId);
  let summary = await client.match(matchId, { key });
  const [, reference] = await Promise.all([games(), loadReference(summary)]);
  const wanted = params.get("seat");
  const tokens = store.tokens(matchId);
  // An invite link (#/match/<id>?take=N) takes its seat when opened, if it is still free.
  const invited = params.get("take");
  if (invited !== null && tokens[invited] === undefined && summary.seats[Number(invited)]?.taken === false) {
    try {
      const got = await takeSeat(matchId, Number(invited));
      location.replace(`#/match/${matchId}?seat=${got.seat}`);
      return () => {};
    } catch (err) {
      toast(t("invite.take_failed", { why: explain(err) }), "error");
    }
  }
  let mySeat = wanted !== null && tokens[wanted] ? Number(wanted) : null;
  currentGame = summary.game;
  document.title = t("match.title", { game: gameName(summary.game), match: matchId });
  const board = new BoardView(summary.game, reference);

  const ui = {
    strip: h("div.turn-strip", { id: "turn-strip" }),
    announce: h("div.sr-only", { id: "announce", role: "log", "aria-live": "polite" }),
    head: h("div.panel.match-head"),
    status: h("div.panel", { id: "status" }),
    presence: h("div.panel", { id: "presence" }),
    moves: h("div.panel", { id: "moves" }),
    bar: h("div.picker-slot", { id: "picker-slot" }),
    end: h("div"),
    links: h("div"),
    log: h("div"),
    raw: h("details.panel", {}, h("summary", {}, t("match.raw"))),
  };
  const rawBody = h("div");
  ui.raw.append(rawBody);
  // On a phone the strip (whose turn, the clock, the last move, the log one tap away) stays at
  // the top and the board comes right under it; the picker is a bottom sheet over the rest.
  // Put on the page once the first view has filled it (below: after connect), not empty before:
  // panels that grow under a reader's eyes as the data comes are a layout shift.
  const screen = [ui.strip, ui.announce, ui.head, h("div.columns", {},
    // (a heading for the board, for assistive technology: the match's h1, then the board's h3s)
    h("div.board-col", {}, ui.end, ui.links, h("h2.sr-only", {}, t("match.board")), h("div", { id: "board" }, board.root), ui.bar, ui.raw),
    h("div.side-col", {}, ui.status, ui.moves, ui.log, ui.presence))];

  let conn = null;
  let game = null;
  let closed = false;
  let connState = t("conn.connecting");
  let legal = { seq: -1, loading: false };
  let sending = false;
  let attempt = null; // the last refused attempt: {label, message, code}
  const log = []; // {seq, seat, text, kind}
  let lastSeen = { seq: null, toAct: [], said: [] };
  let lastTokens = [];
  const picker = new Picker({
    path: (cmd) => board.module.path(cmd, ctx()),
    tokenLabel: (t) => board.label(t, ctx()),
    send: (cmd, label) => play(cmd, label),
    changed: () => render(),
    costly: (cmd) => Boolean(board.module.costly?.(cmd, ctx())),
  });
  const offEscape = escapeCancels(picker);

  function ctx() {
    return { view: game?.view ?? {}, status: game?.status ?? {}, seat: mySeat, names: names(summary),
      mode: mySeat === null ? "watch" : "play", last: { said: lastSeen.said.map((e) => e.text), tokens: lastTokens, seq: lastSeen.seq } };
  }

  // The turn clock (SPEC §3.10): seconds left for the seats to act, redrawn every second; it
  // turns orange, then red, as it runs low.
  function clockText() {
    const left = Math.max(0, Math.ceil((game.deadline - Date.now()) / 1000));
    const who = (game.status.to_act ?? []).map((s) => (s === mySeat ? t("common.you") : seatLabel(s, names(summary))));
    const params = { left, time: duration(left * 1000), who: who.length ? list(who) : t("common.nobody") };
    const banks = game.banks ? ` · ${t("clock.banks")} ${list(fischerBanks())}` : "";
    return t(left === 0 ? "clock.out" : left >= 60 ? "clock.left_long" : "clock.left", params) + banks;
  }
  /** Under Fischer, each seat's bank now: those to act run down from the commit the clock
   * runs from (its time: the deadline less the smallest bank of the seats to act). */
  function fischerBanks() {
    const toAct = game.status.to_act ?? [];
    const since = toAct.length ? game.deadline - Math.min(...toAct.map((s) => game.banks[s])) : Date.now();
    return game.banks.map((b, i) => `${seatLabel(i, names(summary))} ${duration(toAct.includes(i) ? b - (Date.now() - since) : b)}`);
  }
  function clockClass() {
    const left = (game.deadline - Date.now()) / 1000;
    const total = summary.turn_seconds || (summary.time_control?.bank_seconds ?? 60);
    return left <= Math.max(3, total * 0.1) ? "clock low" : left <= Math.max(10, total * 0.3) ? "clock warn" : "clock";
  }
  const ticker = setInterval(() => {
    const el = document.getElementById("clock");
    if (el && game?.deadline) {
      el.textContent = clockText();
      el.className = clockClass();
    }
  }, 500);

  async function connect() {
    conn = await client.connect({ saidKeys: true }).open(); // the server's sentences in the reader's language
    conn.onClose((info) => {
      if (closed) return;
      connState = t("conn.lost", { code: info.code });
      render();
      setTimeout(reconnect, 800);
    });
    game = mySeat !== null ? await conn.join(matchId, tokens[mySeat]) : await conn.spectate(matchId, key);
    connState = t("conn.connected");
    lastSeen = { seq: game.seq, toAct: game.status.to_act ?? [], said: [], deadline: game.deadline };
    game.onChange(onChange);
    await loadPastLog();
  }

  /** What happened before this page came: the server's story (its sentences per commit), else,
   * for a finished match, its public log's commands in words. */
  async function loadPastLog() {
    const story = await client.replay(matchId, { seq: game.seq, key }).catch(() => null);
    if (Array.isArray(story?.log) && story.log.some((e) => e.said?.length)) {
      log.length = 0;
      for (const e of story.log) log.push(...entriesOf(e.seq, e.said ?? [], e.said_keys));
      lastSeen.said = Array.isArray(story.said) ? entriesOf(story.seq, story.said, story.said_keys) : [];
      return;
    }
    if (!game.over) return;
    const full = await client.log(matchId, { key }).catch(() => null);
    log.length = 0;
    for (const [i, c] of (full?.commits ?? []).entries()) {
      const said = Array.isArray(c.said) ? c.said : [];
      if (said.length) log.push(...entriesOf(i + 1, said, c.said_keys));
      else if (c.command) log.push({ seq: i + 1, seat: c.seat ?? null, text: board.describe(c.command, ctx()) });
    }
  }

  async function reconnect() {
    if (closed) return;
    try {
      await conn.reconnect();
      connState = t("conn.connected");
      render();
    } catch {
      setTimeout(reconnect, 2000);
    }
  }

  /** After a commit: its sentences (the server's, else who moved) go to the log. */
  function noteCommit() {
    if (lastSeen.seq === null) {
      lastSeen = { seq: game.seq, toAct: game.status.to_act ?? [], said: entriesOf(game.seq, saidOf(game), game.saidKeys), deadline: game.deadline };
      return;
    }
    if (game.seq === lastSeen.seq) return;
    const said = entriesOf(game.seq, saidOf(game), game.saidKeys);
    if (said.length) {
      log.push(...said);
    } else if (!log.some((e) => e.seq === game.seq)) {
      const who = lastSeen.toAct;
      if (lastSeen.deadline && Date.now() >= lastSeen.deadline - 300 && who.length) {
        log.push({ seq: game.seq, seat: null, kind: "expired",
          text: t("log.clock_ran_out", { who: list(who.map((s) => (s === mySeat ? t("common.you") : seatLabel(s, names(summary))))) }) });
      }
      const text = game.seq === 1 ? t("log.starts") : who.length ? t("log.moved") : t("log.moves_on");
      log.push({ seq: game.seq, seat: game.seq === 1 ? null : who[0] ?? null, text, placeholder: who.length > 0 && game.seq !== 1 });
    }
    if (game.over && !said.length) log.push({ seq: game.seq, seat: null, text: t("log.over"), kind: "end" });
    lastSeen = { seq: game.seq, toAct: game.status.to_act ?? [], said, deadline: game.deadline };
    if (lastTokens.seq !== game.seq) lastTokens = [];
  }

  function onChange(reason) {
    // Someone arrived, left or took a seat (the start comes as a patch at seq 1): refresh the
    // names shown.
    if (reason === "presence" || reason === "finished" || (reason === "patch" && game.seq === 1)) {
      client.match(matchId, { key }).then((s) => { summary = s; render(); }).catch(() => {});
    }
    if (reason === "clock" && lastSeen.seq === game.seq) lastSeen.deadline = game.deadline;
    if (reason === "patch" || reason === "view") {
      noteCommit();
      legal.seq = -1;
      picker.setMoves([]);
    }
    render();
  }

  async function fetchLegal() {
    if (!game || mySeat === null || !game.myTurn || game.over) return;
    if (legal.seq === game.seq || legal.loading) return;
    legal.loading = true;
    const seq = game.seq;
    try {
      const moves = await conn.legalMoves(matchId);
      // the server's label per move (SPEC 3.14), when it is more than the command's type
      const labels = (moves.labels ?? []).map((l, i) => (l && l !== moves[i]?.type ? l : ""));
      legal = { seq, loading: false };
      if (seq === game.seq) picker.setMoves([...moves], labels);
    } catch (err) {
      legal.loading = false;
      if (!(err instanceof ConnectionLost)) toast(t("match.legal_failed", { why: explain(err) }), "error");
    }
    render();
  }

  async function play(cmd, label = null) {
    if (sending) return;
    sending = true;
    // how many moves this page has sent: a test (or a person's tool) sees a one-tap move leave
    document.body.dataset.moves = String(Number(document.body.dataset.moves ?? 0) + 1);
    picker.busy = true;
    const text = label ?? board.describe(cmd, ctx());
    render();
    try {
      const seq = await conn.move(matchId, cmd);
      attempt = null;
      lastTokens = Object.assign(board.module.path(cmd, ctx()), { seq });
      const entry = log.find((e) => e.seq === seq && e.placeholder);
      if (entry) Object.assign(entry, { text, placeholder: false });
      else if (!log.some((e) => e.seq === seq)) log.push({ seq, seat: mySeat, text });
    } catch (err) {
      attempt = { label: text, message: err instanceof ServerError ? err.serverMessage : explain(err), code: err?.code ?? "" };
      toast(err instanceof Rejected ? t("match.refused", { why: err.serverMessage, code: err.code }) : t("match.not_sent", { why: explain(err) }), "error");
      legal.seq = -1;
    } finally {
      sending = false;
      picker.busy = false;
      render();
    }
  }

  async function sit(seat) {
    try {
      const got = await takeSeat(matchId, seat);
      location.hash = `#/match/${matchId}?seat=${got.seat}`;
    } catch (err) {
      toast(t("lobby.take_failed", { why: explain(err) }), "error");
    }
  }

  /** The line that must never be out of sight: whose turn, the clock, the last move, the log. */
  function renderStrip() {
    const ns = names(summary);
    const toAct = game.status.to_act ?? [];
    const mine = mySeat !== null && game.myTurn && !game.over;
    const turn = game.over ? t("strip.over")
      : game.seq === 0 ? t("strip.waiting")
        : mine ? t("strip.your_turn")
          : toAct.length ? t("strip.to_move", { who: list(toAct.map((s) => (s === mySeat ? t("common.you") : seatLabel(s, ns)))), count: toAct.length }) : t("strip.moves_on");
    const lastSaid = [...log].reverse().find((e) => e.text);
    ui.strip.classList.toggle("mine", mine);
    fill(ui.strip,
      h("div.strip-row", {},
        h("strong", { id: "turn-line", class: mine ? "your-turn" : null }, turn),
        game.deadline && !game.over ? h("span", { id: "clock", class: clockClass(), role: "timer" }, clockText()) : null,
        h("button.small.secondary", { type: "button", id: "to-log", onclick: showLog }, t("strip.log"))),
      h("div.strip-last", { id: "last-move-line" }, lastSaid
        ? [lastSaid.seat !== null && lastSaid.seat !== undefined ? t("log.who", { who: seatLabel(lastSaid.seat, ns) }) : "", words(lastSaid)]
        : game.seq === 0 ? t("log.empty") : t("strip.started")));
    announce(mine);
  }

  /** The log, one tap away: scrolled to and focused, so a keyboard can scroll it. */
  function showLog() {
    const l = document.getElementById("game-log");
    if (!l) return;
    l.closest(".log-panel")?.scrollIntoView({ block: "start" });
    l.focus({ preventScroll: true });
  }

  // The tab title and a live region say when the turn comes to this seat, and every sentence of
  // each new commit (a bot may commit twice before a screen reader has read the first), so a
  // player in another tab or with a screen reader knows without looking; a sound too, if asked.
  let announced = { mine: false, seq: null };
  function announce(mine) {
    const title = t("match.title", { game: gameName(summary.game), match: matchId });
    document.title = mine ? t("match.title_mine", { title }) : title;
    if (mine === announced.mine && game.seq === announced.seq) return;
    if (mine && !announced.mine) {
      playTurnSound();
      if (document.hidden) {
        notify(t("announce.notify_title", { game: gameName(summary.game) }), t("announce.notify_body", { match: matchId }),
          `#/match/${matchId}?seat=${mySeat}`);
      }
    }
    const since = announced.seq ?? game.seq - 1;
    const parts = game.seq === since ? [] : log.filter((e) => e.seq > since && e.seq <= game.seq && e.text).map((e) => words(e));
    if (mine) parts.push(t("announce.your_turn"));
    announced = { mine, seq: game.seq };
    for (const text of parts) ui.announce.append(h("p", {}, text));
    // the region is read as it grows; what was read long ago need not stay
    while (ui.announce.childElementCount > 12) ui.announce.firstElementChild.remove();
  }

  /** What was just picked stays above the bottom sheet: scrolled up when the sheet would hide it. */
  function keepPickedInSight() {
    const sheet = document.getElementById("picker");
    const fixed = getComputedStyle(ui.bar).position === "fixed";
    // the page can always scroll its last part out from under the sheet
    app.style.paddingBottom = fixed && ui.bar.offsetHeight ? `${ui.bar.offsetHeight + 16}px` : "";
    const picked = [...board.root.querySelectorAll(".picked")].pop();
    if (!sheet || !picked || !fixed) return;
    const top = sheet.getBoundingClientRect().top;
    const r = picked.getBoundingClientRect();
    if (r.bottom > top - 8) window.scrollBy({ top: r.bottom - top + 16 });
  }

  function renderHead() {
    // (a rematch's seats wait for their players' answers: not for anyone to take, but a seat kept
    // for this browser's player is its to take, from any device: taking it is its answer)
    const me = identity.get()?.player;
    const waiting = new Set((summary.rematch_of?.seats ?? []).filter((a) => a.answer === "waiting" && !(me && a.player === me)).map((a) => a.seat));
    const seatsFree = summary.seats.filter((s) => !s.taken && !waiting.has(s.seat));
    const mine = Object.keys(tokens).map(Number).filter((s) => s !== mySeat);
    fill(ui.head, h("div.row", {},
      h("h1.grow", {}, gameName(summary.game), " ", h("span.muted.mono", {}, matchId)),
      h("span", { id: "audience" }, mySeat !== null ? t("match.you_play", { seat: seatLabel(mySeat, names(summary)) }) : t("match.watching")),
      clockBadge(summary),
      summary.rematch_of ? h("a.badge", { id: "rematch-of", href: `#/match/${summary.rematch_of.match}` }, t("rematch.of", { match: summary.rematch_of.match })) : null,
      rulesButton(() => summary.game, gameName, "match-rules"),
      openHandBadge(summary),
      h("span.badge", { id: "seq", "data-seq": game?.seq ?? null }, t("match.seq", { seq: game?.seq ?? "…" })),
      h("span.badge", { id: "conn-state" }, connState),
      mine.map((s) => h("a.button.small.secondary", { href: `#/match/${matchId}?seat=${s}` }, t("match.switch_seat", { seat: s }))),
      mySeat !== null ? h("a.button.small.secondary", { href: `#/match/${matchId}` }, t("match.watch_instead")) : null,
      game?.over ? h("a.button.small", { href: `#/replay/${matchId}`, id: "to-replay" }, t("common.replay"))
        : game?.seq > 0 ? h("a.button.small.secondary", { href: momentAddress(matchId, game.seq - 1, mySeat), id: "look-back",
          title: t("match.look_back_title") }, t("match.look_back")) : null),
      seatsFree.length && mySeat === null
        ? h("div.row", { style: "margin-top: .5rem" }, h("span.muted", {}, t("match.free_seats")),
          seatsFree.map((s) => h("button.small.take-seat", { "data-seat": s.seat, onclick: () => sit(s.seat) }, t("lobby.take_seat", { seat: s.seat }))))
        : null,
      key ? h("label.invite", { style: "display: block; margin-top: .5rem" }, t("match.spectator_link"),
        h("input.mono", { id: "spectator-link", readonly: true, value: `${location.origin}${location.pathname}#/match/${matchId}?key=${encodeURIComponent(key)}`,
          style: "width: 60%", "aria-label": t("match.spectator_link_label") })) : null,
      seatsFree.length ? h("div.invites", { id: "invites", style: "margin-top: .5rem" },
        h("span.muted", {}, t("match.invite_friend")),
        seatsFree.map((s) => h("label.invite", { "data-seat": s.seat, style: "display: block" }, t("common.seat", { seat: s.seat }), " ",
          h("input.mono.invite-link", { readonly: true, value: inviteLink(matchId, s.seat), style: "width: 70%",
            "aria-label": t("match.invite_link_label", { seat: s.seat }) })))) : null);
  }

  /** Before the start: the invite link of each free seat (to the browser that created the
   * match), the watch link, and in a rematch where each seat's answer stands. */
  function renderWaiting() {
    const free = new Set(summary.seats.filter((s) => !s.taken).map((s) => s.seat));
    const invites = store.invites(matchId).filter((i) => free.has(i.seat));
    const answers = summary.rematch_of?.seats ?? [];
    const ns = names(summary);
    return h("div.panel", { id: "waiting-links" }, h("h3", {}, t("match.waiting_players")),
      invites.map((i) => copyLine(t("match.invite_for", { seat: i.seat }), pageLink(`#/invite/${matchId}/${i.invite}`), `invite-${i.seat}`)),
      summary.spectators === "off" ? null
        : copyLine(t("match.watch_link"), pageLink(`#/match/${matchId}${key ? `?key=${encodeURIComponent(key)}` : ""}`), "watch-link"),
      answers.length ? h("ul", { id: "rematch-answers" }, answers.map((a) => h("li", { "data-seat": a.seat },
        t("rematch.answer", { seat: a.seat, who: ns[a.seat] || t("rematch.last_seat", { seat: a.from_seat }), answer: tOr(`rematch.answer.${a.answer}`, {}, a.answer) })))) : null,
      invites.length ? h("p.muted", {}, t("match.invites_once")) : null);
  }

  /** After the end: ask for a rematch, or answer the one asked; watchers can follow it. */
  function renderRematch() {
    if (!game?.over) return null;
    const next = summary.rematch;
    const held = next ? store.tokens(next) : {};
    if (mySeat === null) {
      return next ? h("div.panel", { id: "rematch-panel" }, h("a.button", { id: "rematch-watch", href: `#/match/${next}` }, t("rematch.watch"))) : null;
    }
    if (!next) {
      return h("div.panel", { id: "rematch-panel" }, h("button", { type: "button", id: "rematch", onclick: () => answerRematch(true) }, t("rematch.ask")),
        h("span.muted", {}, t("rematch.ask_note")));
    }
    if (rematchAnswer) {
      return h("div.panel", { id: "rematch-panel" }, h("p", { id: "rematch-answer" }, rematchAnswer),
        h("a.button.secondary", { href: `#/match/${next}` }, t("rematch.watch")));
    }
    const seat = Object.keys(held)[0];
    if (seat !== undefined) {
      return h("div.panel", { id: "rematch-panel" }, h("a.button", { id: "rematch-go", href: `#/match/${next}?seat=${seat}` }, t("rematch.go")));
    }
    return h("div.panel", { id: "rematch-panel" }, h("p", {}, t("rematch.asked")),
      h("div.row", {}, h("button", { type: "button", id: "rematch-accept", onclick: () => answerRematch(true) }, t("rematch.accept")),
        h("button.secondary", { type: "button", id: "rematch-decline", onclick: () => answerRematch(false) }, t("rematch.decline"))));
  }

  let rematchAnswer = null;
  async function answerRematch(yes) {
    try {
      if (yes) {
        // A seat this browser's player held is kept for that player: its key answers for it.
        const got = await client.rematch(matchId, tokens[mySeat], { playerKey: identity.key() });
        store.addToken(got.match, got.seat, got.token);
        if (got.spectator_key) store.addKey(got.match, got.spectator_key);
        location.hash = `#/match/${got.match}?seat=${got.seat}`;
        return;
      }
      summary = { ...summary, rematch: (await client.declineRematch(matchId, tokens[mySeat], { playerKey: identity.key() })).match };
      rematchAnswer = t("rematch.declined");
    } catch (err) {
      toast(t("rematch.failed", { why: explain(err) }), "error");
    }
    render();
  }

  // A finished match hears of its rematch by looking (any node, any time; nothing to subscribe to).
  const lookForRematch = setInterval(() => {
    if (!game?.over || summary.rematch) return;
    client.match(matchId).then((s) => {
      if (s.rematch) {
        summary = s;
        render();
      }
    }).catch(() => {});
  }, 2500);
  // Before the start: the seats filling up (and a rematch's answers) show on the waiting screen.
  const lookForSeats = setInterval(() => {
    if (!game || game.seq > 0) return;
    client.match(matchId).then((s) => { summary = s; render(); }).catch(() => {});
  }, 2500);

  function renderPresence() {
    const p = game?.presence;
    const ns = names(summary);
    fill(ui.presence, h("h3", {}, t("presence.title")),
      h("ul", { style: "list-style: none; padding: 0; margin: 0" }, summary.seats.map((s) => h("li", { "data-seat": s.seat },
        h(`span.dot${p?.seats?.[s.seat] ? ".on" : ""}`, { title: p?.seats?.[s.seat] ? t("presence.on") : t("presence.off") }),
        s.taken ? seatLabel(s.seat, ns) : h("span.muted", {}, t("presence.free", { seat: s.seat })),
        s.seat === mySeat ? t("presence.you") : ""))),
      h("p.muted", { id: "spectators", style: "margin: .4rem 0 0" }, t("presence.watching", { count: p?.spectators ?? 0 })));
  }

  /** A command typed by hand (the fallback): sent as it is, so the server judges it. */
  function typedCommand() {
    const box = h("textarea.mono", { id: "typed-move", rows: 2, placeholder: '{"type": "…"}', "aria-label": t("typed.label") });
    return h("details.fallback", { id: "typed" }, h("summary", {}, t("typed.summary")),
      box, h("button.small.secondary", { type: "button", id: "send-typed", onclick: () => {
        let cmd;
        try {
          cmd = JSON.parse(box.value);
        } catch {
          attempt = { label: box.value, message: t("typed.not_json"), code: "" };
          render();
          return;
        }
        play(cmd, box.value.trim());
      } }, t("typed.send")));
  }

  function renderMoves() {
    if (mySeat === null) {
      ui.moves.hidden = true;
      fill(ui.bar);
      return;
    }
    ui.moves.hidden = false;
    const mine = game && game.myTurn && !game.over;
    const tried = attempt ? h("p.attempt", { id: "attempt", role: "alert" }, t("moves.tried"), h("strong", {}, attempt.label),
      t("moves.tried_colon"), h("span.refusal", {}, attempt.message), attempt.code ? h("span.muted.mono", {}, ` (${attempt.code})`) : null) : null;
    if (!mine) {
      fill(ui.bar, tried);
      fill(ui.moves, h("h3", {}, t("moves.title")),
        h("p.muted", {}, game?.over ? t("log.over") : game?.seq === 0 ? t("moves.waiting_seats") : t("moves.waiting_others")),
        game?.over ? null : soundSwitch());
      return;
    }
    const ready = legal.seq === game.seq;
    fill(ui.bar, ready ? picker.bar(board.root) : h("p.muted.picker", {}, t("moves.asking")), tried);
    fill(ui.moves, h("div.row", {}, h("h3.grow", {}, t("moves.title")), h("span.your-turn", {}, t("strip.your_turn"))),
      h("p.muted", {}, alwaysConfirm() ? t("moves.help_confirm") : t("moves.help_one_tap")),
      h("label", {}, h("input", { type: "checkbox", id: "always-confirm", checked: alwaysConfirm(),
        onchange: (ev) => { setAlwaysConfirm(ev.target.checked); render(); } }), t("moves.always_confirm")),
      soundSwitch(),
      ready ? picker.list() : null, typedCommand());
  }

  function renderBoard() {
    if (!game) return;
    board.draw(ctx(), mySeat !== null && game.myTurn && legal.seq === game.seq ? picker : null, game.seq);
    if (ui.raw.open) fill(rawBody, h("pre.mono", { style: "white-space: pre-wrap" }, JSON.stringify(game.view, null, 1)));
  }

  // A keyboard player keeps the focus where moves are made: a redraw replaces the picker's
  // buttons and the board's parts, and a move sent takes them away until the next turn, so the
  // focus comes back to the same token when it is still offered, else to the first thing to
  // pick, else to Confirm. Only a keyboard's focus (:focus-visible) is followed: a pointer's is not.
  let keyboardPlay = false;
  function focusBefore() {
    const el = document.activeElement;
    if (!el || el === document.body) return null;
    const inPlay = board.root.contains(el) || ui.bar.contains(el);
    keyboardPlay = inPlay && el.matches(":focus-visible");
    return inPlay ? { token: el.getAttribute("data-pick"), id: el.id } : null;
  }
  function focusAfter(was) {
    if (!keyboardPlay || (document.activeElement && document.activeElement !== document.body)) return;
    const token = was?.token ? CSS.escape(was.token) : null;
    const target = [
      token && `#choices [data-pick="${token}"]:not([disabled])`, token && `#board-root .pickable[data-pick="${token}"]`,
      was?.id && `#picker-slot #${CSS.escape(was.id)}:not([disabled])`,
      "#choices [data-pick]:not([disabled])", "#board-root .pickable", "#confirm-move:not([disabled])",
    ].filter(Boolean).map((sel) => document.querySelector(sel)).find(Boolean);
    target?.focus();
  }

  function render() {
    if (closed) return;
    const was = focusBefore();
    renderHead();
    if (game) {
      renderStrip();
      fill(ui.status, h("h3", {}, t("status.title")), renderStatus(game.status, { names: names(summary), mySeat, players: summary.players }),
        game.finished ? h("p.muted.mono", { style: "font-size: .75rem; word-break: break-all" }, t("status.seed", { seed: game.finished.seed })) : null);
      const end = renderEnd(game.status, lastSeen.said, names(summary), mySeat);
      if (end) loadRatings();
      if (end && ratings !== undefined) end.append(renderRatings(ratings, names(summary), mySeat));
      fill(ui.end, end, renderRematch());
      fill(ui.links, game.seq === 0 && !game.over ? renderWaiting() : null);
      fill(ui.log, renderLog(log.slice(-60), names(summary)));
      const l = document.getElementById("game-log");
      if (l) l.scrollTop = l.scrollHeight;
    }
    renderPresence();
    renderBoard();
    renderMoves();
    focusAfter(was);
    keepPickedInSight();
    fetchLegal();
  }
  ui.raw.addEventListener("toggle", () => render());

  // Each seat's rating change (SPEC 2.16), read once from the finished match's summary.
  let ratings; // undefined: not read yet; null: unrated
  let ratingsAsked = false;
  async function loadRatings() {
    if (ratingsAsked) return;
    ratingsAsked = true;
    try {
      // a rated match's `finished` carries them; a page that joined an older finish reads the summary
      ratings = game?.finished?.ratings ?? (await client.match(matchId)).ratings ?? null;
      render();
    } catch {
      ratingsAsked = false; // asked again at the next render
    }
  }

  await connect();
  fill(app, ...screen); // and filled in the same task: no frame shows the panels empty
  render();
  return () => {
    closed = true;
    clearInterval(ticker);
    clearInterval(lookForRematch);
    clearInterval(lookForSeats);
    offEscape();
    app.style.paddingBottom = "";
    conn?.close();
  };
}

// -- replay -------------------------------------------------------------------------------------

/** A match's time control in words (SPEC 2.4), or null without a clock. */
function clockWords(summary) {
  const tc = summary.time_control ?? (summary.turn_seconds ? { type: "per_move", seconds: summary.turn_seconds } : null);
  if (!tc) return null;
  if (tc.type === "fischer") return `Fischer ${duration(tc.bank_seconds * 1000)} + ${tc.increment_seconds} s`;
  if (tc.type === "correspondence") return t("clock.days_per_move", { n: tc.days });
  return t("match.per_move", { seconds: tc.seconds });
}

/** A badge with the match's time control (every page that shows a match shows it). */
function clockBadge(summary) {
  const words = clockWords(summary);
  return words ? h("span.badge.time-control", { title: t("match.time_control_title") }, words) : null;
}

/** Milliseconds as h:mm:ss, m:ss, or days. */
function duration(ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  if (s >= 2 * 86400) return t("clock.days_hours", { days: Math.floor(s / 86400), hours: Math.floor((s % 86400) / 3600) });
  const hh = Math.floor(s / 3600);
  const mm = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, "0");
  return hh ? `${hh}:${String(mm).padStart(2, "0")}:${ss}` : `${mm}:${ss}`;
}

/** The mark of a match whose spectators are held behind (SPEC 2.4). */
function delayBadge(summary) {
  const d = summary.spectator_delay;
  if (!d) return null;
  const text = d.commits ? t("badge.delay_commits", { n: d.commits }) : t("badge.delay_seconds", { n: d.seconds });
  return h("span.badge.delay", { title: t("badge.delay_title") }, text);
}

/** The mark of a match whose hidden cards its origin's public log shows (SPEC 11). */
function openHandBadge(summary) {
  if (!summary.open_hand) return null;
  return h("span.badge.open-hand", { title: t("badge.open_hand_title") }, t("badge.open_hand"));
}

async function replayScreen(matchId, params) {
  const key = store.key(matchId);
  const summary = await client.match(matchId, { key });
  const [, reference] = await Promise.all([games(), loadReference(summary)]);
  currentGame = summary.game;
  document.title = t("replay.title", { match: matchId });
  const last = summary.seq;
  const tokens = store.tokens(matchId);
  const ns = names(summary);
  const finished = summary.state === "finished";
  let seq = Math.min(Math.max(Number(params.get("seq") ?? last) || 0, 0), last);
  const seatParam = params.get("seat");
  let seat = seatParam === null || seatParam === "" || seatParam === "spectator" ? null : Number(seatParam);
  const cache = new Map();
  const boardView = new BoardView(summary.game, reference);
  // A finished match's raw log is public: each step can show the events its commit caused.
  const log = finished ? await client.log(matchId, { key }).catch(() => null) : null;

  // A live match shows a seat's view only to that seat's token; a finished one to anyone.
  const perspectives = [null, ...summary.seats.map((s) => s.seat).filter((s) => finished || tokens[s])];
  if (!perspectives.includes(seat)) seat = null;
  const seatSel = h("select", { id: "replay-seat" }, perspectives.map((s) =>
    h("option", { value: s === null ? "spectator" : String(s), selected: s === seat }, s === null ? t("replay.spectators") : seatLabel(s, ns))));
  const slider = h("input", { type: "range", id: "replay-slider", min: 0, max: last, value: seq, "aria-label": t("replay.commit_label") });
  const label = h("strong", { id: "replay-seq" });
  const viewer = h("span", { id: "replay-viewer" });
  const moveList = h("ol.log.move-list", { id: "replay-moves", "aria-label": t("replay.moves_label"), tabindex: 0 });
  const commitBox = h("div.commit", { id: "replay-commit" });
  const statusBox = h("div.panel", { id: "status" });
  const logBox = h("div");
  const endBox = h("div");
  const chancesBox = h("div", { id: "chances-slot" });
  let analysis = null; // the match's analysis once the server has made it (SPEC 2.14)
  let analysisTimer = null;
  const go = (n) => {
    seq = Math.min(Math.max(n, 0), last);
    show();
  };
  async function fork() {
    try {
      const m = await client.fork(matchId, seq, { exact: exactBox.checked });
      toast(t(m.open_hand ? "replay.forked_open" : "replay.forked", { match: m.match, seq }));
      location.hash = `#/match/${m.match}`;
    } catch (err) {
      toast(t("replay.fork_failed", { why: explain(err) }), "error");
    }
  }
  // Continue from here: the forker sits down at once in the seat this replay shows (the first
  // seat when it shows the spectators' view), against server bots or with friends invited by
  // a link per free seat; the fork's answer holds the seat's token.
  const forkSeat = () => (seat === null ? 0 : seat);
  async function continueFrom(withBots) {
    try {
      const m = await client.fork(matchId, seq, { exact: exactBox.checked, seat: forkSeat(), name: store.name() || null,
        botStrength: withBots ? Number(strengthSel.value) : null });
      store.addToken(m.match, m.seat, m.token);
      toast(t(withBots ? "replay.fork_bots" : "replay.fork_friends", { seat: seatLabel(m.seat, ns), seq }));
      location.hash = `#/match/${m.match}?seat=${m.seat}`;
    } catch (err) {
      toast(t("replay.fork_failed", { why: explain(err) }), "error");
    }
  }
  const strengthSel = h("select", { id: "fork-strength", "aria-label": t("replay.bot_strength") },
    BOT_STRENGTHS.map((v) => h("option", { value: String(v), selected: v === 3 }, t("replay.bots", { strength: v, name: t(`bot.${v}`) }))));
  // An exact fork keeps the original's shuffles, which its public log shows: open hand.
  const exactBox = h("input", { type: "checkbox", id: "replay-fork-exact" });
  const btn = (id, text, fn) => h("button.secondary", { id, onclick: fn }, text);
  const ctxAt = (frame) => ({ view: frame?.view ?? {}, status: frame?.status ?? {}, seat, names: ns, mode: "replay", last: {} });
  // "you" only for a seat this browser plays; anyone else's perspective is named as theirs
  const ownSeat = () => (seat !== null && tokens[seat] ? seat : null);
  const viewName = () => (seat === null ? t("replay.view_spectators") : ownSeat() !== null ? t("replay.view_yours")
    : t("replay.view_of", { who: ns[seat] || t("common.seat", { seat }) }));
  const address = () => `${location.origin}${location.pathname}${momentAddress(matchId, seq, seat)}`;
  async function share() {
    const link = address();
    try {
      await navigator.clipboard.writeText(link);
      toast(t("replay.copied", { link }));
    } catch {
      toast(t("replay.address", { link }));
    }
    shareBox.value = link;
  }
  const shareBox = h("input.mono", { id: "share-link", readonly: true, "aria-label": t("replay.address_label"), style: "width: 100%; margin-top: .4rem" });
  // a commit's sentences as entries (the text, and the key when the server gave one)
  const said = (i) => {
    const c = log?.commits?.[i - 1];
    if (!c) return [];
    if (Array.isArray(c.said) && c.said.length) return entriesOf(i, c.said, c.said_keys);
    return c.command ? [{ seq: i, seat: null, text: boardView.describe(c.command, ctxAt(null)), msg: null }] : [];
  };

  fill(app, 
    h("div.panel", {},
      h("div.row", {}, h("h1.grow", {}, t("replay.heading", { game: gameName(summary.game) }), " ", h("span.muted.mono", {}, matchId)),
        clockBadge(summary),
        h(`span.badge.${summary.state}`, {}, t(`state.${summary.state}`)),
        openHandBadge(summary),
        finished ? h("button.small.secondary", { id: "replay-fork", title: t("replay.fork_title"), onclick: fork }, t("replay.fork")) : null,
        finished ? h("label.small", { title: t("replay.exact_title") }, exactBox, t("replay.exact")) : null,
        finished ? h("span.continue", { id: "continue-from-here" },
          h("button.small", { id: "continue-bots", type: "button", onclick: () => continueFrom(true),
            title: t("replay.continue_bots_title") }, t("replay.continue_bots")),
          strengthSel,
          h("button.small.secondary", { id: "continue-friends", type: "button", onclick: () => continueFrom(false),
            title: t("replay.continue_friends_title") }, t("replay.continue_friends"))) : null,
        h("button.small.secondary", { id: "share-moment", type: "button", onclick: share, title: t("replay.share_title") }, t("replay.share")),
        h("a.button.small.secondary", { id: "back-to-live", href: `#/match/${matchId}${ownSeat() !== null ? `?seat=${seat}` : ""}` }, finished ? t("replay.final_table") : t("replay.back_to_live"))),
      h("div.replay-controls", { style: "margin-top: .6rem" },
        btn("replay-first", t("replay.first"), () => go(0)), btn("replay-prev", t("replay.prev"), () => go(seq - 1)),
        slider, btn("replay-next", t("replay.next"), () => go(seq + 1)), btn("replay-last", t("replay.last"), () => go(last)),
        h("span", {}, t("replay.seq_word"), label, ` / ${last}`), h("label", {}, t("replay.seen_by"), seatSel)),
      h("p", { style: "margin: .4rem 0 0" }, h("strong", {}, viewer)),
      commitBox, shareBox),
    h("div.columns", {}, h("div.board-col", {}, endBox, h("div", { id: "board" }, boardView.root), chancesBox), h("div.side-col", {}, statusBox,
      h("div.panel.log-panel", {}, h("h3", {}, t("replay.moves")), moveList), logBox)));

  slider.addEventListener("input", () => go(Number(slider.value)));
  seatSel.addEventListener("change", () => {
    seat = seatSel.value === "spectator" ? null : Number(seatSel.value);
    boardView.seq = null; // another perspective: its own before and after
    loadStory().then(show);
  });
  const onKey = (ev) => {
    // inputs and selects handle their own arrows (the slider steps itself and says so)
    if (ev.target instanceof HTMLInputElement || ev.target instanceof HTMLSelectElement) return;
    if (ev.key === "ArrowLeft") go(seq - 1);
    if (ev.key === "ArrowRight") go(seq + 1);
    if (ev.key === "Home") go(0);
    if (ev.key === "End") go(last);
  };
  document.addEventListener("keydown", onKey);

  // One line per commit, in the narrated words, to jump from: the words come from the whole
  // story at the last seq this audience may see, read once.
  let story = null;
  async function loadStory() {
    const whole = await client.replay(matchId, { seq: last, seat, key, token: seat !== null && !finished ? tokens[seat] : null }).catch(() => null);
    const bySeq = new Map();
    for (const e of whole?.log ?? []) if (e.said?.length) bySeq.set(e.seq, entriesOf(e.seq, e.said, e.said_keys).map(words).join(" "));
    for (let i = 1; i <= last; i++) if (!bySeq.has(i)) bySeq.set(i, said(i).map(words).join(" ") || t("replay.commit_n", { seq: i }));
    story = bySeq;
  }
  function drawMoveList() {
    if (!story) return;
    fill(moveList, [...story].sort((a, b) => a[0] - b[0]).map(([n, text]) => h("li", { "data-seq": n, class: n === seq ? "current" : null },
      h("button.link", { type: "button", onclick: () => go(n), "aria-current": n === seq ? "step" : null },
        h("span.log-seq", {}, String(n)), " ", text))));
    moveList.querySelector("li.current")?.scrollIntoView({ block: "nearest" });
  }

  async function frameAt(n) {
    const slot = `${seat}:${n}`;
    if (!cache.has(slot)) {
      cache.set(slot, await client.replay(matchId, { seq: n, seat, key, token: seat !== null && !finished ? tokens[seat] : null }));
    }
    return cache.get(slot);
  }

  let shown = 0;
  async function show() {
    const ticket = ++shown;
    slider.value = String(seq);
    label.textContent = String(seq);
    history.replaceState(null, "", momentAddress(matchId, seq, seat));
    viewer.textContent = viewName();
    shareBox.value = address();
    let frame;
    try {
      frame = await frameAt(seq);
      // What changed between two steps is highlighted whichever way the replay got here (a
      // jump, a step back, another perspective): the board is drawn at seq - 1 first, unseen.
      if (seq > 0 && boardView.seq !== seq - 1 && boardView.seq !== seq) {
        const before = await frameAt(seq - 1);
        if (ticket !== shown) return;
        boardView.draw(ctxAt(before), null, seq - 1);
      }
    } catch (err) {
      toast(t("replay.load_failed", { seq, why: explain(err) }), "error");
      return;
    }
    if (ticket !== shown) return; // a later step is already on its way
    const c = frame.commit;
    const sentences = Array.isArray(frame.said) && frame.said.length ? entriesOf(seq, frame.said, frame.said_keys) : said(seq);
    fill(commitBox, seq === 0 ? h("p.muted", {}, t("replay.before_start"))
      : c ? h("p", {}, h("strong", {}, t("replay.commit_head", { seq })), seatLabel(c.seat, ns), " — ",
        h("span", { id: "replay-said" }, sentences.length ? sentences.map(words).join(" ") : moveLabel(c.command, summary.game)),
        c.ts ? h("span.muted", {}, t("replay.at", { time: new Date(c.ts).toLocaleTimeString(document.documentElement.lang) })) : null)
        : h("p.muted", {}, t("replay.after_commit", { seq })),
      seq > 0 && log?.commits?.[seq - 1] ? h("details", { id: "replay-events" },
        h("summary", {}, t("replay.events", { count: log.commits[seq - 1].events.length })),
        h("ul.mono", { style: "font-size: .8rem; margin: .3rem 0" }, log.commits[seq - 1].events.map((e) =>
          h("li", {}, e.type, " ", JSON.stringify(Object.fromEntries(Object.entries(e).filter(([k]) => k !== "type"))).slice(0, 160))))) : null);
    fill(statusBox, h("h3", {}, t("status.title")), renderStatus(frame.status, { names: ns, mySeat: ownSeat(), players: summary.players }));
    const lastCmd = c?.command;
    let tokensOfLast = [];
    try {
      tokensOfLast = lastCmd ? boardView.module.path(lastCmd, ctxAt(frame)) : [];
    } catch { /* a system commit has no path */ }
    boardView.draw({ ...ctxAt(frame), last: { said: sentences.map((e) => e.text), tokens: tokensOfLast, seq } }, null, seq);
    fill(endBox, seq === last ? renderEnd(frame.status, sentences, ns, ownSeat()) : null);
    drawMoveList();
    drawChances();
    if (Array.isArray(frame.log) && frame.log.some((e) => e.said?.length)) {
      const entries = frame.log.flatMap((e) => entriesOf(e.seq, e.said ?? [], e.said_keys, { kind: e.seq === seq ? "current" : null }));
      fill(logBox, renderLog(entries.slice(-40), ns));
    } else if (log) {
      const entries = [];
      for (let i = 1; i <= seq; i++) for (const e of said(i)) entries.push({ ...e, kind: i === seq ? "current" : null });
      fill(logBox, renderLog(entries.slice(-40), ns));
    }
    const list = logBox.querySelector("#game-log");
    if (list) list.scrollTop = list.scrollHeight;
    document.body.dataset.replaySeq = String(seq);
  }
  // A finished match's analysis, drawn under the board once made: asked again while queued.
  function drawChances() {
    if (analysis?.chances) fill(chancesBox, renderChances(analysis, { seq, names: ns, go }));
  }
  async function loadAnalysis() {
    analysisTimer = null;
    let got;
    try {
      got = await client.analysis(matchId, { key });
    } catch {
      return; // a server that does not analyse (no_analysis), or none for this match: no graph
    }
    if (got?.chances) {
      analysis = got;
      drawChances();
    } else if (got?.state === "queued") {
      fill(chancesBox, h("p.muted", { id: "chances-pending" }, t("chances.pending")));
      analysisTimer = setTimeout(loadAnalysis, 1000 * Math.max(1, got.retry_after_s ?? 2));
    }
  }
  await loadStory();
  await show();
  // (the log says whether this server analyses matches: no request that can only be refused)
  if (finished && log?.analysis && log.analysis !== "off") loadAnalysis();
  return () => {
    document.removeEventListener("keydown", onKey);
    if (analysisTimer !== null) clearTimeout(analysisTimer);
  };
}

// -- start ----------------------------------------------------------------------------------------

await startI18n();
// what a test (or a translator) reads: the keys asked for that no catalogue has
globalThis.teahouseI18n = { missingKeys, language };
const nameInput = document.getElementById("my-name");
nameInput.value = store.name();
nameInput.addEventListener("input", () => store.setName(nameInput.value.trim()));
window.addEventListener("hashchange", route);
languageSwitch(document.getElementById("lang")); // its place is in index.html, so the top bar never grows
onLanguage(() => route()); // every screen draws itself again in the new language
route();
// The match on screen needs no notification of its own turn while it is visible.
watchTurns(client, { showing: () => (parseHash().parts[0] === "match" ? parseHash().parts[1] : null) });
