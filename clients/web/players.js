// Players in the web client (protocol/SPEC.md 2.15-2.17): who this browser plays as (a player key
// kept in localStorage, shown as a "sign in on another device" code), the "My matches" page, a
// game's leaderboard, the rating change at the end of a match, and the watch that tells the
// player, by the tab title and a browser notification, when one of its matches turns to it.
import { ServerError } from "/js/teahouse.js";
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
  if (s < 90) return `${s} s`;
  if (s < 5400) return `${Math.round(s / 60)} min`;
  if (s < 129600) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86400)} days`;
};

/** "+12.3" / "−4.0", with the new rating and a mark while it is provisional. */
export function ratingText(change) {
  if (!change) return "unrated";
  const sign = change.change >= 0 ? "+" : "−";
  return `${sign}${Math.abs(change.change).toFixed(1)} → ${change.after.toFixed(1)}${change.provisional ? "?" : ""}`;
}

/** The end screen's ratings: each seat's change, or that the match was unrated. */
export function renderRatings(ratings, names, seat) {
  if (ratings === undefined) return null;
  if (ratings === null) return h("p.muted", { id: "ratings" }, "This match is unrated (a guest played, or it is a fork or a set-up deal).");
  return h("p", { id: "ratings" }, "Ratings: ", ratings.map((r, i) => h(`span.rating${r.change >= 0 ? ".up" : ".down"}`, { "data-seat": i },
    `${i === seat ? "you" : names[i] || `Seat ${i}`} ${ratingText(r)}`)).flatMap((el, i) => (i ? [", ", el] : [el])));
}

// -- identity panel ---------------------------------------------------------------------------------

function identityPanel(client, ctx, redraw) {
  const me = identity.get();
  if (!me) {
    const name = h("input", { id: "player-name", maxlength: 40, placeholder: "Your name", "aria-label": "your name as a player", value: ctx.name() });
    const code = h("input", { id: "player-code", placeholder: "a code from another device", "aria-label": "a code from another device", class: "mono", style: "width: 22rem" });
    return h("section.panel", { id: "identity" },
      h("h2", {}, "Play as a player"),
      h("p.muted", {}, "A player keeps its matches and ratings. No sign-up: pick a name."),
      h("form.row", { id: "become-player", onsubmit: async (ev) => {
        ev.preventDefault();
        try {
          const made = await client.createPlayer(name.value.trim() || "Player");
          identity.set({ player: made.player, name: made.name, key: made.key });
          ctx.setName(made.name);
          redraw();
        } catch (err) {
          ctx.toast(`Could not become a player: ${ctx.explain(err)}`, "error");
        }
      } }, name, h("button", { type: "submit", id: "become-player-button" }, "Become a player")),
      h("form.row", { id: "sign-in", onsubmit: async (ev) => {
        ev.preventDefault();
        try {
          const key = code.value.trim();
          const who = await client.me(key);
          identity.set({ player: who.player, name: who.name, key });
          redraw();
        } catch (err) {
          ctx.toast(`That code is no player's: ${ctx.explain(err)}`, "error");
        }
      } }, code, h("button.secondary", { type: "submit" }, "Sign in with a code")));
  }
  const codeBox = h("code.mono", { id: "my-code", hidden: true }, me.key);
  return h("section.panel", { id: "identity" },
    h("div.row", {},
      h("h2.grow", {}, "You are ", h("span", { id: "my-player-name" }, me.name), " ", h("span.muted.mono", { id: "my-player-id" }, me.player)),
      h("button.secondary.small", { onclick: () => { codeBox.hidden = !codeBox.hidden; } }, "Sign in on another device"),
      h("button.secondary.small", { onclick: () => { identity.clear(); redraw(); } }, "Forget me here")),
    codeBox,
    notificationsButton());
}

function notificationsButton() {
  if (!("Notification" in window)) return null;
  if (Notification.permission !== "default") {
    return h("p.muted", { id: "notify-state" }, Notification.permission === "granted"
      ? "A notification tells you when a match waits on you, while a Teahouse page is open."
      : "Notifications are blocked for this site; the tab title still tells you.");
  }
  const btn = h("button.secondary.small", { id: "notify", onclick: async () => {
    await Notification.requestPermission();
    btn.replaceWith(notificationsButton() ?? "");
  } }, "Tell me when it is my turn");
  return btn;
}

// -- My matches -------------------------------------------------------------------------------------

export async function myMatchesScreen(app, client, ctx) {
  let timer = null;
  const draw = async () => {
    const me = identity.get();
    document.title = "Teahouse — my matches";
    if (!me) {
      fill(app, identityPanel(client, ctx, draw));
      return;
    }
    const tbody = h("tbody", { id: "my-match-rows" });
    fill(app, identityPanel(client, ctx, draw), h("section.panel", {},
      h("div.row", {}, h("h2.grow", {}, "My matches"), h("button.secondary.small", { onclick: () => refresh() }, "Refresh")),
      h("table.matches", { id: "my-matches" },
        h("thead", {}, h("tr", {}, ["Match", "Game", "State", "Seats", "", ""].map((t) => h("th", {}, t)))), tbody)));
    const refresh = async () => {
      let page;
      try {
        page = await client.playerMatches(me.player, { limit: 200, playerKey: me.key });
      } catch (err) {
        fill(tbody, h("tr", {}, h("td", { colspan: 6 }, `Cannot list your matches: ${ctx.explain(err)}`)));
        return;
      }
      const waiting = page.matches.filter((m) => m.your_turn).length;
      document.title = `${waiting ? `(${waiting}) Your turn — ` : ""}Teahouse — my matches`;
      fill(tbody, ...(page.matches.length ? page.matches.map((m) => myRow(m, ctx))
        : [h("tr", {}, h("td.muted", { colspan: 6 }, "No matches yet: take a seat in the lobby."))]));
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
    what = [`${m.rank === 1 ? "won" : `place ${m.rank}`}`, " · ", h("span.rating", {}, ratingText(m.rating))];
  } else if (m.your_turn) {
    what = [h("span.badge.turn", {}, "your turn"), ` waiting ${since(m.waiting_since)}`];
  } else {
    what = m.state === "open" ? "waiting for players" : "their turn";
  }
  const seats = m.seats.map((s) => (s.seat === m.seat ? h("b", {}, s.name || "you") : s.name || h("span.muted", {}, "free")));
  const go = m.state === "finished"
    ? h("a.button.small.secondary", { href: `#/replay/${m.match}?seat=${m.seat}` }, "Replay")
    : h("a.button.small", { href: held ? `#/match/${m.match}?seat=${m.seat}` : `#/match/${m.match}` }, held ? "Play" : "Watch");
  return h("tr", { "data-match": m.match, "data-your-turn": m.your_turn ? "1" : "0" },
    h("td.mono", {}, m.match),
    h("td", {}, ctx.gameName(m.game)),
    h("td", {}, h(`span.badge.${m.state}`, {}, m.state)),
    h("td", {}, seats.flatMap((s, i) => (i ? [", ", s] : [s]))),
    h("td", {}, what),
    h("td", {}, go));
}

// -- leaderboard ------------------------------------------------------------------------------------

export async function leaderboardScreen(app, client, ctx, game) {
  const list = await ctx.games();
  const chosen = list.some((g) => g.id === game) ? game : list[0]?.id;
  document.title = `Teahouse — ${ctx.gameName(chosen)} leaderboard`;
  const board = await client.leaderboard(chosen, { limit: 200 });
  const me = identity.get()?.player;
  const pick = h("select", { id: "leaderboard-game", onchange: () => { location.hash = `#/leaderboard/${pick.value}`; } },
    list.map((g) => h("option", { value: g.id, selected: g.id === chosen }, g.name)));
  fill(app, h("section.panel", {},
    h("div.row", {}, h("h2.grow", {}, "Leaderboard"), h("label", {}, "Game", pick)),
    h("p.muted", {}, "Glicko-2 ratings from rated matches (every seat a player or a bot). A ? marks a provisional rating."),
    h("table.matches", { id: "leaderboard" },
      h("thead", {}, h("tr", {}, ["#", "Player", "Rating", "RD", "Matches"].map((t) => h("th", {}, t)))),
      h("tbody", {}, board.players.length ? board.players.map((p) => h(`tr${p.player === me ? ".me" : ""}`, { "data-player": p.player },
        h("td", {}, p.rank), h("td", {}, p.name, " ", h("span.muted.mono", {}, p.player)),
        h("td", {}, `${p.rating.toFixed(1)}${p.provisional ? "?" : ""}`), h("td", {}, p.rd.toFixed(0)), h("td", {}, p.games)))
        : h("tr", {}, h("td.muted", { colspan: 5 }, "Nobody is rated in this game yet."))))));
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
      if (link) link.textContent = "My matches";
      return;
    }
    let page;
    try {
      page = await client.playerMatches(me.player, { limit: 200, playerKey: me.key });
    } catch {
      return; // the server is away for a moment: look again later
    }
    const now = page.matches.filter((m) => m.your_turn);
    if (link) link.textContent = now.length ? `My matches (${now.length})` : "My matches";
    const fresh = waiting === null ? [] : now.filter((m) => !waiting.has(m.match));
    waiting = new Set(now.map((m) => m.match));
    for (const m of fresh) {
      if (showing() === m.match && !document.hidden) continue;
      notify(`Your turn in ${m.game}`, `Match ${m.match} waits on you.`, `#/match/${m.match}?seat=${m.seat}`);
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
