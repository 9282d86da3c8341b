// The lobby's screens: the menu (the terminal client's items and keys), the
// variant picker, the wait for a quick race, the one-line forms (a code, a name,
// a deal number), the menu of boards and the arenas (a board and a profile are
// ladder.ts's).
import type { App, Purpose, Screen } from "./app";
import { acceptBotsBox, quickMessage } from "./bots";
import { devicesScreen } from "./devices";
import { button, h } from "./dom";
import { friendsScreen } from "./friends";
import { askBoard, askProfile, backFrom, drawBoard, drawProfile } from "./ladder";
import type { Dict } from "./state";
import { int, list, obj } from "./wire";

export const MENU: [string, string, string, () => [Screen, Purpose?]][] = [
  ["1", "Quick race", "race whoever picks the same variant next", () => ["pick", "quick"]],
  ["2", "Create a private room", "get a link to share with friends", () => ["pick", "create"]],
  ["3", "Join by code", "enter the code a friend gave you", () => ["join"]],
  ["4", "Variants and rules", "a paragraph on each game", () => ["pick", "browse"]],
  ["5", "Today's challenge", "one deal a day, the same for everyone", () => ["pick", "daily"]],
  ["6", "Boards", "today's results, ratings, daily wins", () => ["boards"]],
  ["7", "Claim your name", "keep it yours: ranked dailies and ratings", () => ["claim"]],
  ["8", "Play alone", "any variant, any deal number; undo and hints", () => ["pick", "solo"]],
  ["w", "Watch a race", "a room's code: every player's counts, live", () => ["watch"]],
  ["g", "Race a ghost", "a finished race's code: race its recorded run", () => ["ghost"]],
  ["a", "Arenas", "timed events: a new race after each race", () => ["arenas"]],
  ["d", "Devices", "link a new device, revoke one, recovery codes", () => ["devices"]],
  ["f", "Friends", "follow names, see who is online, challenge one", () => ["friends"]],
];

const TITLES: Record<Purpose, string> = {
  quick: "Quick race: pick a variant", create: "Private room: pick a variant",
  browse: "Variants and rules", daily: "Today's challenge: pick a variant",
  solo: "Play alone: pick a variant", "board-daily": "Today's board: pick a variant",
  "board-rating": "Ratings: pick a variant", "board-wins": "Daily wins: pick a variant",
};

export const BOARD_MENU: [string, string, string, () => [Screen, Purpose?]][] = [
  ["1", "Today's daily board", "pick a variant", () => ["pick", "board-daily"]],
  ["2", "Ratings", "pick a variant: races between claimed names", () => ["pick", "board-rating"]],
  ["3", "Daily wins", "pick a variant", () => ["pick", "board-wins"]],
  ["4", "A player's profile", "a name's rating in each variant", () => ["profile-name"]],
];

export function open(app: App, screen: Screen, purpose?: Purpose): void {
  app.ui = { ...app.ui, screen, purpose: purpose ?? app.ui.purpose, note: "" };
  app.state.tell("");
  if (screen === "arenas") app.send({ t: "arenas" });
  if (screen === "devices" && app.state.identified) app.send({ t: "devices" });
  if (screen === "friends" && app.state.identified) app.send({ t: "friends" });
  app.draw();
}

export function pickVariant(app: App, id: string): void {
  const purpose = app.ui.purpose;
  if (purpose === "quick" || purpose === "daily") {
    if (purpose === "daily") app.send({ t: "daily_info", variant: id });
    // a quick race waits in the queue (its own screen) or joins a room; either way the picker is done
    else app.ui = { ...app.ui, screen: "menu" };
    app.send(purpose === "quick" ? quickMessage(id) : { t: purpose, variant: id });
  } else if (purpose === "create") {
    app.send({ t: "create", variant: id, players: 2, private: true });
  } else if (purpose === "browse") {
    void app.openRules(id);
    return;
  } else if (purpose === "solo") {
    app.ui = { ...app.ui, screen: "solo", variant: id };
  } else {
    askBoard(app, { kind: purpose.slice("board-".length), variant: id, offset: 0, season: false, near: false });
    return;
  }
  app.draw();
}

/** Where Esc goes back to: the boards' screens go back to the boards, the rest to the menu. */
export function backScreen(app: App): [Screen, Purpose?] {
  const ui = app.ui;
  if (ui.screen === "board" || ui.screen === "profile" || ui.screen === "profile-name") return [backFrom(app)];
  if (ui.screen === "pick" && ui.purpose.startsWith("board-")) return ["boards"];
  return ["menu"];
}

function back(app: App): HTMLButtonElement {
  return button("Back (Esc)", () => open(app, ...backScreen(app)), { "data-focus": "back" });
}

function queueScreen(app: App, queued: Dict): HTMLElement[] {
  const after = int(queued.bot_after_ms);
  const rating = Number(queued.rating ?? 0);
  const window = Number(queued.window ?? 0);
  return [h("h2", {}, `Quick race: ${app.state.variantName(queued.variant)}`),
    h("p", {}, "waiting for players near your rating…"),
    h("p", { class: "dim" }, `You are paired by your rating of this variant (${rating.toFixed(2)}), with players`
      + ` within ${window.toFixed(0)} points of it at first; the range widens as you wait.`),
    h("p", { class: "dim" }, after ? `A bot of your level comes after ${Math.round(after / 1000)} s.`
      : "No bot comes on this server: you wait for players."),
    h("p", { class: "controls" }, button("Cancel (Esc)", () => app.unqueue(), { "data-focus": "unqueue" }))];
}

function form(app: App, label: string, field: string, value: string, submit: (text: string) => void,
              hint = ""): HTMLElement {
  const input = h("input", { id: `field-${field}`, name: field, value, autocomplete: "off", "data-autofocus": true,
    "aria-describedby": hint ? `hint-${field}` : null, "data-focus": `field-${field}` });
  const el = h("form", { class: "line", onsubmit: (e: Event) => { e.preventDefault(); submit(input.value.trim()); } },
    h("label", { for: `field-${field}` }, label), input,
    h("button", { type: "submit" }, "OK"), back(app),
    hint ? h("p", { id: `hint-${field}`, class: "dim" }, hint) : null);
  return el;
}

function table(head: string[], rows: (string | number)[][], caption: string): HTMLElement {
  return h("table", {}, h("caption", {}, caption),
    h("thead", {}, h("tr", {}, ...head.map((c) => h("th", { scope: "col" }, c)))),
    h("tbody", {}, ...rows.map((r) => h("tr", {}, ...r.map((c) => h("td", {}, String(c)))))));
}

export function arenaStanding(app: App, arena: Dict): HTMLElement {
  const rows = list(arena.top).map(obj).filter((x): x is Dict => x !== null)
    .map((l) => [String(l.rank ?? ""), String(l.name ?? ""), String(l.points ?? 0), String(l.races ?? 0),
      String(l.wins ?? 0), l.fire ? "on fire: next win counts double" : ""]);
  const me = obj(arena.me);
  const el = h("section", { "aria-label": "arena standing", class: "arena" },
    h("h2", {}, `Arena ${String(arena.name ?? arena.id)} · ${app.state.variantName(arena.variant)} · ${String(arena.phase)}`),
    table(["rank", "name", "points", "races", "wins", ""], rows, "the first ten"),
    me ? h("p", {}, `You: rank ${String(me.rank)}, ${String(me.points)} points, ${String(me.races)} races`) : null);
  if (arena.member === true) {
    el.append(h("p", {}, "You are in this arena: the next race pairs you when a round starts."),
      button("Leave the arena (l)", () => app.send({ t: "arena_leave" }), { "data-focus": "arena-leave" }));
  }
  return el;
}

export function drawLobby(app: App): HTMLElement {
  const s = app.state;
  const ui = app.ui;
  const main = h("div", { class: "lobby" });
  if (s.queued) {
    main.append(...queueScreen(app, s.queued));
  } else if (ui.screen === "menu") {
    main.append(h("h2", {}, "Lobby"),
      h("p", {}, "Playing as ", h("strong", {}, app.conn.name || "player"),
        s.identified ? " (your claimed name)" : " (a guest)", " · ",
        button("Change name", () => open(app, "name"), { class: "link", "data-focus": "rename" })));
    const nav = h("nav", { "aria-label": "main menu" });
    const ul = h("ul", { class: "menu" });
    for (const [key, title, hint, target] of MENU) {
      ul.append(h("li", {}, h("button", { type: "button", "data-key": key, "data-focus": `menu-${key}`,
        "aria-keyshortcuts": key, onclick: () => { const [scr, p] = target(); open(app, scr, p); } },
        h("kbd", {}, key), ` ${title}`), h("span", { class: "dim" }, ` ${hint}`),
        key === "1" ? acceptBotsBox() : null));
    }
    nav.append(ul);
    main.append(nav);
    if (s.arena && s.arena.member === true) main.append(arenaStanding(app, s.arena));
  } else if (ui.screen === "pick") {
    main.append(h("h2", {}, TITLES[ui.purpose]));
    const ul = h("ul", { class: "variants" });
    s.variants.forEach((v, i) => {
      ul.append(h("li", {}, h("button", { type: "button", "data-variant": v.id, "data-focus": `variant-${v.id}`,
        onclick: () => pickVariant(app, v.id) }, h("kbd", {}, String(i + 1 < 10 ? i + 1 : "")), ` ${v.name}`),
        h("p", { class: "dim" }, v.blurb)));
    });
    main.append(ul, back(app));
  } else if (ui.screen === "join") {
    main.append(h("h2", {}, "Join by code"),
      form(app, "Room code", "code", "", (code) => app.send({ t: "join", code }), "six letters and digits"));
  } else if (ui.screen === "watch") {
    main.append(h("h2", {}, "Watch a race"),
      form(app, "Room code", "watch", "", (code) => app.send({ t: "watch", code })));
  } else if (ui.screen === "ghost") {
    main.append(h("h2", {}, "Race a ghost"),
      form(app, "Code of a finished race", "ghost", "", (code) => app.send({ t: "ghost", code })));
  } else if (ui.screen === "claim") {
    main.append(h("h2", {}, "Claim your name"),
      s.identified ? h("p", {}, `${s.identified} is already yours on this server.`) : "",
      form(app, "Name", "claim", app.conn.name, (name) => app.send({ t: "claim", name }),
        "its key is kept in this browser's storage"));
  } else if (ui.screen === "devices") {
    devicesScreen(app, main, back(app));
  } else if (ui.screen === "friends") {
    friendsScreen(app, main, back(app));
  } else if (ui.screen === "name") {
    main.append(h("h2", {}, "Your name"),
      form(app, "Name", "name", app.conn.name, (name) => { app.conn.rename(name.slice(0, 24)); open(app, "menu"); },
        "shown to the other players; up to 24 characters"));
  } else if (ui.screen === "solo") {
    main.append(h("h2", {}, `Play alone: ${s.variantName(ui.variant)}`),
      form(app, "Deal number", "deal", "", (deal) => {
        const msg = { t: "solo", variant: ui.variant, ...(deal ? { deal } : {}) };
        app.send(msg);
      }, "PySolFC's numbers (24, ms24); empty: a random deal"));
  } else if (ui.screen === "boards") {
    const ul = h("ul", { class: "menu" });
    for (const [key, title, hint, target] of BOARD_MENU) {
      ul.append(h("li", {}, h("button", { type: "button", "data-key": key, "data-focus": `boards-${key}`,
        "aria-keyshortcuts": key, onclick: () => { const [scr, p] = target(); open(app, scr, p); } },
        `${key} ${title}`), h("span", { class: "dim" }, ` ${hint}`)));
    }
    main.append(h("h2", {}, "Boards"), h("nav", { "aria-label": "boards" }, ul), back(app));
  } else if (ui.screen === "board") {
    main.append(...drawBoard(app, back(app)));
  } else if (ui.screen === "profile") {
    main.append(...drawProfile(app, back(app)));
  } else if (ui.screen === "profile-name") {
    main.append(h("h2", {}, "A player's profile"),
      form(app, "Name", "profile", s.identified ?? app.conn.name, (name) => askProfile(app, name),
        "a claimed name: its rating in each variant"));
  } else if (ui.screen === "arenas") {
    main.append(h("h2", {}, "Arenas"));
    const ul = h("ul", { class: "menu" });
    s.arenas.forEach((a, i) => {
      const when = a.phase === "upcoming" ? `starts at ${new Date(int(a.starts_at) ?? 0).toISOString().slice(11, 16)} UTC`
        : String(a.phase);
      ul.append(h("li", {}, button(`${i + 1} ${String(a.name ?? a.id)} · ${s.variantName(a.variant)} · ${when} · ${String(a.players ?? 0)} players`,
        () => app.send({ t: "arena_join", id: String(a.id) }), { "data-arena": String(a.id), "data-key": String(i + 1) })));
    });
    main.append(s.arenas.length ? ul : h("p", {}, "No arena is scheduled on this server."));
    if (s.arena) main.append(arenaStanding(app, s.arena));
    main.append(back(app));
  }
  return main;
}
