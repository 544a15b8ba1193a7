// Game id -> board module. A board module default-exports
//   { setReference(reference), render(root, ctx), path(command, ctx) -> string[], tokenLabel?(token, ctx),
//     costly?(command, ctx) -> boolean }
// render() draws the view into root; anything a person may point at carries data-pick="<token>"
// and an aria-label. path() is the sequence of tokens a person points at to make a legal command;
// costly() marks the moves that wait for Confirm even when one tap could mean only them.
// ctx = { view, status, seat (null: spectators), names, reference, picked, next, last, mode }.
//
// Each board is loaded when a page first needs it, so a match page fetches its own game's board
// and not the other four.
import { genericBoard } from "./generic.js";

const KNOWN = new Set(["pixies", "china", "gugong", "khan", "hieroglyphs"]);
const loaded = new Map();

/** Load the board module of a game (once); a game without its own gets the generic board. */
export async function loadBoard(game) {
  if (!loaded.has(game)) {
    loaded.set(game, KNOWN.has(game) ? (await import(`./${game}.js`)).default : genericBoard(game));
  }
  return loaded.get(game);
}

/** The board module of a game already loaded with loadBoard (the generic one otherwise). */
export function boardFor(game) {
  return loaded.get(game) ?? genericBoard(game);
}
