// The page's entry: reads a /r/CODE join link, connects, draws the screen after
// every message, keeps the clock line ticking and says what happens through
// the live region (opponents' progress, results, refusals).
import { App } from "./app";
import { Conn, savedName } from "./conn";
import { h } from "./dom";
import { onKey } from "./keys";
import { drawLobby } from "./lobby";
import { drawPlay, drawRules } from "./play";
import { attachDrag } from "./drag";
import { mode } from "./state";

const linked = /^\/r\/([A-Za-z0-9]{6})\/?$/.exec(location.pathname);
const app = new App(linked ? linked[1]!.toUpperCase() : null);
const main = document.getElementById("main")!;
const status = document.getElementById("status")!;
const announce = document.getElementById("announce")!;
const clockLine = h("p", { id: "clock", class: "clock", "aria-hidden": "true" });
document.getElementById("top")!.append(clockLine);

function statusText(): string {
  const c = app.conn;
  if (c.status === "online") return `online as ${c.name || "player"}`;
  if (c.status === "closed") return `disconnected: ${c.reason}`;
  if (c.status === "offline") return `offline: reconnecting (attempt ${c.attempt})…`;
  return "connecting…";
}

function focusKey(el: Element | null): string | null {
  if (!(el instanceof HTMLElement) || el === document.body) return null;
  return el.dataset.focus ?? (el.dataset.pile ? `pile-${el.dataset.pile}` : null)
    ?? (el.dataset.variant ? `variant-${el.dataset.variant}` : null) ?? el.id ?? null;
}

function find(key: string): HTMLElement | null {
  for (const el of main.querySelectorAll<HTMLElement>("[data-focus],[data-pile],[data-variant],[id]")) {
    if (focusKey(el) === key) return el;
  }
  return null;
}

let lastScreen = "";

function draw(): void {
  const s = app.state;
  const had = focusKey(document.activeElement);
  const body = app.ui.rules !== null ? drawRules(app) : mode(s) === "lobby" && !s.watching ? drawLobby(app) : drawPlay(app);
  const notice = s.notice
    ? h("p", { class: s.noticeError ? "notice error" : "notice" }, s.notice) : null;
  const note = app.ui.note ? h("p", { class: "notice" }, app.ui.note) : null;
  main.replaceChildren(body, notice ?? "", note ?? "");
  const screen = `${mode(s)}|${app.ui.screen}|${app.ui.rules ?? ""}|${app.ui.replay}`;
  const again = had !== null ? find(had) : null;
  if (again) again.focus();
  else if (screen !== lastScreen) {
    // a new screen: focus its heading area so a screen reader starts there
    (main.querySelector<HTMLElement>("input[data-autofocus]") ?? main).focus();
  }
  lastScreen = screen;
  status.textContent = statusText();
  document.body.classList.toggle("offline", app.conn.status !== "online");
  for (const line of s.events.splice(0)) {
    announce.append(h("p", {}, line));
    while (announce.childElementCount > 6) announce.firstElementChild?.remove();
  }
}

app.draw = draw;
app.conn = new Conn(savedName(), (msg) => app.received(msg), () => draw());
app.conn.seqFloor = () => {
  const starts = app.raceStart();
  return starts === null ? 0 : Math.min(Math.max(app.state.serverNow() - starts, 0), 2 ** 31 - 2 ** 20);
};
document.addEventListener("keydown", (event) => onKey(app, event));
attachDrag(main, app);
window.setInterval(() => {
  const text = app.clockText();
  if (clockLine.textContent !== text) clockLine.textContent = text;
}, 250);
window.setInterval(() => { if (app.conn.status === "online") app.conn.send({ t: "ping" }); }, 15000);
app.conn.open();
draw();
