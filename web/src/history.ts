// A profile's history in the browser: each variant's rating curve drawn as an
// inline SVG chart from the changes the server sends (with the same figures in
// words beside it, its text alternative), the name's figures (races, wins, win
// rate, best times, daily results, arenas), and the closed seasons a board can
// show (the read API's /api/v1/seasons, on the page's own origin).
import type { App } from "./app";
import { drawBoard } from "./board";
import { button, clock, h } from "./dom";
import type { Dict } from "./state";
import { int, list, obj } from "./wire";

const SVG = "http://www.w3.org/2000/svg";
const W = 240;
const H = 60;
const PAD = 4;

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>,
  ...kids: (Node | string)[]): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) el.setAttribute(name, String(value));
  el.append(...kids);
  return el;
}

/** The curve's points as [when, rating] pairs, oldest first (malformed ones left out). */
export function points(curve: unknown): [number, number][] {
  return list(curve).map((p) => list(p)).map((p) => [Number(p[0]), Number(p[1])] as [number, number])
    .filter(([at, v]) => Number.isFinite(at) && Number.isFinite(v));
}

/** The curve in words: the chart's text alternative. */
export function curveText(variant: string, pts: [number, number][]): string {
  if (!pts.length) return `${variant}: no rating change yet`;
  const values = pts.map(([, v]) => v);
  const first = values[0]!;
  const last = values[values.length - 1]!;
  return `${variant}: rating ${first.toFixed(2)} to ${last.toFixed(2)} over the last ${pts.length} `
    + `change${pts.length === 1 ? "" : "s"}, lowest ${Math.min(...values).toFixed(2)}, `
    + `highest ${Math.max(...values).toFixed(2)}`;
}

/** A variant's rating curve: a line through its changes, scaled to the box, named for screen readers. */
export function curveChart(variant: string, curve: unknown, id: string): HTMLElement {
  const pts = points(curve);
  const text = curveText(variant, pts);
  const figure = h("figure", { class: "curve" });
  const chart = svg("svg", { viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: "img",
    "aria-labelledby": `${id}-title`, "data-curve": variant },
  svg("title", { id: `${id}-title` }, text));
  if (pts.length) {
    const values = pts.map(([, v]) => v);
    const low = Math.min(...values);
    const span = Math.max(...values) - low || 1;
    const step = pts.length > 1 ? (W - 2 * PAD) / (pts.length - 1) : 0;
    const xy = pts.map(([, v], i) => [PAD + i * step, H - PAD - ((v - low) / span) * (H - 2 * PAD)] as const);
    chart.append(svg("polyline", { points: xy.map(([x, y]) => `${x.toFixed(1)},${y.toFixed(1)}`).join(" "),
      fill: "none", stroke: "currentColor", "stroke-width": 2 }));
    for (const [x, y] of xy) chart.append(svg("circle", { cx: x.toFixed(1), cy: y.toFixed(1), r: 2, fill: "currentColor" }));
  }
  figure.append(chart, h("figcaption", { class: "dim" }, text));
  return figure;
}

function rate(value: unknown): string {
  return typeof value === "number" ? `${Math.round(value * 100)}%` : "–";
}

/** The name's figures: totals, per variant races, wins and best winning time, dailies, arenas. */
export function figures(app: App, profile: Dict): HTMLElement[] {
  const stats = obj(profile.stats);
  if (!stats) return [];
  const out: HTMLElement[] = [];
  const arenas = obj(stats.arenas) ?? {};
  const daily = obj(stats.daily) ?? {};
  out.push(h("p", { "data-figures": "totals" }, `Races ${String(stats.races ?? 0)} · wins ${String(stats.wins ?? 0)}`
    + ` (win rate ${rate(stats.win_rate)}) · games kept ${String(stats.games ?? 0)}`
    + ` · arenas ${String(arenas.played ?? 0)} (${String(arenas.races ?? 0)} races, ${String(arenas.wins ?? 0)} won)`));
  const variants = Object.entries(obj(stats.variants) ?? {}).map(([v, f]) => [v, obj(f) ?? {}] as const);
  if (variants.length) {
    out.push(h("table", {}, h("caption", {}, "races per variant · wins are first places"),
      h("thead", {}, h("tr", {}, ...["variant", "races", "wins", "win rate", "best time"]
        .map((c) => h("th", { scope: "col" }, c)))),
      h("tbody", {}, ...variants.map(([v, f]) => h("tr", {},
        h("td", {}, app.state.variantName(v)), h("td", {}, String(f.races ?? 0)), h("td", {}, String(f.wins ?? 0)),
        h("td", {}, rate(f.win_rate)), h("td", {}, int(f.best_ms) !== null ? clock(int(f.best_ms)!) : "–"))))));
  }
  const last = list(daily.last).map(obj).filter((d): d is Dict => d !== null);
  const results = last.map((d) => `${String(d.date ?? "")} ${app.state.variantName(d.variant)}: `
    + (d.won === true ? `won in ${clock(int(d.time_ms) ?? 0)}` : `${String(d.foundation_cards ?? 0)}/${String(d.total_cards ?? 0)} cards`));
  out.push(h("p", { "data-figures": "daily" }, `Daily: ${String(daily.played ?? 0)} played, ${String(daily.won ?? 0)} won`
    + (results.length ? ` · latest: ${results.join("; ")}` : "")));
  return out;
}

/** The closed seasons, newest first, asked of the read API once per page load. */
let closed: string[] | null = null;
let asking = false;

export function closedSeasons(app: App): string[] {
  if (closed === null && !asking) {
    asking = true;
    void fetch("/api/v1/seasons").then(async (answer) => {
      const body = answer.ok ? obj(await answer.json()) : null;
      closed = list(body?.closed).map((s) => String(s));
      app.draw();
    }).catch(() => { closed = []; }).finally(() => { asking = false; });
  }
  return closed ?? [];
}

/** Test seam: forget the seasons fetched (a new server, a new page). */
export function forgetSeasons(): void {
  closed = null;
}

export const GAMES_SHOWN = 20;

/** Ask for a name's kept games (with its profile). */
export function askGames(app: App, name: string): void {
  app.state.kept = null;
  app.send({ t: "games", name, limit: GAMES_SHOWN });
}

function keptStep(app: App, index: number): void {
  const k = app.state.kept;
  if (!k) return;
  app.send({ t: "game_replay", name: String(k.name), code: String(k.code), index: Math.max(0, index) });
}

/** The kept game under replay: its board at a move, and the buttons that step through it. */
function keptReplay(app: App, kept: Dict): HTMLElement {
  const index = int(kept.index) ?? 0;
  const total = int(kept.total) ?? 0;
  const el = h("section", { class: "replay", "aria-label": "a kept game's replay" },
    h("h3", {}, `Replay · game ${String(kept.code)} · move ${index} of ${total}`),
    h("p", { "aria-live": "polite" }, kept.move ? `last: ${String(kept.move)} at ${clock(int(kept.ms) ?? 0)}` : "the deal"));
  const view = obj(kept.view);
  if (view) el.append(drawBoard(view, kept.layout, { pending: null, onPile: null }));
  el.append(h("div", { class: "actions" },
    button("Start", () => keptStep(app, 0), { "data-focus": "k-start" }),
    button("Back", () => keptStep(app, index - 1), { "data-focus": "k-back" }),
    button("Forward", () => keptStep(app, index + 1), { "data-focus": "k-next" }),
    button("End", () => keptStep(app, 1 << 30), { "data-focus": "k-end" }),
    button("Close the replay", () => { app.state.kept = null; app.draw(); }, { "data-focus": "k-close" })));
  return el;
}

function outcome(g: Dict): string {
  if (g.won === true) return int(g.time_ms) !== null ? `won in ${clock(int(g.time_ms)!)}` : "won";
  return `${String(g.foundation_cards ?? 0)}/${String(g.total_cards ?? 0)} cards, ${String(g.status ?? "")}`;
}

/** A name's kept games, newest first: each opens as a replay or a ghost race. */
export function gamesSection(app: App, name: string): HTMLElement[] {
  const page = app.state.games;
  if (!page || String(page.name ?? "").toLowerCase() !== name.toLowerCase()) return [h("p", {}, "asking for the games…")];
  const games = list(page.games).map(obj).filter((g): g is Dict => g !== null);
  const out: HTMLElement[] = [h("h3", {}, `Games kept · ${String(page.total ?? 0)}`)];
  if (!games.length) {
    out.push(h("p", {}, "No game kept yet."));
    return out;
  }
  out.push(h("table", { class: "games" }, h("caption", {}, "the newest games · a replay or a ghost race opens any of them"),
    h("thead", {}, h("tr", {}, ...["ended (UTC)", "variant", "kind", "place", "outcome", "rating", ""]
      .map((c) => h("th", { scope: "col" }, c)))),
    h("tbody", {}, ...games.map((g) => {
      const code = String(g.code ?? "");
      const players = list(g.players);
      const before = g.rating_before;
      const after = g.rating_after;
      const change = typeof before === "number" && typeof after === "number"
        ? `${after - before >= 0 ? "+" : ""}${(after - before).toFixed(2)}` : "";
      return h("tr", { "data-game": code },
        h("td", {}, new Date(int(g.at) ?? 0).toISOString().slice(0, 16).replace("T", " ")),
        h("td", {}, app.state.variantName(g.variant)), h("td", {}, String(g.mode ?? "")),
        h("td", {}, players.length > 1 ? `${String(g.place ?? "")} of ${players.length}` : ""),
        h("td", {}, outcome(g)), h("td", {}, change),
        h("td", {}, button("Replay", () => app.send({ t: "game_replay", name, code, index: 0 }),
          { "data-focus": `replay-${code}`, "aria-label": `replay game ${code}` }), " ",
        button("Race as a ghost", () => app.send({ t: "game_ghost", name, code }),
          { "data-focus": `ghost-${code}`, "aria-label": `race game ${code} as a ghost` })));
    }))));
  const kept = app.state.kept;
  if (kept && String(kept.name ?? "").toLowerCase() === name.toLowerCase()) out.push(keptReplay(app, kept));
  return out;
}
