// The lobby's screens: the menu (the terminal client's items and keys), the
// variant picker, the one-line forms (a code, a name, a deal number), the
// boards and the arenas.
import type { App, Purpose, Screen } from "./app";
import { devicesScreen } from "./devices";
import { button, clock, h } from "./dom";
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
];

const TITLES: Record<Purpose, string> = {
  quick: "Quick race: pick a variant", create: "Private room: pick a variant",
  browse: "Variants and rules", daily: "Today's challenge: pick a variant",
  solo: "Play alone: pick a variant", "board-daily": "Today's board: pick a variant",
  "board-wins": "Daily wins: pick a variant",
};

export function open(app: App, screen: Screen, purpose?: Purpose): void {
  app.ui = { ...app.ui, screen, purpose: purpose ?? app.ui.purpose, note: "" };
  app.state.tell("");
  if (screen === "arenas") app.send({ t: "arenas" });
  if (screen === "devices" && app.state.identified) app.send({ t: "devices" });
  app.draw();
}

export function pickVariant(app: App, id: string): void {
  const purpose = app.ui.purpose;
  if (purpose === "quick" || purpose === "daily") {
    if (purpose === "daily") app.send({ t: "daily_info", variant: id });
    app.send({ t: purpose, variant: id });
  } else if (purpose === "create") {
    app.send({ t: "create", variant: id, players: 2, private: true });
  } else if (purpose === "browse") {
    void app.openRules(id);
    return;
  } else if (purpose === "solo") {
    app.ui = { ...app.ui, screen: "solo", variant: id };
  } else {
    app.ui = { ...app.ui, screen: "board" };
    app.askBoard(purpose === "board-daily" ? "daily" : "wins", id);
  }
  app.draw();
}

function back(app: App): HTMLButtonElement {
  return button("Back (Esc)", () => open(app, "menu"), { "data-focus": "back" });
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
  if (ui.screen === "menu") {
    main.append(h("h2", {}, "Lobby"),
      h("p", {}, "Playing as ", h("strong", {}, app.conn.name || "player"),
        s.identified ? " (your claimed name)" : " (a guest)", " · ",
        button("Change name", () => open(app, "name"), { class: "link", "data-focus": "rename" })));
    const nav = h("nav", { "aria-label": "main menu" });
    const ul = h("ul", { class: "menu" });
    for (const [key, title, hint, target] of MENU) {
      ul.append(h("li", {}, h("button", { type: "button", "data-key": key, "data-focus": `menu-${key}`,
        "aria-keyshortcuts": key, onclick: () => { const [scr, p] = target(); open(app, scr, p); } },
        h("kbd", {}, key), ` ${title}`), h("span", { class: "dim" }, ` ${hint}`)));
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
    main.append(h("h2", {}, "Boards"), h("ul", { class: "menu" },
      h("li", {}, button("1 Today's daily board", () => open(app, "pick", "board-daily"), { "data-key": "1" })),
      h("li", {}, button("2 Ratings", () => { app.ui.screen = "board"; app.askBoard("rating", ""); app.draw(); },
        { "data-key": "2" })),
      h("li", {}, button("3 Daily wins", () => open(app, "pick", "board-wins"), { "data-key": "3" }))), back(app));
  } else if (ui.screen === "board") {
    const b = s.board;
    main.append(h("h2", {}, "Board"));
    if (b) {
      const rows = list(b.entries).map(obj).filter((x): x is Dict => x !== null).map((e) => [
        String(e.rank ?? ""), String(e.name ?? ""),
        e.value !== undefined ? Number(e.value).toFixed(1)
          : e.won === true ? `won in ${clock(int(e.time_ms) ?? 0)}` : `${String(e.foundation_cards ?? e.wins ?? "")}`,
        String(e.moves ?? e.races ?? "")]);
      const title = `${String(b.kind)} ${b.variant ? s.variantName(b.variant) : ""} ${String(b.date ?? "")}`;
      main.append(rows.length ? table(["rank", "name", "result", "moves"], rows, title)
        : h("p", {}, `${title}: nobody yet`));
    } else {
      main.append(h("p", {}, "asking the server…"));
    }
    main.append(back(app));
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
