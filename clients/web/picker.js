// The generic move picker: a person builds a legal command by pointing at things on the board.
// It knows no game: a board module maps each legal command to the sequence of pick tokens a
// person points at (`path(command, ctx)`), draws anything pointable with `data-pick="<token>"`,
// and the picker narrows the seat's legal moves by the tokens picked so far, marks what may come
// next, offers tokens without a place on the board as buttons, and sends the move as soon as the
// picked tokens can only mean one whole move (one tap when one thing can happen); Confirm stays
// for the moves a board marks as costly to misclick, and for people who ask for it always.
import { t } from "./i18n.js";
import { h } from "./render.js";

const samePrefix = (path, picked) => picked.every((t, i) => path[i] === t);

export class Picker {
  /**
   * @param {{path: (cmd: object) => string[], send: (cmd: object) => void, changed: () => void,
   *          tokenLabel?: (token: string) => string, costly?: (cmd: object) => boolean}} opts
   */
  constructor({ path, send, changed, tokenLabel = (t) => t, costly = () => false }) {
    this.costly = costly;
    this.pathOf = path;
    this.send = send;
    this.changed = changed;
    this.tokenLabel = tokenLabel;
    this.moves = [];
    this.labels = [];
    this.paths = [];
    this.picked = [];
    this.busy = false;
  }

  /** New legal moves (and their sentences, parallel, when the server gives them): start over. */
  setMoves(moves, labels = []) {
    this.moves = moves;
    this.labels = labels;
    this.paths = moves.map((m) => {
      try {
        return this.pathOf(m);
      } catch (err) {
        console.warn("teahouse: no path for a move", m, err);
        return [`move:${JSON.stringify(m)}`];
      }
    });
    this.picked = [];
  }

  /** Indexes of the moves whose path starts with the picked tokens. */
  candidates() {
    return this.paths.map((p, i) => i).filter((i) => samePrefix(this.paths[i], this.picked));
  }

  /** The tokens that may be picked next, in the order the moves give them. */
  get next() {
    const n = this.picked.length;
    const out = new Set();
    for (const i of this.candidates()) if (this.paths[i].length > n) out.add(this.paths[i][n]);
    return out;
  }

  /** The index of the legal move the picked path is a whole path of, or -1. */
  complete() {
    if (!this.picked.length) return -1;
    return this.candidates().find((i) => this.paths[i].length === this.picked.length) ?? -1;
  }

  pick(token) {
    if (this.busy || !this.next.has(token)) return;
    this.picked = [...this.picked, token];
    const whole = this.complete();
    if (whole >= 0 && this.next.size === 0 && !alwaysConfirm() && !this.costly(this.moves[whole])) {
      this.confirm();
      return;
    }
    this.changed();
  }

  back() {
    this.picked = this.picked.slice(0, -1);
    this.changed();
  }

  cancel() {
    if (!this.picked.length) return;
    this.picked = [];
    this.changed();
  }

  confirm() {
    const i = this.complete();
    if (i < 0 || this.busy) return;
    this.send(this.moves[i], this.label(i));
  }

  /** A sentence for move i: the server's when it sent one, else its tokens in words. */
  label(i) {
    return this.labels[i] || this.paths[i].map((t) => this.tokenLabel(t)).join(" → ");
  }

  /**
   * Mark the drawn elements of `root` whose token may come next (class `pickable`, focusable,
   * a button to assistive technology; click, Enter or Space picks) and those already picked
   * (class `picked`). Keeps the keyboard focus on the board across redraws.
   */
  decorate(root, hadFocusToken = null) {
    const next = this.next;
    const picked = new Set(this.picked);
    let refocus = null;
    for (const el of root.querySelectorAll("[data-pick]")) {
      const token = el.getAttribute("data-pick");
      el.classList.toggle("picked", picked.has(token));
      if (!next.has(token) || this.busy) continue;
      el.classList.add("pickable");
      el.setAttribute("tabindex", "0");
      el.setAttribute("role", "button");
      // a button's name starts with the text it shows, so that voice control ("click 9") and
      // a screen reader agree with the eye (WCAG 2.5.3)
      const shown = (el.textContent ?? "").replace(/\s+/g, " ").trim();
      const label = el.getAttribute("aria-label") || this.tokenLabel(token);
      el.setAttribute("aria-label", shown && !label.toLowerCase().includes(shown.toLowerCase()) ? `${shown}: ${label}` : label);
      const go = (ev) => {
        ev.preventDefault();
        ev.stopPropagation();
        this.pick(token);
      };
      el.addEventListener("click", go);
      el.addEventListener("keydown", (ev) => {
        if (ev.key === "Enter" || ev.key === " ") go(ev);
        const to = ARROWS[ev.key] ? nearestPickable(root, el, ARROWS[ev.key]) : null;
        if (to) {
          ev.preventDefault(); // the page does not scroll: the focus moves
          to.focus();
        }
      });
      if (hadFocusToken !== null && !refocus) refocus = el;
    }
    if (refocus) refocus.focus({ preventScroll: true });
  }

  /** The bar under the board: what is picked, the choices with no place on the board, Confirm, Cancel. */
  bar(root) {
    // Tokens with no element on the board become buttons; on a phone every next token does,
    // since small board spaces are hard to tap.
    const narrow = window.matchMedia?.("(max-width: 520px)")?.matches;
    const drawn = new Set([...root.querySelectorAll("[data-pick]")].map((el) => el.getAttribute("data-pick")));
    const loose = [...this.next].filter((t) => narrow || !drawn.has(t));
    const done = this.complete();
    const more = this.next.size > 0;
    return h("div.picker", { id: "picker", role: "group", "aria-label": t("picker.label") },
      h("div.picked-line", { id: "picked", "aria-live": "polite" },
        this.picked.length
          ? [t("picker.your_move"), h("strong", {}, this.picked.map((tok) => this.tokenLabel(tok)).join(" → "))]
          : h("span.muted", {}, more ? t("picker.start") : t("picker.none"))),
      loose.length ? h("div.choices", { id: "choices" }, loose.map((tok) => h("button.choice.secondary", {
        type: "button", "data-pick": tok, disabled: this.busy, onclick: () => this.pick(tok),
      }, this.tokenLabel(tok)))) : null,
      h("div.row", {},
        h("button", { id: "confirm-move", type: "button", disabled: done < 0 || this.busy, onclick: () => this.confirm(),
          title: done >= 0 ? this.label(done) : t("picker.whole_first") },
          done >= 0 ? t("picker.confirm_move", { move: this.label(done) }) : t("picker.confirm")),
        h("button.secondary", { id: "cancel-move", type: "button", disabled: !this.picked.length || this.busy, onclick: () => this.cancel() }, t("picker.cancel")),
        this.picked.length > 1 ? h("button.secondary.small", { type: "button", id: "back-move", onclick: () => this.back() }, t("picker.back")) : null));
  }

  /** The collapsed fallback: every legal move as a button with its sentence. */
  list(open = false) {
    return h("details.fallback", { id: "move-list", open },
      h("summary", {}, t("picker.all_moves", { count: this.moves.length })),
      h("div.moves", { id: "legal-moves" }, this.moves.slice(0, 300).map((m, i) => h("button.move.secondary", {
        type: "button", disabled: this.busy, "data-move": JSON.stringify(m), onclick: () => this.send(m, this.label(i)),
      }, this.label(i)))));
  }
}

// An arrow key moves the focus to the pickable part of the board that lies that way on the screen
// (a map's neighbouring space, the next card of a row), so a big map is not walked with Tab alone.
const ARROWS = { ArrowRight: [1, 0], ArrowLeft: [-1, 0], ArrowDown: [0, 1], ArrowUp: [0, -1] };

function centre(el) {
  const r = el.getBoundingClientRect();
  return [r.left + r.width / 2, r.top + r.height / 2];
}

/** The pickable part of `root` nearest to `from` in direction [dx, dy]: ahead of it, with a part
 * straight ahead preferred over a nearer one off to the side. */
function nearestPickable(root, from, [dx, dy]) {
  const [x, y] = centre(from);
  let best = null;
  let bestCost = Infinity;
  for (const el of root.querySelectorAll(".pickable")) {
    if (el === from) continue;
    const [ex, ey] = centre(el);
    const ahead = (ex - x) * dx + (ey - y) * dy;
    if (ahead < 1) continue;
    const aside = Math.abs((ex - x) * dy - (ey - y) * dx);
    const cost = ahead + 2 * aside;
    if (cost < bestCost) [best, bestCost] = [el, cost];
  }
  return best;
}

const CONFIRM_KEY = "teahouse.confirm";

/** The person's setting: every move waits for Confirm, even one that only one tap can mean. */
export function alwaysConfirm() {
  return globalThis.localStorage?.getItem(CONFIRM_KEY) === "always";
}

export function setAlwaysConfirm(on) {
  if (on) localStorage.setItem(CONFIRM_KEY, "always");
  else localStorage.removeItem(CONFIRM_KEY);
}

/** Escape cancels the picking on the page (installed once per screen; returns its remover). */
export function escapeCancels(picker) {
  const onKey = (ev) => {
    if (ev.key === "Escape") picker.cancel();
  };
  document.addEventListener("keydown", onKey);
  return () => document.removeEventListener("keydown", onKey);
}

