// The web client's words in its reader's language. Every sentence the page shows comes from a
// message catalogue (locales/<lang>.json: one flat map of key → ICU-style pattern), never from
// gluing words together in code, because word order and plural forms differ between languages.
//
// A pattern holds `{name}` placeholders and plural choices, `{n, plural, =0 {…} one {…} few {…}
// other {…}}`, where `#` is the number; the plural category comes from Intl.PluralRules, so
// Russian's one/few/many and Chinese's single form need no code of their own. Lists of names
// join with Intl.ListFormat. A key missing from the reader's catalogue falls back to English;
// one missing from English too is shown as the key itself and noted in `missingKeys()`.

/** The languages the client speaks, by BCP 47 tag, each named in itself (the switch's words). */
export const LANGUAGES = {
  en: "English",
  ru: "Русский",
  fr: "Français",
  es: "Español",
  nl: "Nederlands",
  "zh-Hans": "简体中文",
};

const STORE_KEY = "teahouse.lang";
let lang = "en";
let catalogue = {};
let english = {};
const missing = new Set();
const listeners = [];

/** The language a tag asks for, if the client speaks it: "zh-CN", "zh-Hans-SG" and "zh" read
 * as Simplified Chinese; "fr-BE" as French. */
export function supported(tag) {
  if (!tag) return null;
  const t = String(tag).toLowerCase();
  if (t.startsWith("zh")) return /hant|-tw|-hk|-mo/.test(t) ? null : "zh-Hans";
  const base = t.split("-")[0];
  return Object.keys(LANGUAGES).find((l) => l === base) ?? null;
}

/** The reader's choice (the switch, remembered), else the first of the browser's languages the
 * client speaks, else English. */
export function chooseLanguage() {
  const kept = supported(localStorage.getItem(STORE_KEY));
  if (kept) return kept;
  for (const tag of navigator.languages ?? [navigator.language]) {
    const l = supported(tag);
    if (l) return l;
  }
  return "en";
}

async function load(l) {
  const res = await fetch(`/web/locales/${l}.json`);
  if (!res.ok) throw new Error(`no catalogue for ${l}`);
  return res.json();
}

/** Loads English (the fallback) and the chosen language's catalogue. */
export async function startI18n(l = chooseLanguage()) {
  english = await load("en");
  await useLanguage(l, false);
}

/** Switches language; `remember`: keep the choice for the next visit. */
export async function useLanguage(l, remember = true) {
  const want = supported(l) ?? "en";
  catalogue = want === "en" ? english : await load(want).catch(() => english);
  lang = want;
  if (remember) localStorage.setItem(STORE_KEY, want);
  document.documentElement.lang = want;
  if (want.startsWith("zh") && !document.getElementById("cjk-font")) {
    const link = Object.assign(document.createElement("link"), { id: "cjk-font", rel: "stylesheet", href: "/web/cjk.css" });
    document.head.append(link);
  }
  translateStatic(document);
  for (const fn of listeners) fn(want);
}

export const language = () => lang;
export const onLanguage = (fn) => listeners.push(fn);
export const missingKeys = () => [...missing];
export const has = (key) => key in catalogue || key in english;

/** The sentence `key` says with `params`, in the reader's language. */
export function t(key, params = {}) {
  let pattern = catalogue[key] ?? english[key];
  if (pattern === undefined) {
    missing.add(key);
    pattern = key;
  }
  return format(pattern, params);
}

/** `key` if either catalogue has it, else `fallback` as it is (a server's English sentence). */
export function tOr(key, params, fallback) {
  return key && has(key) ? t(key, params) : fallback;
}

/** Names joined as the language joins them: "Ada and Bo", "Ada et Bo", "Ada 和 Bo". */
export function list(items, type = "conjunction") {
  const parts = items.map(String);
  try {
    return new Intl.ListFormat(lang, { style: "long", type }).format(parts);
  } catch {
    return parts.join(", ");
  }
}

const pluralRules = new Map();
function category(n) {
  if (!pluralRules.has(lang)) pluralRules.set(lang, new Intl.PluralRules(lang));
  return pluralRules.get(lang).select(n);
}

/** The pattern with its placeholders filled: `{name}` and `{n, plural, … other {…}}`. */
export function format(pattern, params = {}) {
  let out = "";
  let i = 0;
  while (i < pattern.length) {
    const open = pattern.indexOf("{", i);
    if (open < 0) {
      out += pattern.slice(i);
      break;
    }
    out += pattern.slice(i, open);
    const close = matching(pattern, open);
    out += argument(pattern.slice(open + 1, close), params);
    i = close + 1;
  }
  return out;
}

function matching(s, open) {
  let depth = 0;
  for (let i = open; i < s.length; i++) {
    if (s[i] === "{") depth++;
    else if (s[i] === "}" && --depth === 0) return i;
  }
  return s.length;
}

function argument(body, params) {
  const comma = body.indexOf(",");
  if (comma < 0) {
    const v = params[body.trim()];
    if (v === undefined || v === null) return "";
    return Array.isArray(v) ? list(v) : typeof v === "number" ? v.toLocaleString(lang) : String(v);
  }
  const name = body.slice(0, comma).trim();
  const rest = body.slice(comma + 1);
  const kind = rest.split(",")[0].trim();
  if (kind !== "plural") return String(params[name] ?? "");
  const n = Number(params[name] ?? 0);
  const choices = {};
  let s = rest.slice(rest.indexOf(",") + 1);
  for (;;) {
    const open = s.indexOf("{");
    if (open < 0) break;
    const close = matching(s, open);
    choices[s.slice(0, open).trim()] = s.slice(open + 1, close);
    s = s.slice(close + 1);
  }
  const chosen = choices[`=${n}`] ?? choices[category(n)] ?? choices.other ?? "";
  return format(chosen.replace(/#/g, n.toLocaleString(lang)), params);
}

/** Elements of the static page marked `data-i18n` (their text) and `data-i18n-attr`
 * ("placeholder:key;aria-label:key") get their words again. */
export function translateStatic(root) {
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll("[data-i18n-attr]")) {
    for (const pair of el.dataset.i18nAttr.split(";")) {
      const [attr, key] = pair.split(":");
      el.setAttribute(attr, t(key));
    }
  }
}

/** The language switch: a select of the languages by their own names. */
export function languageSwitch(sel = document.createElement("select")) {
  sel.id = "lang";
  sel.replaceChildren();
  for (const [tag, name] of Object.entries(LANGUAGES)) {
    const o = document.createElement("option");
    o.value = tag;
    o.lang = tag;
    o.textContent = name;
    sel.append(o);
  }
  sel.value = lang;
  onLanguage((l) => { sel.value = l; });
  sel.addEventListener("change", () => useLanguage(sel.value));
  return sel;
}
