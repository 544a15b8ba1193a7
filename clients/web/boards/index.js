// Game id -> board module. A board module default-exports
//   { setReference(reference), render(root, ctx), path(command, ctx) -> string[], tokenLabel?(token, ctx) }
// render() draws the view into root; anything a person may point at carries data-pick="<token>"
// and an aria-label. path() is the sequence of tokens a person points at to make a legal command.
// ctx = { view, status, seat (null: spectators), names, reference, picked, next, last, mode }.
import china from "./china.js";
import { genericBoard } from "./generic.js";
import gugong from "./gugong.js";
import hieroglyphs from "./hieroglyphs.js";
import khan from "./khan.js";
import pixies from "./pixies.js";

const BOARDS = { pixies, china, gugong, khan, hieroglyphs };

/** The board module for a game (a generic one for a game without its own). */
export function boardFor(game) {
  return BOARDS[game] ?? genericBoard(game);
}
