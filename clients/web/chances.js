// The analysis graph under the replay's board (SPEC 2.14): one line per seat, its chance of
// winning after every commit; the key moments marked; the step shown marked; a click (or a key
// moment's button) goes to that step.
import { t } from "./i18n.js";
import { h, seatLabel, SEAT_COLOURS, seatSwatch, svg } from "./render.js";

const W = 1000;
const H = 160;
const PAD = 6;

const xOf = (n, last) => PAD + (last ? (n / last) * (W - 2 * PAD) : 0);
const yOf = (p) => PAD + (1 - p) * (H - 2 * PAD);
const percent = (p) => `${Math.round(p * 100)}%`;

/**
 * The graph of `doc` (an analysis), at step `seq`; `go(n)` moves the replay to step n.
 * `names`: the seats' names.
 */
export function renderChances(doc, { seq, names, go }) {
  const rows = doc.chances ?? [];
  const last = rows.length - 1;
  const players = rows[0]?.length ?? 0;
  const lines = [];
  for (let s = 0; s < players; s++) {
    const points = rows.map((r, n) => `${xOf(n, last).toFixed(1)},${yOf(r[s]).toFixed(1)}`).join(" ");
    // a dark underlay keeps a light seat colour visible on the light panel
    lines.push(svg("polyline", { points, fill: "none", stroke: "#444", "stroke-width": 4, "vector-effect": "non-scaling-stroke", opacity: 0.5 }));
    lines.push(svg("polyline", { class: "chance-line", "data-seat": s, points, fill: "none", stroke: SEAT_COLOURS[s % SEAT_COLOURS.length],
      "stroke-width": 2, "vector-effect": "non-scaling-stroke" }));
  }
  const moments = doc.key_moments ?? [];
  const graph = svg("svg", { id: "chances-graph", viewBox: `0 0 ${W} ${H}`, preserveAspectRatio: "none", role: "img",
    "aria-label": `each seat's chance of winning after every commit; at this step ${
      rows[seq] ? rows[seq].map((p, s) => `${seatLabel(s, names)} ${percent(p)}`).join(", ") : ""}`,
    style: "width: 100%; height: 10rem; cursor: pointer; display: block; background: #fbfaf6; border: 1px solid #ddd" },
    svg("line", { x1: 0, x2: W, y1: yOf(0.5), y2: yOf(0.5), stroke: "#bbb", "stroke-dasharray": "4 4", "vector-effect": "non-scaling-stroke" }),
    lines,
    moments.map((m) => svg("line", { class: "key-moment", "data-seq": m.seq, x1: xOf(m.seq, last), x2: xOf(m.seq, last), y1: 0, y2: H,
      stroke: "#b8860b", "stroke-width": 2, "stroke-dasharray": "3 3", "vector-effect": "non-scaling-stroke" })),
    svg("line", { id: "chances-now", x1: xOf(seq, last), x2: xOf(seq, last), y1: 0, y2: H, stroke: "#000", "stroke-width": 1.5,
      "vector-effect": "non-scaling-stroke" }));
  graph.addEventListener("click", (ev) => {
    const box = graph.getBoundingClientRect();
    const frac = (ev.clientX - box.left) / Math.max(1, box.width);
    const x = frac * W;
    go(Math.min(last, Math.max(0, Math.round(((x - PAD) / (W - 2 * PAD)) * last))));
  });
  const now = rows[seq];
  return h("div.panel.chances", { id: "chances" },
    h("h3", {}, t("chances.title")),
    graph,
    h("p.legend", { style: "margin: .3rem 0 0" }, Array.from({ length: players }, (_, s) =>
      h("span", { style: "margin-right: 1rem" }, seatSwatch(s), " ", seatLabel(s, names), now ? ` ${percent(now[s])}` : ""))),
    moments.length ? h("p", { id: "key-moments", style: "margin: .3rem 0 0" }, t("chances.key_moments"),
      moments.map((m) => h("button.small.secondary.key-moment-go", { type: "button", "data-seq": m.seq, onclick: () => go(m.seq),
        title: t("chances.moved", { swing: percent(m.swing) }) },
      `${m.seq}: ${seatLabel(m.for, names)} +${percent((rows[m.seq]?.[m.for] ?? 0) - (rows[m.seq - 1]?.[m.for] ?? 0))}`))) : null,
    h("p.muted", { style: "margin: .3rem 0 0; font-size: .85rem" },
      t("chances.note", { playouts: doc.playouts })));
}
