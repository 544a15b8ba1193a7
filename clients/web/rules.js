// Each game in short, and what the symbols on its board mean: one click away from the lobby and
// from the board (a dialog). Written from the rules references (../shared/rules/<game>.md, told
// in docs/games/<game>.md); the docs hold the full rules.
import { TERRAIN } from "./boards/khan.js";
import { t } from "./i18n.js";
import { h } from "./render.js";

const RULES = {
  pixies: {
    summary: [
      "Three rounds of drafting. Each turn a market of face-up cards is revealed (one per player, four with two players); in turn each player takes one and must place it in their own 3×3 area at the cell of its number (1–9).",
      "An empty cell takes the card face up. A card on a lone face-down card makes the cell validated; two cards of the same number pair up, you choose which stays face up. A card whose cell is already validated goes face down into any empty cell.",
      "A round ends when someone has a card in all nine cells (the turn is played out). Score visible cards only: the number of each validated cell, +1 per spiral, −1 per cross, each condition card +1 per visible card of its colour, and your largest same-colour zone × 2, 3 or 4 (rounds 1–3). Highest total after round 3 wins.",
    ],
    legend: [
      { symbol: "✦", text: "a spiral: +1 point while the card is visible" },
      { symbol: "✕", text: "a cross: −1 point while the card is visible" },
      { symbol: "★", text: "a condition (★ and a colour initial): +1 per visible card of that colour" },
      { symbol: "PIXIES", text: "a face-down card: counts for nothing, breaks zones" },
      { symbol: "▣", text: "a validated cell: a face-up card on a face-down one; it scores its number" },
      { symbol: "joker", text: "a multicolour card: every colour at once" },
    ],
  },
  china: {
    summary: [
      "Nine provinces with house spaces and a dragon space for emissaries. On your turn place, exchange one card, or pass (only when you can do neither).",
      "To place, name one province and put one or two pieces there, each paid with one card of the province's colour or a pair of cards of one other colour. A house takes a free house space; an emissary goes on the dragon space, never outnumbering the houses of the player with the most houses there. Into a province without houses only one piece. Then refill your hand to 3 from the deck or the display.",
      "A full province scores at once: the most houses score the number of houses there, the next group scores the count of the group above them. At the end: unscored provinces, road chains of 4+ houses (1 point a house) and the 15 alliances (the emissary majority in both neighbouring provinces scores all their emissaries). The game ends after the deck runs out the second time and the round is completed.",
    ],
    legend: [
      { symbol: "⚑", text: "a province's dragon space: the emissaries sent there, one square per emissary in its player's colour" },
      { symbol: "●", text: "a house, in its player's colour, on a house space" },
      { symbol: "1–15", text: "an alliance number between two neighbouring provinces" },
      { symbol: "✓ scored", text: "a province already scored (it filled up)" },
      { symbol: "—", text: "a road between house spaces (the board side in use)" },
    ],
  },
  gugong: {
    summary: [
      "Four days at the court. On your turn you must exchange a gift: put a hand card on one of the seven locations and take the card lying there. Giving higher (or a 1 for a 9) is free; otherwise pay 2 servants, discard another card, or forgo your actions.",
      "Then you may take the action printed on the card you gave and the action of the location: Travel, Great Wall, Jade, Intrigue, Palace, Decrees or the Grand Canal. Servants are the currency; the Foreman, once freed, counts two.",
      "In the evening the Destiny dice pay servants for matching cards in your discard pile, and boats move along the canal. Only families whose Envoy reached the Palace of Heavenly Purity can win; among them the most victory points wins, ties by Intrigue.",
    ],
    legend: [
      { symbol: "■", text: "a servant on the Great Wall, in its player's colour" },
      { symbol: "F", text: "the Foreman (counts as two servants on the Wall or a boat)" },
      { symbol: "◆ n", text: "a jade house spot holding jade, with its price n" },
      { symbol: "· n", text: "an empty jade house spot, its price n" },
      { symbol: "▪", text: "a servant cube on a decree, in its owner's colour" },
      { symbol: "L1 · L2 · L3", text: "a decree's level: pays each morning, VP and an ability now, or scores at the end" },
    ],
  },
  khan: {
    summary: [
      "Eight foreign rulers flee across a map of six landscapes cut by a river. Each turn a card makes a ruler flee (a neutral yurt takes his place); when his camp runs out, he leaves the board.",
      "Then take two actions: invade (play a card and put a yurt on a cell its background allows), drive out a ruler of your choice, conquer (lay a tile over cells that all hold yurts where you have the majority: one of your yurts goes on the tile), or the invasion of choice (takes both actions). You may then play one special card and refill your hand to four.",
      "When the fifth ruler leaves, only conquests remain. Each player scores the tiles carrying their yurt, and the three largest areas of touching tiles earn 10, 6 and 3.",
    ],
    legend: [
      ...["M", "S", "F", "T", "K", "I", "R"].map((l) => ({ swatch: TERRAIN[l], symbol: l,
        text: { M: "mountains", S: "sand desert", F: "tropical forest", T: "tundra", K: "rocky desert", I: "ice desert", R: "the river" }[l] })),
      { symbol: "⌂n", text: "yurts left in a ruler's camp" },
      { symbol: "↑ ↗ → ↘", text: "a ruler card's direction: where the ruler flees" },
      { symbol: "Khan", text: "the joker background: any land cell" },
    ],
  },
  hieroglyphs: {
    summary: [
      "A 9 × 9 square of cards: a ring with a base in each corner (Teacher, General, Minister, Spy) and a teleport in the middle of each side; spokes lead to the Emperor in the centre. Each player collects the characters of their task card.",
      "On your turn play a hieroglyph card (you may claim its meaning for a coin), then move exactly its steps: the tone, 1 to 4 (neutral tone 0). Stop on a card to take it, on a teleport to jump, at a base to use its power, at the Emperor to attach cards to your task or declare it. The first action there is free, each next one costs a coin more.",
      "A declared task whose characters match the answer in order is completed. The first to complete 3 tasks (2 players) or 2 (3–4 players) wins.",
    ],
    legend: [
      { symbol: "皇", text: "the Emperor, where tasks are declared" },
      { symbol: "TP", text: "a teleport: start a move there to turn into a spoke, or jump to another teleport" },
      { symbol: "Teacher · General · Minister · Spy", text: "the four bases and their powers: study a card, blow up a block, buy a pool of cards, swap a card with another player" },
      { symbol: "steps", text: "a card's tone: 1st tone 1 step … 4th tone 4 steps, neutral 0" },
      { symbol: "✓ / ✗", text: "a meaning claimed right (a coin) or wrong" },
      { symbol: "⇄", text: "a swap (the Spy's or the Minister's)" },
    ],
  },
};

/** Whether the client has a summary for this game. */
export function hasRules(game) {
  return Object.hasOwn(RULES, game);
}

/** The dialog with the game's rules in short and its legend; `close` returns focus. */
export function showRules(game, name) {
  const r = RULES[game];
  if (!r) return;
  const dialog = h("dialog.rules", { id: "rules-dialog", "aria-labelledby": "rules-title" },
    h("div.row", {}, h("h2.grow", { id: "rules-title" }, t("rules.title", { game: name })),
      h("button.small.secondary", { type: "button", id: "rules-close", onclick: () => dialog.close() }, t("rules.close"))),
    r.summary.map((p) => h("p", {}, p)),
    h("h3", {}, t("rules.legend")),
    h("dl.legend", { id: "rules-legend" }, r.legend.flatMap((e) => [
      h("dt", {}, e.swatch ? h("span.k-swatch", { style: `background: ${e.swatch}`, "aria-hidden": "true" }) : null, e.symbol),
      h("dd", {}, e.text)])));
  dialog.addEventListener("close", () => dialog.remove());
  document.body.append(dialog);
  dialog.showModal();
}

/** A "Rules & legend" button for the game `currentGame()` names when clicked. */
export function rulesButton(currentGame, nameOf, id = "rules-button") {
  return h("button.small.secondary", { type: "button", id, onclick: () => showRules(currentGame(), nameOf(currentGame())) },
    t("rules.button"));
}
