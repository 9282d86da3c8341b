// A claimed name's devices in the page (docs/design/identity.md): the recovery
// codes shown once after the claim, the list of device keys with a revoke
// button each, a link code for a new device, a new key for this browser, new
// recovery codes; and for a guest, linking this browser to a name with a link
// code, or recovering one with a recovery code.
import type { App } from "./app";
import { button, h } from "./dom";
import type { Dict } from "./state";
import { int } from "./wire";

function when(ms: unknown): string {
  const value = int(ms);
  return value ? new Date(value).toISOString().slice(0, 16).replace("T", " ") : "never";
}

function redeemForm(app: App, how: "link" | "recover", title: string, hint: string): HTMLElement {
  const name = h("input", { id: `field-${how}-name`, name: "name", value: app.conn.name, autocomplete: "off" });
  const code = h("input", { id: `field-${how}-code`, name: "code", value: "", autocomplete: "off" });
  return h("form", { class: "line", "data-form": how, onsubmit: (e: Event) => {
    e.preventDefault();
    app.send({ t: how, name: name.value.trim().slice(0, 24), code: code.value.trim().slice(0, 32),
      label: "browser" });
  } }, h("h3", {}, title),
  h("label", { for: `field-${how}-name` }, "Name"), name,
  h("label", { for: `field-${how}-code` }, "Code"), code,
  h("button", { type: "submit" }, "OK"), h("p", { class: "dim" }, hint));
}

export function devicesScreen(app: App, main: HTMLElement, back: HTMLElement): void {
  const s = app.state;
  if (s.recoveryCodes.length) {
    main.append(h("h2", {}, `Recovery codes of ${s.identified ?? ""}: shown this once`),
      h("ol", { class: "codes" }, ...s.recoveryCodes.map((c) => h("li", {}, h("code", {}, c)))),
      h("p", {}, "Each code gives the name back once, on a new device, if you lose every device that "
        + "plays it; using one revokes every other device's key. Keep them where you keep passwords: "
        + "a password manager, or on paper away from this computer. The page keeps none of them."),
      button("I have written them down", () => { s.recoveryCodes = []; app.draw(); }, { "data-key": "done" }));
    return;
  }
  if (!s.identified) {
    main.append(h("h2", {}, "Devices: this browser plays no claimed name"),
      redeemForm(app, "link", "Link this browser to a name",
        "a link code made on a device that plays the name (its Devices screen)"),
      redeemForm(app, "recover", "Recover a name",
        "one of its recovery codes: every other device's key is revoked"), back);
    return;
  }
  main.append(h("h2", {}, `Devices of ${s.identified}`));
  const ul = h("ul", { class: "devices" });
  s.devices.forEach((d: Dict) => {
    const id = String(d.id ?? "");
    ul.append(h("li", { "data-device": id }, `${String(d.label ?? "")} · last used ${when(d.used)} UTC `,
      d.this === true ? h("strong", {}, "this device")
        : button("Revoke", () => app.send({ t: "revoke", id }), { "data-revoke": id })));
  });
  main.append(ul);
  const link = s.linkCode;
  if (link) {
    main.append(h("p", { class: "info" }, "Link code ", h("code", { "data-link-code": "" }, String(link.code ?? "")),
      `, good once until ${when(link.expires_at).slice(11)} UTC: on the new device open Devices and link it.`));
  }
  main.append(h("ul", { class: "menu" },
    h("li", {}, button("Make a link code", () => app.send({ t: "link_code" }), { "data-key": "l" })),
    h("li", {}, button("New key for this browser", () => app.send({ t: "rotate_key" }), { "data-key": "k" })),
    h("li", {}, button("New recovery codes", () => app.send({ t: "recovery_codes" }), { "data-key": "c" }))),
  back);
}
