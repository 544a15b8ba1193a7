// The position in words, for a reader who cannot see the board (a screen reader reads it as a
// labelled region beside the board): whose turn, the scores, and a few lines per game of what the
// board shows. Only the audience's own view goes in, so it says nothing the board hides.
import { boardFor } from "./boards/index.js";
import { t } from "./i18n.js";
import { h, seatLabel } from "./render.js";

const counted = (values, names) => values.map((n, s) => t("position.score", { who: seatLabel(s, names), score: n ?? 0 }));
const length = (xs) => (Array.isArray(xs) ? xs.length : 0);

// Each game's lines after the turn: what a player asks first about its board. A game's scores are
// read where its view keeps them (the rules' running score), else only at the end from the result.
const GAMES = {
  pixies: ({ view, names }, game) => {
    const cardName = boardFor(game).cardName ?? String;
    return {
      scores: view.totals,
      lines: [
        t("position.round_turn", { round: view.round ?? 0, turn: view.turn ?? 0 }),
        t("position.deck", { count: view.deck_count ?? 0 }),
        t("position.market", { cards: (view.market ?? []).map(cardName) }),
        ...(view.areas ?? []).map((area, s) => t("position.pixies_area", { who: seatLabel(s, names),
          up: area.filter((c) => c.card && !c.face_down).length,
          down: area.filter((c) => c.face_down).length,
          empty: area.filter((c) => !c.card && !c.face_down).length })),
      ],
    };
  },
  china: ({ view, names }) => {
    const houses = Array.from({ length: view.players ?? 0 }, () => 0);
    for (const seat of Object.values(view.houses ?? {})) if (seat !== null && seat !== undefined) houses[seat] = (houses[seat] ?? 0) + 1;
    return {
      scores: view.scores,
      lines: [
        t("position.turn", { turn: view.turn ?? 0 }),
        t("position.houses", { counts: counted(houses, names) }),
        t("position.deck", { count: view.deck_size ?? 0 }),
        Array.isArray(view.hand) ? t("position.hand", { count: view.hand.length }) : null,
      ],
    };
  },
  gugong: ({ view, seat }) => {
    const me = (view.players ?? []).find((p) => p.seat === seat);
    return {
      scores: (view.players ?? []).map((p) => p.vp),
      lines: [
        t("position.day", { day: view.day ?? 0 }),
        me ? t("position.hand", { count: me.hand ? me.hand.length : me.hand_count ?? 0 }) : null,
      ],
    };
  },
  khan: ({ view, names }) => ({
    scores: view.result?.scores,
    lines: [
      t("position.turn", { turn: view.turn_no ?? 0 }),
      t("position.yurts", { counts: counted((view.player_yurts ?? []).map(length), names) }),
      Array.isArray(view.hand) ? t("position.hand", { count: view.hand.length }) : null,
    ],
  }),
  hieroglyphs: ({ view, names }) => ({
    scores: view.scores,
    lines: [
      t("position.round", { round: view.round ?? 0 }),
      t("position.coins", { counts: counted(view.coins ?? [], names) }),
      Array.isArray(view.you?.hand) ? t("position.hand", { count: view.you.hand.length }) : null,
    ],
  }),
};

/** The sentences that say the position `ctx` (a board's context) holds, in the reader's language. */
export function positionLines(game, ctx) {
  const { status = {}, names, seat } = ctx;
  const toAct = status.to_act ?? [];
  const turn = status.finished ? t("position.over")
    : seat !== null && seat !== undefined && toAct.includes(seat) && ctx.mode === "play" ? t("position.your_turn")
      : toAct.length ? t("position.to_move", { who: toAct.map((s) => seatLabel(s, names)) }) : t("position.nobody");
  const own = GAMES[game]?.(ctx, game) ?? { lines: [] };
  const scores = status.result?.scores ?? own.scores;
  return [turn, Array.isArray(scores) ? t("position.scores", { scores: counted(scores, names) }) : null, ...own.lines]
    .filter(Boolean);
}

/** The position as a labelled region of sentences, one a line (a list a screen reader can walk). */
export function positionRegion(game, ctx) {
  return h("section.sr-only", { id: "position", "aria-label": t("position.label") },
    h("ul", {}, positionLines(game, ctx).map((line) => h("li", {}, line))));
}
