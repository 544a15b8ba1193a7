// The lobby's form for a game's options, built from what the game declares (GET /api/games,
// SPEC §2.3): a seat picker, a number with its range, a choice, a checkbox. Options a form
// cannot offer (a deck order, a content set) are named under the advanced JSON field, which
// the lobby merges over the form's values.
import { t, tOr } from "./i18n.js";
import { h } from "./render.js";

const plain = (v) => (typeof v === "string" ? v.replace(/_/g, " ") : String(v));

// A game's option in the reader's language: its label, help and choices from the catalogue
// (option.<game>.<name>...), else the words the server declares.
let GAME = "";
const label = (spec) => tOr(`option.${GAME}.${spec.name}`, {}, spec.label ?? spec.name);
const help = (spec) => (spec.help ? tOr(`option.${GAME}.${spec.name}.help`, {}, spec.help) : null);
const shownFor = (spec) => (v) => tOr(`option.${GAME}.${spec.name}.${v}`, {}, plain(v));

function control(spec, players) {
  const id = `opt-${spec.name}`;
  const title = help(spec);
  const shown = shownFor(spec);
  if (spec.type === "seat") {
    return h("select", { id, title },
      h("option", { value: "" }, spec.default === null || spec.default === undefined ? t("options.random") : t("common.seat_lower", { seat: spec.default })),
      Array.from({ length: players }, (_, i) => h("option", { value: String(i) }, t("common.seat_lower", { seat: i }))));
  }
  if (spec.type === "choice") {
    return h("select", { id, title },
      h("option", { value: "" }, spec.default === null || spec.default === undefined ? t("options.game_decides") : t("options.default_value", { value: shown(spec.default) })),
      spec.choices.filter((c) => c !== spec.default).map((c) => h("option", { value: JSON.stringify(c) }, shown(c))));
  }
  if (spec.type === "integer") {
    return h("input", { id, type: "number", min: spec.min ?? null, max: spec.max ?? null, title, style: "width: 5.5rem",
      placeholder: spec.default === null || spec.default === undefined ? t("options.default") : String(spec.default) });
  }
  if (spec.type === "boolean") return h("input", { id, type: "checkbox", title, checked: Boolean(spec.default) });
  return null;
}

function read(spec, el) {
  if (spec.type === "boolean") return el.checked === Boolean(spec.default) ? undefined : el.checked;
  if (el.value === "") return undefined;
  if (spec.type === "seat" || spec.type === "integer") return Number(el.value);
  return JSON.parse(el.value);
}

/**
 * The form of `game` (as GET /api/games gives it) for `players` seats: {element, options()},
 * where options() is the map of every value set that differs from the game's default.
 */
export function optionsForm(game, players) {
  GAME = game?.id ?? "";
  const specs = (game?.options ?? []).filter((s) => s.type !== "json");
  const advanced = (game?.options ?? []).filter((s) => s.type === "json").map((s) => s.name);
  const fields = specs.map((spec) => ({ spec, el: control(spec, players) }));
  const labels = fields.map(({ spec, el }) => h("label.opt", { "data-option": spec.name }, label(spec), el));
  const values = () => {
    const out = {};
    for (const { spec, el } of fields) {
      const v = read(spec, el);
      if (v !== undefined) out[spec.name] = v;
    }
    return out;
  };
  const applies = (spec, now) => Object.entries(spec.when ?? {}).every(([k, v]) => (now[k] ?? defaultOf(k)) === v)
    && (!spec.players || spec.players.includes(players));
  const defaultOf = (name) => specs.find((s) => s.name === name)?.default;
  // An option that does not apply (another option's value, the seat count) is hidden and not sent.
  const refresh = () => {
    const now = values();
    fields.forEach(({ spec, el }, i) => {
      const on = applies(spec, now);
      labels[i].hidden = !on;
      el.disabled = !on;
      if (spec.required) el.required = on;
    });
  };
  for (const { el } of fields) el.addEventListener("change", refresh);
  refresh();
  const element = h("div.row.options-form", { id: "options-form" }, labels,
    advanced.length ? h("span.muted", { id: "advanced-names" }, t("options.advanced", { names: advanced.join(", ") })) : null);
  return {
    element,
    options() {
      const now = values();
      return Object.fromEntries(Object.entries(now).filter(([k]) => applies(specs.find((s) => s.name === k), now)));
    },
  };
}
