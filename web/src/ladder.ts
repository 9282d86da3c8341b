// The ladder's screens, as the terminal client's boards (client/screens/boards.py):
// a board of one variant (today's daily, ratings, daily wins), this season's or all
// time's, a page of it or the player's rank with its neighbours; and a name's
// profile (its rating in each variant), opened from a name on a board.
import type { App, Screen } from "./app";
import { button, clock, h } from "./dom";
import type { Dict } from "./state";
import { askGames, closedSeasons, curveChart, figures, gamesSection } from "./history";
import { type Msg, int, list, obj, str } from "./wire";

export const BOARD_PAGE = 15;

/** The board on screen: what was asked, asked again when the server says it changed
 * (``past``: a closed season's id, shown instead of the one under way). */
export type BoardAsk = { kind: string; variant: string; offset: number; season: boolean; near: boolean; past?: string };

export function askBoard(app: App, ask: BoardAsk): void {
  app.ui = { ...app.ui, screen: "board", board: ask, note: "" };
  const msg: Msg = { t: "board", kind: ask.kind, variant: ask.variant, limit: BOARD_PAGE };
  if (ask.near) msg.near = true;
  else if (ask.offset) msg.offset = ask.offset;
  if (ask.season && ask.kind !== "daily") msg.season = ask.past || "current";
  app.send(msg);
  app.draw();
}

export function askProfile(app: App, name: string): void {
  if (!name) return;
  app.ui = { ...app.ui, screen: "profile", profileOf: name, note: "" };
  app.send({ t: "profile", name });
  askGames(app, name);
  app.draw();
}

/** The answer on hand when it is the one asked for (an older answer may still be there). */
function shownBoard(app: App): Dict | null {
  const b = app.state.board;
  const ask = app.ui.board;
  if (!b || !ask || b.kind !== ask.kind || b.variant !== ask.variant) return null;
  if (ask.near !== (str(b.near) !== null)) return null;
  if (ask.kind !== "daily" && ask.season !== (str(b.season) !== null)) return null;
  if (ask.kind !== "daily" && ask.past && str(b.season) !== ask.past) return null;
  if (!ask.near && (int(b.offset) ?? 0) !== ask.offset) return null;
  return b;
}

const LADDER = new Set(["rating", "wins"]);

/** The board screen's keys (s this season / all time, m around me / pages, n and p, r). */
export function boardKey(app: App, key: string): boolean {
  const ask = app.ui.board;
  if (!ask) return false;
  const total = int(shownBoard(app)?.total);
  if ((key === "s" || key === "m") && LADDER.has(ask.kind)) {
    askBoard(app, key === "s" ? { ...ask, season: !ask.season, past: "", offset: 0 } : { ...ask, near: !ask.near, offset: 0 });
  } else if (key === "n" && !ask.near) {
    if (total !== null && ask.offset + BOARD_PAGE >= total) note(app, "this is the last page");
    else askBoard(app, { ...ask, offset: ask.offset + BOARD_PAGE });
  } else if (key === "p" && !ask.near) {
    if (ask.offset <= 0) note(app, "this is the first page");
    else askBoard(app, { ...ask, offset: Math.max(0, ask.offset - BOARD_PAGE) });
  } else if (key === "r") {
    askBoard(app, ask);
  } else {
    return false;
  }
  return true;
}

function note(app: App, text: string): void {
  app.ui.note = text;
  app.draw();
}

function title(app: App, ask: BoardAsk, board: Dict | null): string {
  const name = app.state.variantName(ask.variant);
  if (ask.kind === "daily") return `Today's board · ${name}${board?.date ? ` · ${String(board.date)}` : ""}`;
  const season = str(board?.season);
  const when = ask.past ? `season ${ask.past} (closed)` : season ? `season ${season}` : ask.season ? "this season" : "all time";
  return `${ask.kind === "rating" ? "Ratings" : "Daily wins"} · ${name} · ${when}`;
}

function nameCell(app: App, name: string, mine: boolean): HTMLElement {
  return h("td", {}, button(name, () => askProfile(app, name), { class: "link", "data-focus": `name-${name}` }),
    mine ? " (you)" : "");
}

function rows(app: App, ask: BoardAsk, entries: Dict[]): HTMLElement {
  const me = (app.state.identified ?? app.conn.name).toLowerCase();
  const head = ask.kind === "daily" ? ["rank", "name", "result", "time", "moves", "cards"]
    : ask.kind === "rating" ? ["rank", "name", "rating", "races"] : ["rank", "name", "wins"];
  const body = entries.map((e) => {
    const name = String(e.name ?? "?");
    const mine = name.toLowerCase() === me;
    const cells: (string | number)[] = ask.kind === "daily"
      ? [e.won === true ? "won" : "not won", int(e.time_ms) !== null ? clock(int(e.time_ms)!) : "–",
        String(e.moves ?? "–"), String(e.foundation_cards ?? "–")]
      : ask.kind === "rating"
        ? [`${Number(e.value ?? 0).toFixed(2)}${e.provisional === true ? " ?" : ""}`, String(e.races ?? "")]
        : [String(e.value ?? "")];
    return h("tr", { class: mine ? "me" : null }, h("td", {}, String(e.rank ?? "")), nameCell(app, name, mine),
      ...cells.map((c) => h("td", {}, String(c))));
  });
  const caption = ask.kind === "rating" ? "? provisional: fewer than 10 rated races · a name opens its profile"
    : "a name opens its profile";
  return h("table", {}, h("caption", {}, caption),
    h("thead", {}, h("tr", {}, ...head.map((c) => h("th", { scope: "col" }, c)))), h("tbody", {}, ...body));
}

export function drawBoard(app: App, back: HTMLElement): HTMLElement[] {
  const ask = app.ui.board;
  if (!ask) return [h("h2", {}, "Board"), back];
  const b = shownBoard(app);
  const entries = list(b?.entries).map(obj).filter((x): x is Dict => x !== null);
  const out: HTMLElement[] = [h("h2", {}, title(app, ask, b))];
  if (!b) out.push(h("p", {}, "asking the server…"));
  else if (!entries.length && ask.near) out.push(h("p", {}, "You are not on this board yet."));
  else if (!entries.length) {
    out.push(h("p", {}, ask.kind === "daily" ? "Nobody has finished today's deal yet." : "Nobody here yet."));
  } else out.push(rows(app, ask, entries));
  const total = int(b?.total);
  if (b && entries.length && total !== null) {
    out.push(h("p", { class: "dim" }, ask.near ? `you: rank ${String(b.me ?? "–")} of ${total}`
      : `${ask.offset + 1}–${ask.offset + entries.length} of ${total}`));
  }
  const controls = h("p", { class: "controls" });
  if (LADDER.has(ask.kind)) {
    controls.append(button(ask.season ? "All time (s)" : "This season (s)", () => boardKey(app, "s"),
      { "data-focus": "board-season", "aria-keyshortcuts": "s" }), " ",
    button(ask.near ? "Pages (m)" : "Around me (m)", () => boardKey(app, "m"),
      { "data-focus": "board-near", "aria-keyshortcuts": "m" }), " ");
    const past = closedSeasons(app);
    if (past.length) controls.append(seasonPicker(app, ask, past), " ");
  }
  if (!ask.near && (ask.offset > 0 || (total !== null && total > ask.offset + BOARD_PAGE))) {
    controls.append(button("Previous page (p)", () => boardKey(app, "p"), { "data-focus": "board-prev" }), " ",
      button("Next page (n)", () => boardKey(app, "n"), { "data-focus": "board-next" }), " ");
  }
  controls.append(button("Refresh (r)", () => boardKey(app, "r"), { "data-focus": "board-refresh" }), " ", back);
  out.push(controls);
  return out;
}

/** A closed season's board: a list of the seasons kept, by their first day. */
function seasonPicker(app: App, ask: BoardAsk, past: string[]): HTMLElement {
  const select = h("select", { id: "board-past", "data-focus": "board-past",
    onchange: (event: Event) => {
      const chosen = (event.target as HTMLSelectElement).value;
      askBoard(app, { ...ask, season: chosen !== "" || ask.season, past: chosen, offset: 0, near: false });
    } },
  h("option", { value: "", selected: !ask.past }, ask.season ? "this season" : "all time"),
  ...past.map((id) => h("option", { value: id, selected: ask.past === id }, `season ${id}`)));
  return h("span", {}, h("label", { for: "board-past" }, "Closed season: "), select);
}

export function drawProfile(app: App, back: HTMLElement): HTMLElement[] {
  const who = app.ui.profileOf;
  const p = app.state.profile;
  const out: HTMLElement[] = [h("h2", {}, `Profile · ${who}`)];
  if (!p || String(p.name ?? "").toLowerCase() !== who.toLowerCase()) {
    out.push(h("p", {}, "asking the server…"));
  } else if (p.claimed !== true) {
    out.push(h("p", {}, `Nobody has claimed the name ${who}: it has no ratings.`));
  } else {
    const ratings = Object.entries(obj(p.ratings) ?? {}).map(([variant, r]) => [variant, obj(r) ?? {}] as const);
    if (!ratings.length) out.push(h("p", {}, "No rated race yet: ratings come from races between claimed names."));
    else {
      out.push(h("table", {}, h("caption", {}, "ratings per variant · ? provisional: fewer than 10 rated races"),
        h("thead", {}, h("tr", {}, ...["variant", "rating", "deviation", "races", "curve"]
          .map((c) => h("th", { scope: "col" }, c)))),
        h("tbody", {}, ...ratings.map(([variant, r], i) => h("tr", {},
          h("td", {}, app.state.variantName(variant)),
          h("td", {}, `${Number(r.value ?? 0).toFixed(2)}${r.provisional === true ? " ?" : ""}`),
          h("td", {}, Number(r.deviation ?? 0).toFixed(2)), h("td", {}, String(r.races ?? 0)),
          h("td", {}, curveChart(app.state.variantName(variant), r.curve, `curve-${i}`)))))));
    }
    out.push(...figures(app, p), ...gamesSection(app, who));
    const streaks = obj(p.streaks);
    if (streaks) {
      out.push(h("p", {}, `Daily streak: ${String(streaks.days ?? 0)} days (best ${String(streaks.best ?? 0)})`
        + ` · daily wins in a row: ${String(streaks.wins ?? 0)}`));
    }
    out.push(reportForm(app, String(p.name ?? who)));
  }
  out.push(h("p", { class: "controls" }, back));
  return out;
}

const REASONS: [string, string][] = [["cheating", "cheating"], ["offensive_name", "an offensive name"],
  ["abuse", "abuse"], ["other", "something else"]];

/** Report a claimed name to the moderators (docs/operations/moderation.md): a reason and a few
 * words; ``key`` tells apart the forms of one page (one per opponent on the results). */
export function reportForm(app: App, name: string, room = "", key = "profile"): HTMLElement {
  const reason = h("select", { id: `report-reason-${key}`, name: "reason" },
    ...REASONS.map(([value, text]) => h("option", { value }, text)));
  const text = h("input", { id: `report-text-${key}`, name: "text", maxlength: 200, autocomplete: "off" });
  return h("form", { class: "line report", "aria-label": `report ${name}`, onsubmit: (e: Event) => {
    e.preventDefault();
    app.send({ t: "report", name, reason: reason.value, text: text.value.trim(), ...(room ? { room } : {}) });
  } }, h("label", { for: `report-reason-${key}` }, `Report ${name} for`), reason,
  h("label", { for: `report-text-${key}` }, "in a few words"), text, h("button", { type: "submit" }, "Report"));
}

/** A race's rating changes (the race's variant), as the terminal client's results show them. */
export function ratingChanges(app: App, res: Dict): HTMLElement | null {
  const after = obj(res.ratings);
  if (!after) return null;
  const before = obj(res.ratings_before) ?? {};
  const provisional = new Set(list(res.provisional).map(String));
  const me = (app.state.identified ?? app.conn.name).toLowerCase();
  const changes = Object.entries(after).filter(([, v]) => typeof v === "number")
    .map(([name, v]) => ({ name, value: v as number, old: typeof before[name] === "number" ? before[name] as number : null }))
    .sort((a, b) => b.value - a.value);
  if (!changes.length) return null;
  return h("table", { class: "ratings" },
    h("caption", {}, `Ratings · ${app.state.variantName(res.rating_variant)} (OpenSkill ordinal; ? provisional)`),
    h("thead", {}, h("tr", {}, ...["name", "rating", "change"].map((c) => h("th", { scope: "col" }, c)))),
    h("tbody", {}, ...changes.map((c) => h("tr", { class: c.name.toLowerCase() === me ? "me" : null },
      h("td", {}, c.name + (c.name.toLowerCase() === me ? " (you)" : "")),
      h("td", {}, `${c.value.toFixed(2)}${provisional.has(c.name) ? " ?" : ""}`),
      h("td", {}, c.old === null ? "new" : `${c.value - c.old >= 0 ? "+" : ""}${(c.value - c.old).toFixed(2)}`)))));
}

/** b on the results: leave the room for the board of its variant (today's after a daily, else the ratings). */
export function resultsBoard(app: App): void {
  const res = app.state.results ?? {};
  const daily = app.state.room?.daily === true;
  const variant = String(res.rating_variant ?? res.variant ?? app.state.room?.variant ?? "");
  app.leave();
  askBoard(app, { kind: daily ? "daily" : "rating", variant, offset: 0, season: false, near: false });
}

/** Where Esc goes back to from a ladder screen. */
export function backFrom(app: App): Screen {
  if (app.ui.screen === "profile") return app.ui.board ? "board" : "boards";
  return "boards";
}
