// Players in the web client (protocol/SPEC.md 2.15-2.17): who this browser plays as (a player key
// kept in localStorage, shown as a "sign in on another device" code), the "My matches" page, a
// game's leaderboard, the rating change at the end of a match, and the watch that tells the
// player, by the tab title and a browser notification, when one of its matches turns to it.
import { ServerError } from "/js/teahouse.js";
import { t } from "./i18n.js";
import { fill, h } from "./render.js";

const KEY = "teahouse.player"; // {player, name, key}

export const identity = {
  get() {
    try {
      const me = JSON.parse(localStorage.getItem(KEY) || "null");
      return me && typeof me.key === "string" ? me : null;
    } catch {
      return null;
    }
  },
  key() {
    return this.get()?.key ?? null;
  },
  set(me) {
    localStorage.setItem(KEY, JSON.stringify(me));
  },
  clear() {
    localStorage.removeItem(KEY);
  },
};

/** Take a seat as this browser's player when it is one (as a guest when it is not, or when the
 * player already holds another seat of the match: one browser may still play both sides). */
export async function takeSeatAs(client, match, seat, name) {
  const playerKey = identity.key();
  try {
    return await client.takeSeat(match, { seat, name, playerKey });
  } catch (err) {
    if (playerKey && err instanceof ServerError && err.code === "player_seated") {
      return client.takeSeat(match, { seat, name });
    }
    throw err;
  }
}

const since = (ms) => {
  const s = Math.max(0, Math.round((Date.now() - ms) / 1000));
  if (s < 90) return t("players.since.seconds", { n: s });
  if (s < 5400) return t("players.since.minutes", { n: Math.round(s / 60) });
  if (s < 129600) return t("players.since.hours", { n: Math.round(s / 3600) });
  return t("players.since.days", { n: Math.round(s / 86400) });
};

/** "+12.3" / "−4.0", with the new rating and a mark while it is provisional. */
export function ratingText(change) {
  if (!change) return t("players.unrated");
  const sign = change.change >= 0 ? "+" : "−";
  return `${sign}${Math.abs(change.change).toFixed(1)} → ${change.after.toFixed(1)}${change.provisional ? "?" : ""}`;
}

/** The end screen's ratings: each seat's change, or that the match was unrated. */
export function renderRatings(ratings, names, seat) {
  if (ratings === undefined) return null;
  if (ratings === null) return h("p.muted", { id: "ratings" }, t("players.match_unrated"));
  return h("p", { id: "ratings" }, t("players.ratings"), ratings.map((r, i) => h(`span.rating${r.change >= 0 ? ".up" : ".down"}`, { "data-seat": i },
    t("players.rating_of", { who: i === seat ? t("common.you") : names[i] || t("common.seat", { seat: i }), change: ratingText(r) }))).flatMap((el, i) => (i ? [", ", el] : [el])));
}

// -- identity panel ---------------------------------------------------------------------------------

function identityPanel(client, ctx, redraw) {
  const me = identity.get();
  if (!me) {
    const name = h("input", { id: "player-name", maxlength: 40, placeholder: t("nav.your_name"), "aria-label": t("players.name_label"), value: ctx.name() });
    const code = h("input", { id: "player-code", placeholder: t("players.code_label"), "aria-label": t("players.code_label"), class: "mono", style: "width: 22rem" });
    return h("section.panel", { id: "identity" },
      h("h2", {}, t("players.play_as")),
      h("p.muted", {}, t("players.play_as_note")),
      h("form.row", { id: "become-player", onsubmit: async (ev) => {
        ev.preventDefault();
        try {
          const made = await client.createPlayer(name.value.trim() || t("result.player"));
          identity.set({ player: made.player, name: made.name, key: made.key });
          ctx.setName(made.name);
          redraw();
        } catch (err) {
          ctx.toast(t("players.become_failed", { why: ctx.explain(err) }), "error");
        }
      } }, name, h("button", { type: "submit", id: "become-player-button" }, t("players.become"))),
      h("form.row", { id: "sign-in", onsubmit: async (ev) => {
        ev.preventDefault();
        try {
          const key = code.value.trim();
          const who = await client.me(key);
          identity.set({ player: who.player, name: who.name, key });
          redraw();
        } catch (err) {
          ctx.toast(t("players.code_failed", { why: ctx.explain(err) }), "error");
        }
      } }, code, h("button.secondary", { type: "submit" }, t("players.sign_in"))));
  }
  const codeBox = h("code.mono", { id: "my-code", hidden: true }, me.key);
  return h("section.panel", { id: "identity" },
    h("div.row", {},
      h("h2.grow", {}, t("players.you_are"), h("span", { id: "my-player-name" }, me.name), " ", h("span.muted.mono", { id: "my-player-id" }, me.player)),
      h("button.secondary.small", { onclick: () => { codeBox.hidden = !codeBox.hidden; } }, t("players.other_device")),
      h("button.secondary.small", { onclick: () => { identity.clear(); redraw(); } }, t("players.forget"))),
    codeBox,
    notificationsButton());
}

function notificationsButton() {
  if (!("Notification" in window)) return null;
  if (Notification.permission !== "default") {
    return h("p.muted", { id: "notify-state" }, Notification.permission === "granted"
      ? t("players.notify_granted") : t("players.notify_blocked"));
  }
  const btn = h("button.secondary.small", { id: "notify", onclick: async () => {
    await Notification.requestPermission();
    btn.replaceWith(notificationsButton() ?? "");
  } }, t("players.notify_ask"));
  return btn;
}

// -- My matches -------------------------------------------------------------------------------------

export async function myMatchesScreen(app, client, ctx) {
  let timer = null;
  const draw = async () => {
    const me = identity.get();
    document.title = t("players.my_title");
    if (!me) {
      fill(app, identityPanel(client, ctx, draw));
      return;
    }
    const tbody = h("tbody", { id: "my-match-rows" });
    fill(app, identityPanel(client, ctx, draw), h("section.panel", {},
      h("div.row", {}, h("h2.grow", {}, t("players.my_matches")), h("button.secondary.small", { onclick: () => refresh() }, t("lobby.refresh"))),
      h("table.matches", { id: "my-matches" },
        h("thead", {}, h("tr", {}, [t("lobby.col_match"), t("lobby.col_game"), t("lobby.col_state"), t("lobby.col_seats"), "", ""].map((col) => h("th", {}, col)))), tbody)));
    const refresh = async () => {
      let page;
      try {
        page = await client.playerMatches(me.player, { limit: 200, playerKey: me.key });
      } catch (err) {
        fill(tbody, h("tr", {}, h("td", { colspan: 6 }, t("players.list_failed", { why: ctx.explain(err) }))));
        return;
      }
      const waiting = page.matches.filter((m) => m.your_turn).length;
      document.title = waiting ? t("players.my_title_waiting", { count: waiting }) : t("players.my_title");
      fill(tbody, ...(page.matches.length ? page.matches.map((m) => myRow(m, ctx))
        : [h("tr", {}, h("td.muted", { colspan: 6 }, t("players.none")))]));
    };
    await refresh();
    clearInterval(timer);
    timer = setInterval(refresh, 5000);
  };
  await draw();
  return () => clearInterval(timer);
}

function myRow(m, ctx) {
  const held = ctx.tokens(m.match)[m.seat];
  let what;
  if (m.state === "finished") {
    what = [m.rank === 1 ? t("players.won") : t("players.place", { rank: m.rank }), " · ", h("span.rating", {}, ratingText(m.rating))];
  } else if (m.your_turn) {
    what = [h("span.badge.turn", {}, t("players.your_turn")), t("players.waiting_since", { since: since(m.waiting_since) })];
  } else {
    what = m.state === "open" ? t("players.waiting_players") : t("players.their_turn");
  }
  const seats = m.seats.map((s) => (s.seat === m.seat ? h("b", {}, s.name || t("common.you")) : s.name || h("span.muted", {}, t("lobby.free"))));
  const go = m.state === "finished"
    ? h("a.button.small.secondary", { href: `#/replay/${m.match}?seat=${m.seat}` }, t("common.replay"))
    : h("a.button.small", { href: held ? `#/match/${m.match}?seat=${m.seat}` : `#/match/${m.match}` }, held ? t("players.play") : t("lobby.watch"));
  return h("tr", { "data-match": m.match, "data-your-turn": m.your_turn ? "1" : "0" },
    h("td.mono", {}, m.match),
    h("td", {}, ctx.gameName(m.game)),
    h("td", {}, h(`span.badge.${m.state}`, {}, t(`state.${m.state}`))),
    h("td", {}, seats.flatMap((s, i) => (i ? [", ", s] : [s]))),
    h("td", {}, what),
    h("td", {}, go));
}

// -- leaderboard ------------------------------------------------------------------------------------

export async function leaderboardScreen(app, client, ctx, game) {
  const list = await ctx.games();
  const chosen = list.some((g) => g.id === game) ? game : list[0]?.id;
  document.title = t("players.leaderboard_title", { game: ctx.gameName(chosen) });
  const board = await client.leaderboard(chosen, { limit: 200 });
  const me = identity.get()?.player;
  const pick = h("select", { id: "leaderboard-game", onchange: () => { location.hash = `#/leaderboard/${pick.value}`; } },
    list.map((g) => h("option", { value: g.id, selected: g.id === chosen }, g.name)));
  fill(app, h("section.panel", {},
    h("div.row", {}, h("h2.grow", {}, t("players.leaderboard")), h("label", {}, t("lobby.game"), pick)),
    h("p.muted", {}, t("players.leaderboard_note")),
    h("table.matches", { id: "leaderboard" },
      h("thead", {}, h("tr", {}, ["#", t("result.player"), t("players.rating"), "RD", t("lobby.matches")].map((col) => h("th", {}, col)))),
      h("tbody", {}, board.players.length ? board.players.map((p) => h(`tr${p.player === me ? ".me" : ""}`, { "data-player": p.player },
        h("td", {}, p.rank), h("td", {}, p.name, " ", h("span.muted.mono", {}, p.player)),
        h("td", {}, `${p.rating.toFixed(1)}${p.provisional ? "?" : ""}`), h("td", {}, p.rd.toFixed(0)), h("td", {}, p.games)))
        : h("tr", {}, h("td.muted", { colspan: 5 }, t("players.nobody_rated")))))));
  return () => {};
}

// -- the turn watch ---------------------------------------------------------------------------------

/**
 * While any page of the client is open, look every `everyMs` at the player's matches; when one
 * starts waiting on the player, say so by a notification (with permission) unless the page is
 * showing that very match, and keep the count in the nav's "My matches" link.
 */
export function watchTurns(client, { everyMs = 10000, showing = () => null } = {}) {
  let waiting = null; // the match ids waiting on the player at the last look (null: not looked yet)
  const look = async () => {
    const me = identity.get();
    const link = document.getElementById("nav-my-matches");
    if (!me) {
      waiting = new Set(); // no player yet: whatever waits on one made from this page is news
      if (link) link.textContent = t("players.my_matches");
      return;
    }
    let page;
    try {
      page = await client.playerMatches(me.player, { limit: 200, playerKey: me.key });
    } catch {
      return; // the server is away for a moment: look again later
    }
    const now = page.matches.filter((m) => m.your_turn);
    if (link) link.textContent = now.length ? t("players.my_matches_count", { count: now.length }) : t("players.my_matches");
    const fresh = waiting === null ? [] : now.filter((m) => !waiting.has(m.match));
    waiting = new Set(now.map((m) => m.match));
    for (const m of fresh) {
      if (showing() === m.match && !document.hidden) continue;
      notify(t("announce.notify_title", { game: m.game }), t("announce.notify_body", { match: m.match }), `#/match/${m.match}?seat=${m.seat}`);
    }
  };
  look();
  const timer = setInterval(look, everyMs);
  return () => clearInterval(timer);
}

/** A browser notification, when the player allowed them; clicking it opens `href`. */
export function notify(title, body, href) {
  if (!("Notification" in window) || Notification.permission !== "granted") return;
  const n = new Notification(title, { body, tag: href });
  n.onclick = () => {
    window.focus();
    location.hash = href;
    n.close();
  };
}
