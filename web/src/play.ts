// The screens of a room: waiting (with the join link), the countdown, the race
// (the board, opponents' progress bars, the clock), the results (rematch,
// replay, ghost, record), watching a race, and the rules card.
import type { App } from "./app";
import { drawBoard, pileName } from "./board";
import { glyphText } from "./cards";
import { button, clock, h } from "./dom";
import { analysisBlock } from "./analysis";
import { ratingChanges, reportForm, resultsBoard } from "./ladder";
import { arenaStanding } from "./lobby";
import { type Dict, mode, players } from "./state";
import { int, list, obj, str } from "./wire";

function progressBars(app: App): HTMLElement {
  const s = app.state;
  const el = h("section", { class: "progress", "aria-label": "players' progress" });
  for (const seat of players(s)) {
    const mine = seat.player === s.me && s.view !== null;
    const p: Dict = mine ? { foundation_cards: s.view!.foundation_cards, total_cards: s.view!.total_cards,
      moves: s.v, status: s.view!.status } : (s.progress.get(seat.player) ?? {});
    const done = int(p.foundation_cards) ?? 0;
    const total = int(p.total_cards) ?? int(s.view?.total_cards) ?? 52;
    const status = str(p.status) ?? "in_progress";
    const text = `${seat.name}${mine ? " (you)" : ""}: ${done} of ${total} cards home, ${int(p.moves) ?? 0} moves` +
      (status !== "in_progress" ? `, ${status}` : "") + (seat.connected ? "" : ", offline");
    el.append(h("div", { class: "bar-row", "data-player": String(seat.player) },
      h("span", { class: "who" }, seat.name + (mine ? " (you)" : "") + (seat.bot ? ` · bot ${seat.bot}` : "") +
        (seat.botAccount ? " · bot account" : "")),
      h("span", { class: "bar", role: "progressbar", "aria-label": text, "aria-valuemin": 0,
        "aria-valuemax": total, "aria-valuenow": done },
        h("span", { class: "fill", style: `width:${total ? Math.round((100 * done) / total) : 0}%` })),
      h("span", { class: "nums", "aria-hidden": "true" }, `${done}/${total} · ${int(p.moves) ?? 0}` +
        (status !== "in_progress" ? ` · ${status}` : ""))));
  }
  return el;
}

function seatList(app: App): HTMLElement {
  const s = app.state;
  return h("ul", { class: "seats", "aria-label": "players" }, ...players(s).map((p) => h("li", {},
    `${p.name}${p.player === s.me ? " (you)" : ""}${p.bot ? ` · bot level ${p.bot}` : ""}` +
    `${p.botAccount ? " · bot account" : ""}` +
    `${p.ready ? " · ready" : " · not ready"}${p.connected ? "" : " · offline"}`)));
}

function joinLink(code: string): string {
  return `${location.origin}/r/${code}`;
}

function drawRoom(app: App): HTMLElement {
  const s = app.state;
  const room = s.room ?? {};
  const code = String(s.code ?? "");
  const el = h("div", { class: "room" },
    h("h2", {}, `${s.variantName(room.variant)} · room ${code}`),
    room.daily ? h("p", {}, `Today's challenge${room.ranked ? " (ranked)" : " (practice)"}`) : null,
    room.private ? h("p", {}, "Share this link: ",
      h("a", { href: `/r/${code}`, "data-focus": "link", id: "join-link" }, joinLink(code)),
      ` (or the code ${code})`) : null,
    seatList(app));
  const me = players(s).find((p) => p.player === s.me);
  const actions = h("div", { class: "actions" });
  if (mode(s) === "room" && !s.watching) {
    actions.append(button(me?.ready ? "Ready (waiting for the others)" : "Ready (r)", () => app.send({ t: "ready" }),
      { "data-focus": "ready", disabled: me?.ready === true, "aria-keyshortcuts": "r" }));
    if (room.private && s.me === 1) {
      actions.append(button("Add a bot", () => app.send({ t: "add_bot", level: 3 }), { "data-focus": "bot" }));
    }
  }
  actions.append(button("Rules (?)", () => void app.openRules(String(room.variant ?? ""))),
    button(s.watching ? "Stop watching (Esc)" : "Leave (Esc)", () => app.leave(), { "data-focus": "leave" }));
  el.append(actions);
  if (mode(s) === "countdown") el.append(h("p", { class: "big" }, "Get ready: the race starts soon"));
  if (s.watching) el.append(progressBars(app));
  return el;
}

function drawRace(app: App): HTMLElement {
  const s = app.state;
  const room = s.room ?? {};
  const view = s.view!;
  const solo = room.solo === true;
  const el = h("div", { class: "race" },
    h("h2", { class: "sr-only" }, `${s.variantName(room.variant)} race`));
  el.append(progressBars(app));
  el.append(drawBoard({ ...view, v: s.v }, room.layout, { pending: app.ui.pending, onPile: (p) => app.pick(p) }));
  const legal = new Set(list(view.legal_moves).map(String));
  const status = str(view.status) ?? "in_progress";
  const actions = h("div", { class: "actions" });
  if (legal.has("redeal")) {
    actions.append(button(`Redeal (R)${int(view.passes_left) !== null ? `, ${int(view.passes_left)} left` : ""}`,
      () => app.move("redeal"), { "data-focus": "redeal" }));
  }
  for (const [text, label] of [["deal:round", "Deal a round (n)"], ["deal:all", "Deal all (N)"]] as const) {
    if (legal.has(text)) actions.append(button(label, () => app.move(text)));
  }
  if (solo) {
    actions.append(button("Undo (u)", () => app.send({ t: "undo", v: s.v }), { "data-focus": "undo" }),
      button("Hint (h)", () => app.send({ t: "hint" }), { "data-focus": "hint" }));
  }
  if (status === "in_progress" && app.ui.confirm) {
    actions.append(button("Yes, resign (y)", () => app.resign(), { "data-focus": "resign-yes" }),
      button("No, play on", () => { app.ui.confirm = false; app.draw(); }, { "data-focus": "resign-no" }));
  } else if (status === "in_progress") {
    actions.append(button("Resign (X)", () => { app.ui.confirm = true; app.draw(); }, { "data-focus": "resign" }));
  }
  actions.append(button("Rules (?)", () => void app.openRules(String(room.variant ?? ""))));
  const moveInput = h("input", { id: "move-text", name: "move", autocomplete: "off", spellcheck: "false",
    placeholder: "w-t3", "data-focus": "move-text", size: 8 });
  actions.append(h("form", { class: "line", onsubmit: (e: Event) => {
    e.preventDefault(); if (moveInput.value.trim()) app.move(moveInput.value.trim()); } },
  h("label", { for: "move-text" }, "Move (:)"), moveInput, h("button", { type: "submit" }, "Play")));
  el.append(actions);
  if (app.ui.pending) {
    el.append(h("p", { class: "dim" }, `${pileName(app.ui.pending, null)} picked: now the pile to put it on (Esc cancels)`));
  }
  if (status !== "in_progress") el.append(h("p", { class: "big" }, `Your game: ${status}. Waiting for the results…`));
  return el;
}

function drawResults(app: App): HTMLElement {
  const s = app.state;
  const res = s.results!;
  const el = h("div", { class: "results" }, h("h2", {}, `Results · ${s.variantName(res.variant)}`));
  const rows = list(res.ranking).map(obj).filter((r): r is Dict => r !== null);
  el.append(h("table", {}, h("caption", {}, res.deal ? `deal ${String(res.deal)}` : "ranking"),
    h("thead", {}, h("tr", {}, ...["place", "name", "result", "cards home", "moves"].map((c) => h("th", { scope: "col" }, c)))),
    h("tbody", {}, ...rows.map((r) => h("tr", {},
      h("td", {}, String(r.place ?? "")), h("td", {}, String(r.name ?? "") + (r.player === s.me ? " (you)" : "")),
      h("td", {}, r.won ? `won in ${clock(int(r.time_ms) ?? 0)}` : String(r.status ?? "")),
      h("td", {}, `${String(r.foundation_cards ?? "")}/${String(r.total_cards ?? "")}`),
      h("td", {}, String(r.moves ?? "")))))));
  const ratings = ratingChanges(app, res);
  if (ratings) el.append(ratings);
  if (str(res.share)) el.append(h("p", {}, h("output", { id: "share" }, String(res.share))));
  const offer = s.rematchOffer;
  if (offer) {
    const accepted = list(offer.accepted).map((n) => s.playerName(Number(n)));
    el.append(h("p", {}, `Rematch accepted by: ${accepted.join(", ") || "nobody yet"}`));
  }
  const room = s.room ?? {};
  const actions = h("div", { class: "actions" });
  if (!s.watching && !room.solo && !room.daily && !room.arena) {
    actions.append(button("Rematch (m)", () => app.send({ t: "rematch" }), { "data-focus": "rematch" }),
      button("No rematch (n)", () => app.send({ t: "rematch", accept: false })));
  }
  actions.append(button("Replay (v)", () => openReplay(app), { "data-focus": "replay" }));
  if (!room.daily) actions.append(button("Analyse (a)", () => askAnalysis(app), { "data-focus": "analyse" }));
  if (!room.daily && s.code) {
    actions.append(button("Race the winner's ghost (g)", () => app.send({ t: "ghost", code: s.code })));
  }
  actions.append(button(room.daily ? "Today's board (b)" : "Ratings (b)", () => resultsBoard(app),
    { "data-focus": "results-board" }), button("Save my record (s)", () => saveRecord(app)),
    button("Back to the lobby (Esc)", () => app.leave(), { "data-focus": "leave" }));
  el.append(actions);
  const analysis = analysisBlock(app);
  if (analysis) el.append(analysis);
  const others = rows.filter((r) => r.player !== s.me && !r.bot && typeof r.name === "string");
  if (!s.watching && !room.solo && others.length) { // a claimed name reports an opponent to the moderators
    el.append(h("details", { class: "reports" }, h("summary", {}, "Report a player"),
      ...others.map((r) => reportForm(app, String(r.name), s.code ?? "", `p${String(r.player)}`))));
  }
  if (s.arena && room.arena) el.append(arenaStanding(app, s.arena));
  return el;
}

export function askAnalysis(app: App): void {
  app.state.tell("asking the server where the game was lost… (it takes a few seconds)");
  app.send({ t: "analyse" });
  app.draw();
}

function saveRecord(app: App): void {
  const s = app.state;
  const n = s.me ?? 1;
  const moves = s.records.get(n);
  if (!moves) {
    app.send({ t: "record", player: n });
    s.tell("asking the server for your record… press again to save it");
    app.draw();
    return;
  }
  const blob = new Blob([JSON.stringify({ variant: s.results?.variant, moves })], { type: "application/json" });
  const a = h("a", { href: URL.createObjectURL(blob), download: `patience-${s.code ?? "game"}.json` });
  a.click();
}

export function openReplay(app: App): void {
  const s = app.state;
  app.ui.replay = true;
  s.replaying = { index: 0, player: s.me ?? 1, total: 0, with: null };
  for (const p of players(s)) if (!p.ghost) app.send({ t: "record", player: p.player });
  app.send({ t: "replay", player: s.me ?? 1, index: 0 });
  app.draw();
}

export function replayStep(app: App, index: number, player?: number): void {
  const r = app.state.replaying;
  if (!r) return;
  app.send({ t: "replay", player: player ?? int(r.player) ?? 1, index: Math.max(0, index) });
}

function divergence(app: App): number | null {
  const s = app.state;
  const me = int(s.replaying?.player) ?? 1;
  const mine = s.records.get(me);
  const other = [...s.records.entries()].find(([n]) => n !== me);
  if (!mine || !other) return null;
  let i = 0;
  while (i < mine.length && i < other[1].length && mine[i] === other[1][i]) i++;
  return i;
}

function drawReplay(app: App): HTMLElement {
  const s = app.state;
  const r = s.replaying ?? {};
  const index = int(r.index) ?? 0;
  const total = int(r.total) ?? 0;
  const player = int(r.player) ?? 1;
  const el = h("div", { class: "replay" },
    h("h2", {}, `Replay · ${s.playerName(player)} · move ${index} of ${total}`),
    h("p", { "aria-live": "polite" }, r.move ? `last: ${String(r.move)} at ${clock(int(r.ms) ?? 0)}` : "the deal"));
  const view = obj(r.view);
  if (view) el.append(drawBoard(view, s.room?.layout, { pending: null, onPile: null }));
  const at = divergence(app);
  el.append(h("div", { class: "actions" },
    button("Start (Home)", () => replayStep(app, 0), { "data-focus": "r-start" }),
    button("Back (←)", () => replayStep(app, index - 1), { "data-focus": "r-back" }),
    button("Forward (→)", () => replayStep(app, index + 1), { "data-focus": "r-next" }),
    button("End (End)", () => replayStep(app, 1 << 30), { "data-focus": "r-end" }),
    at !== null ? button(`Where the paths part (move ${at})`, () => replayStep(app, at), { "data-focus": "r-part" }) : null,
    ...players(s).filter((p) => !p.ghost && p.player !== player).map((p) =>
      button(`Show ${p.name}`, () => replayStep(app, index, p.player))),
    button("Close the replay (Esc)", () => { app.ui.replay = false; s.replaying = null; app.draw(); },
      { "data-focus": "r-close" })));
  return el;
}

export function drawRules(app: App): HTMLElement {
  const id = app.ui.rules ?? "";
  const text = app.rulesText?.[id] ?? app.state.variants.find((v) => v.id === id)?.blurb ?? "loading…";
  return h("section", { class: "rules", role: "dialog", "aria-modal": "false", "aria-labelledby": "rules-title" },
    h("h2", { id: "rules-title" }, `Rules: ${app.state.variantName(id)}`),
    h("div", { class: "rules-text", tabindex: "0", "aria-label": "rules text" }, glyphText(text)),
    button("Close the rules (Esc)", () => { app.ui.rules = null; app.draw(); }, { "data-focus": "rules-close" }));
}

export function drawPlay(app: App): HTMLElement {
  const m = mode(app.state);
  if (m === "results" && app.ui.replay) return drawReplay(app);
  if (m === "results") return drawResults(app);
  if (m === "race" && !app.state.watching) return drawRace(app);
  return drawRoom(app);
}
