// Quick races with bot accounts: the terminal client's --accept-bots as a
// checkbox beside the quick race (docs/design/bot-accounts.md). The choice is
// this tab's, kept in its sessionStorage like the room's token: a new tab asks
// again, and a person is never paired with a program without having said yes.
import { storage } from "./conn";
import { h } from "./dom";
import type { Msg } from "./wire";

const ACCEPT_BOTS = "patience.accept_bots";

export function acceptsBots(): boolean {
  return storage("session")?.getItem(ACCEPT_BOTS) === "1";
}

export function setAcceptsBots(on: boolean): void {
  const kept = storage("session");
  if (on) kept?.setItem(ACCEPT_BOTS, "1");
  else kept?.removeItem(ACCEPT_BOTS);
}

/** The quick race's message: the field in the terminal client's order, sent only when ticked. */
export function quickMessage(variant: string): Msg {
  return acceptsBots() ? { t: "quick", variant, accept_bots: true } : { t: "quick", variant };
}

/** The checkbox, a native one (Tab reaches it, Space ticks it) with its label and a line saying what it does. */
export function acceptBotsBox(): HTMLElement {
  const box = h("input", { type: "checkbox", id: "accept-bots", "data-focus": "accept-bots",
    "aria-describedby": "accept-bots-hint", "aria-keyshortcuts": "b", checked: acceptsBots(),
    onchange: (e: Event) => setAcceptsBots((e.target as HTMLInputElement).checked) });
  return h("span", { class: "accept-bots" }, box,
    h("label", { for: "accept-bots" }, " Accept bots (b)"),
    h("span", { id: "accept-bots-hint", class: "dim" }, " quick races may pair you with registered bot programs"));
}
