// Friends in the page (docs/design/friends.md), as in the terminal client: the
// names followed, online or not and in which room, the challenges waiting with
// an accept and a decline button each, a form to follow, block or challenge a
// name (with a variant), and the names blocked with an unblock button each.
// The notices' lines are noticeLine's, for the state's reducer.
import type { App } from "./app";
import { button, h } from "./dom";
import type { Dict } from "./state";
import { list, obj, str } from "./wire";

function name(value: unknown): string {
  return typeof value === "string" ? value.slice(0, 24) : "";
}

/** The line a notice puts on screen ("" for a kind this page does not know). */
export function noticeLine(m: Dict, variantName: (id: unknown) => string): string {
  const who = name(m.name);
  switch (m.kind) {
    case "challenge": return `${who} challenges you to ${variantName(m.variant)}: Friends to answer`;
    case "challenge_declined": return `${who} declined your challenge`;
    case "challenge_accepted": return `${who} accepted your challenge: room ${String(m.code ?? "").slice(0, 16)}`;
    case "friend_online": return `${who} is online`;
    case "arena_soon": return `the arena ${String(m.name ?? m.id ?? "").slice(0, 40)} starts in a minute`;
    case "season_ending": {
      const at = typeof m.ends_at === "number" ? new Date(m.ends_at).toISOString().slice(0, 16).replace("T", " ") : "";
      return at ? `the season ends ${at} UTC` : "the season ends soon";
    }
    default: return "";
  }
}

/** The challenges waiting after a notice of one (the newest last, one per challenger). */
export function withChallenge(waiting: Dict[], m: Dict): Dict[] {
  const who = name(m.name);
  return [...waiting.filter((c) => c.name !== who), { name: who, variant: str(m.variant), expires_at: m.expires_at }]
    .slice(-20);
}

export function waitingOf(m: Dict): Dict[] {
  return list(m.challenges).map(obj).filter((c): c is Dict => c !== null && typeof c.name === "string").slice(0, 20);
}

function nameForm(app: App): HTMLElement {
  const input = h("input", { id: "field-friend", name: "friend", value: "", autocomplete: "off",
    "data-focus": "field-friend" });
  const select = h("select", { id: "field-friend-variant", name: "variant" },
    ...app.state.variants.map((v) => h("option", { value: v.id }, v.name)));
  const send = (t: string, extra: Dict = {}) => {
    const who = input.value.trim().slice(0, 24);
    if (who) app.send({ t, name: who, ...extra });
  };
  return h("form", { class: "line", "data-form": "friend", onsubmit: (e: Event) => { e.preventDefault(); send("follow"); } },
    h("label", { for: "field-friend" }, "Name"), input,
    h("button", { type: "submit", "data-key": "f" }, "Follow"),
    button("Block", () => send("block"), { "data-key": "b" }),
    h("label", { for: "field-friend-variant" }, "Variant"), select,
    button("Challenge", () => send("challenge", { variant: select.value }), { "data-key": "c" }));
}

export function friendsScreen(app: App, main: HTMLElement, back: HTMLElement): void {
  const s = app.state;
  main.append(h("h2", {}, "Friends"));
  if (!s.identified) {
    main.append(h("p", {}, "Following, challenges and blocks are for claimed names: claim yours first."), back);
    return;
  }
  const listing = s.friends;
  const following = list(listing?.following).map(obj).filter((f): f is Dict => f !== null);
  const ul = h("ul", { class: "friends" });
  following.forEach((f) => {
    const who = name(f.name);
    const where = f.online !== true ? "offline" : str(f.room) ? `online, in room ${str(f.room)}`
      : f.in_room === true ? "online, in a room" : "online, in the lobby";
    ul.append(h("li", { "data-friend": who }, `${who} · ${where} `,
      button("Unfollow", () => app.send({ t: "unfollow", name: who }), { "data-unfollow": who })));
  });
  main.append(listing === null ? h("p", { class: "dim" }, "loading…")
    : following.length ? ul : h("p", { class: "dim" }, "You follow nobody yet."));
  if (s.challenges.length) {
    const waiting = h("ul", { class: "challenges" });
    s.challenges.forEach((c) => {
      const who = name(c.name);
      const answer = (accept: boolean) => {
        s.challenges = s.challenges.filter((x) => x.name !== who);
        app.send({ t: "challenge_answer", name: who, accept });
      };
      waiting.append(h("li", { "data-challenge": who }, `${who} · ${s.variantName(c.variant)} `,
        button("Accept", () => answer(true), { "data-accept": who }),
        button("Decline", () => answer(false), { "data-decline": who })));
    });
    main.append(h("h3", {}, "Challenges waiting"), waiting);
  }
  const blocked = list(listing?.blocked).filter((b): b is string => typeof b === "string");
  if (blocked.length) {
    main.append(h("h3", {}, "Blocked"), h("ul", { class: "blocked" }, ...blocked.map((b) =>
      h("li", {}, `${name(b)} `, button("Unblock", () => app.send({ t: "unblock", name: b }), { "data-unblock": b })))));
  }
  main.append(nameForm(app), back);
}
