// A small element builder: the page is drawn with DOM calls, never from HTML
// strings, so server text (names, messages) is always text, never markup.
type Attr = string | number | boolean | null | undefined | ((event: Event) => void);
type Kid = Node | string | null | undefined | false;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K, attrs: Record<string, Attr> = {}, ...kids: Kid[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (typeof value === "function") el.addEventListener(name.slice(2), value);
    else if (name === "class") el.className = String(value);
    else if (name === "style") {
      // through the CSSOM: a style attribute would need 'unsafe-inline' in the page's CSP
      for (const decl of String(value).split(";")) {
        const colon = decl.indexOf(":");
        if (colon > 0) el.style.setProperty(decl.slice(0, colon).trim(), decl.slice(colon + 1).trim());
      }
    }
    else el.setAttribute(name, value === true ? "" : String(value));
  }
  for (const kid of kids) {
    if (kid === null || kid === undefined || kid === false) continue;
    el.append(kid);
  }
  return el;
}

export function button(label: string, onClick: () => void, attrs: Record<string, Attr> = {}): HTMLButtonElement {
  return h("button", { type: "button", ...attrs, onclick: () => onClick() }, label);
}

export function clock(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}
