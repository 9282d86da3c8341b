// The keyboard: the terminal client's keys where they fit (README, "How to
// play"). Keys typed into a form field stay there, and Enter or Space on a
// focused button presses that button: every control is a real button too.
import type { App } from "./app";
import { TABLEAU_KEYS } from "./board";
import { acceptsBots, setAcceptsBots } from "./bots";
import { boardKey, resultsBoard } from "./ladder";
import { BOARD_MENU, MENU, backScreen, open, pickVariant } from "./lobby";
import { askAnalysis, openReplay, replayStep } from "./play";
import { mode } from "./state";
import { int, obj } from "./wire";

function focusMoveField(): void {
  document.getElementById("move-text")?.focus();
}

function raceKey(app: App, key: string): boolean {
  const s = app.state;
  const view = s.view;
  if (!view) return false;
  const piles = obj(view.piles) ?? {};
  if (app.ui.confirm) {
    if (key === "y") app.resign();
    else { app.ui.confirm = false; app.draw(); }
    return true;
  }
  if (key === "X") { app.ui.confirm = true; app.draw(); return true; }
  if (key === "Escape") { app.ui.pending = null; s.tell(""); app.draw(); return true; }
  if (key === ":") { focusMoveField(); return true; }
  if (key === " ") { app.ui.pending = null; app.draw_(); return true; }
  if (key === "R") { app.move("redeal"); return true; }
  if (key === "n") { app.move("deal:round"); return true; }
  if (key === "N") { app.move("deal:all"); return true; }
  if (key === "u" && s.room?.solo) { app.send({ t: "undo", v: s.v }); return true; }
  if (key === "h" && s.room?.solo) { app.send({ t: "hint" }); return true; }
  if (key === "f") { app.foundation(); return true; }
  const index = TABLEAU_KEYS.indexOf(key);
  if (index >= 0 && key.length === 1 && `t${index + 1}` in piles) { app.pick(`t${index + 1}`); return true; }
  if ((key === "w" && "w" in piles) || key === "s") { app.pick(key); return true; }
  return false;
}

function resultsKey(app: App, key: string): boolean {
  const s = app.state;
  if (app.ui.replay) {
    const r = s.replaying;
    const index = int(r?.index) ?? 0;
    if (key === "ArrowRight") replayStep(app, index + 1);
    else if (key === "ArrowLeft") replayStep(app, index - 1);
    else if (key === "Home") replayStep(app, 0);
    else if (key === "End") replayStep(app, 1 << 30);
    else if (key === "Escape") { app.ui.replay = false; s.replaying = null; app.draw(); }
    else return false;
    return true;
  }
  if (key === "m") app.send({ t: "rematch" });
  else if (key === "n") app.send({ t: "rematch", accept: false });
  else if (key === "v") openReplay(app);
  else if (key === "a" && !s.room?.daily) askAnalysis(app);
  else if (key === "b") resultsBoard(app);
  else if (key === "g" && s.code && !s.room?.daily) app.send({ t: "ghost", code: s.code });
  else if (key === "Escape" || key === "l") app.leave();
  else return false;
  return true;
}

function lobbyKey(app: App, key: string): boolean {
  const ui = app.ui;
  if (app.state.queued) { // waiting to be paired: Esc cancels, nothing else opens another screen meanwhile
    if (key === "Escape") app.unqueue();
    return key === "Escape";
  }
  if (key === "Escape" && ui.screen !== "menu") { open(app, ...backScreen(app)); return true; }
  if (ui.screen === "menu") {
    const item = MENU.find(([k]) => k === key);
    if (!item) {
      if (key === "l" && app.state.arena?.member === true) { app.send({ t: "arena_leave" }); return true; }
      if (key === "b") { setAcceptsBots(!acceptsBots()); app.draw(); return true; }
      return false;
    }
    const [screen, purpose] = item[3]();
    open(app, screen, purpose);
    return true;
  }
  if (ui.screen === "pick" && /^[1-9]$/.test(key)) {
    const v = app.state.variants[Number(key) - 1];
    if (v) pickVariant(app, v.id);
    return v !== undefined;
  }
  if (ui.screen === "boards") {
    const item = BOARD_MENU.find(([k]) => k === key);
    if (item) open(app, ...item[3]());
    return item !== undefined;
  }
  if (ui.screen === "board") return boardKey(app, key);
  if (ui.screen === "arenas" && /^[1-9]$/.test(key)) {
    const a = app.state.arenas[Number(key) - 1];
    if (a) app.send({ t: "arena_join", id: String(a.id) });
    return a !== undefined;
  }
  return false;
}

export function onKey(app: App, event: KeyboardEvent): void {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  const target = event.target as HTMLElement | null;
  const tag = target?.tagName ?? "";
  if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT") {
    if (event.key !== "Escape") return;
    (target as HTMLElement).blur(); // and Esc goes back one screen, as everywhere else
  }
  // Enter and Space press the focused button or follow the focused link
  if ((event.key === "Enter" || event.key === " ") && (tag === "BUTTON" || tag === "A")) return;
  const key = event.key;
  let done = false;
  if (app.ui.rules !== null) {
    if (key === "Escape" || key === "?") { app.ui.rules = null; app.draw(); done = true; }
  } else if (key === "?") {
    const variant = String(app.state.room?.variant ?? app.state.variants[0]?.id ?? "");
    void app.openRules(variant);
    done = true;
  } else {
    const m = mode(app.state);
    if (m === "lobby") done = lobbyKey(app, key);
    else if (m === "race" && !app.state.watching) done = raceKey(app, key);
    else if (m === "results") done = resultsKey(app, key);
    else if (key === "r" && m === "room" && !app.state.watching) { app.send({ t: "ready" }); done = true; }
    else if (key === "Escape") { app.leave(); done = true; }
  }
  if (done) event.preventDefault();
}
