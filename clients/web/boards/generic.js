// The board of a game with no board module yet: the view as nested panels, and every legal
// command as one pick (the picker offers them as buttons in its choice bar).
import { t } from "../i18n.js";
import { h, moveLabel, renderGeneric } from "../render.js";

export function genericBoard(game) {
  return {
    setReference() {},
    render(root, ctx) {
      root.replaceChildren(h("div.panel", {}, h("h2", {}, t("board.the_table")), renderGeneric(ctx.view)));
    },
    path(command) {
      return [`move:${JSON.stringify(command)}`];
    },
    tokenLabel(token) {
      return token.startsWith("move:") ? moveLabel(JSON.parse(token.slice(5)), game) : token;
    },
  };
}
