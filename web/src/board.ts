// One player's board, drawn from the layout the server sends (the room's
// `layout`: rows of cells, each cell the piles it holds, each pile's role and
// fan; docs/reference/protocol.md, "Variants and layouts"). The page knows no
// variant by name: a new variant on the server is drawn with no change here.
// Every face-up card is shown: a pile longer than its cell wraps onto more
// lines instead of hiding cards, as the terminal client's board does.
import { RANKS, face, isRed, rankFace, rankSpoken, spoken } from "./cards";
import { h } from "./dom";
import type { Dict } from "./state";
import { int, list, obj, str, strings } from "./wire";

type PileInfo = { role: string; fan: string; suit?: string | null; step?: number; size?: number;
  start?: string | null; note?: string };
type Layout = { rows: string[][][]; piles: Record<string, PileInfo>; gap: boolean };

export const TABLEAU_KEYS = "1234567890-=";
const ROLE_NAMES: Record<string, string> = { foundation: "foundation", tableau: "tableau",
  cell: "cell", indicator: "indicator" };

export function pileKey(pile: string): string {
  const m = /^t(\d+)$/.exec(pile);
  if (m) {
    const n = Number(m[1]);
    if (n >= 1 && n <= TABLEAU_KEYS.length) return TABLEAU_KEYS[n - 1]!;
  }
  return pile;
}

export function legalMoves(view: Dict | null): string[] {
  return strings(view?.legal_moves);
}

function split(move: string): [string, string, number] | null {
  const dash = move.indexOf("-");
  if (dash < 0) return null;
  const [dst, count] = move.slice(dash + 1).split(":");
  return [move.slice(0, dash), dst ?? "", count && /^\d+$/.test(count) ? Number(count) : 1];
}

/** The piles a selected pile may move to. */
export function targets(view: Dict | null, pending: string | null): Set<string> {
  const out = new Set<string>();
  if (pending === null) return out;
  for (const move of legalMoves(view)) {
    const p = split(move);
    if (p && p[0] === pending) out.add(p[1]);
  }
  return out;
}

export function sources(view: Dict | null): Set<string> {
  const out = new Set<string>();
  for (const move of legalMoves(view)) {
    const p = split(move);
    if (p) out.add(p[0]);
  }
  return out;
}

/** The move text for src -> dst: the legal one (the longest run if several), else plain. */
export function chooseMove(src: string, dst: string, legal: string[]): string {
  let best: [number, string] | null = null;
  for (const move of legal) {
    const p = split(move);
    if (p && p[0] === src && p[1] === dst && (best === null || p[2] > best[0])) best = [p[2], move];
  }
  return best ? best[1] : `${src}-${dst}`;
}

/** What the stock does: the legal one of draw and deal (never redeal: it has its own control). */
export function drawAction(view: Dict | null): string {
  const legal = legalMoves(view);
  for (const action of ["draw", "deal"]) if (legal.includes(action)) return action;
  return view && "phase" in view ? "deal" : "draw";
}

function cardsOf(view: Dict, pile: string): string[] {
  return list(obj(view.piles)?.[pile]).map(String);
}

function fallbackRole(pile: string): string {
  return { f: "foundation", i: "indicator" }[pile[0] ?? ""] ?? "tableau";
}

export function checkedLayout(raw: unknown, view: Dict): Layout {
  const names = Object.keys(obj(view.piles) ?? {}).filter((p) => p !== "s" && p !== "w");
  const layout = obj(raw);
  const rows: string[][][] = [];
  const piles: Record<string, PileInfo> = {};
  const placed = new Set<string>();
  if (layout && Array.isArray(layout.rows) && obj(layout.piles)) {
    for (const row of list(layout.rows)) {
      const cells = list(row).map((cell) => strings(cell));
      cells.forEach((cell) => cell.forEach((p) => placed.add(p)));
      if (cells.length) rows.push(cells);
    }
    for (const [name, info] of Object.entries(obj(layout.piles) ?? {})) {
      const o = obj(info);
      if (o) piles[name] = { ...(o as Dict), role: String(o.role ?? fallbackRole(name)),
        fan: String(o.fan ?? "right") } as PileInfo;
    }
  }
  // piles the layout does not place are still drawn, after the rows, six to a row
  const extra = names.filter((p) => !placed.has(p));
  for (let i = 0; i < extra.length; i += 6) rows.push(extra.slice(i, i + 6).map((p) => [p]));
  for (const p of names) {
    piles[p] ??= { role: fallbackRole(p), fan: p[0] === "f" || p[0] === "i" ? "none" : "right" };
  }
  return { rows, piles, gap: layout?.gap !== false };
}

function number(pile: string): string {
  return pile.replace(/^[a-z]+/, "");
}

export function pileName(pile: string, layout: Layout | null): string {
  if (pile === "w") return "waste";
  if (pile === "s") return "stock";
  const role = layout?.piles[pile]?.role ?? fallbackRole(pile);
  return `${ROLE_NAMES[role] ?? role} ${number(pile)}`;
}

/** What a foundation takes next (`J♣`, `6`), "done" when full, null when the layout gives no hint. */
function nextCard(view: Dict, info: PileInfo, pile: string): [string, string] | null {
  const step = int(info.step);
  if (step === null) return null;
  const cards = cardsOf(view, pile);
  const suit = str(info.suit) ?? "";
  if (cards.length >= (int(info.size) ?? 13)) return ["done", "complete"];
  const top = cards.length ? RANKS.indexOf((cards[cards.length - 1] ?? "")[0]?.toUpperCase() ?? "") : -1;
  let rank: string;
  if (top < 0) {
    const start = str(info.start) ?? str(view.base_rank);
    if (!start) return null;
    rank = start[0]!.toUpperCase();
  } else {
    rank = RANKS[(top + step) % 13]!;
  }
  return [`next ${rankFace(rank, suit)}`, `takes ${rankSpoken(rank, suit)} next`];
}

export type BoardOptions = {
  pending: string | null;
  onPile: ((pile: string) => void) | null; // null: a board to look at (replays)
};

function cardChip(text: string, top: boolean): HTMLElement {
  return h("span", { class: `card${isRed(text) ? " red" : ""}${top ? " top" : ""}`, "aria-hidden": "true" },
    face(text));
}

function pileLabel(view: Dict, pile: string, layout: Layout, lit: boolean, picked: boolean): string {
  const cards = cardsOf(view, pile);
  let text = `${pileName(pile, layout)}: `;
  text += cards.length ? cards.slice().reverse().map(spoken).join(" on ") : "empty";
  const info = layout.piles[pile];
  if (info?.role === "foundation") {
    const next = nextCard(view, info, pile);
    if (next) text += `, ${next[1]}`;
  }
  if (info?.note) text += `, ${info.note}`;
  if (picked) text += ", picked";
  if (lit) text += ", legal target";
  return text;
}

function drawPile(view: Dict, pile: string, layout: Layout, opts: BoardOptions,
                  lit: Set<string>, movable: Set<string>): HTMLElement {
  const info = layout.piles[pile] ?? { role: "tableau", fan: "right" };
  const cards = cardsOf(view, pile);
  const picked = opts.pending === pile;
  const fan = ["right", "left", "down", "none"].includes(info.fan) ? info.fan : "right";
  const shown = fan === "none" ? cards.slice(-1) : cards;
  const chips = h("span", { class: `cards fan-${fan}` },
    ...shown.map((c, i) => cardChip(c, i === shown.length - 1)));
  if (fan === "none" && cards.length > 1) chips.append(h("span", { class: "count", "aria-hidden": "true" }, `${cards.length}`));
  if (!cards.length) chips.append(h("span", { class: "empty", "aria-hidden": "true" }, "\u00b7"));
  const next = info.role === "foundation" ? nextCard(view, info, pile) : null;
  const label = h("span", { class: "label", "aria-hidden": "true" }, pileKey(pile),
    next ? h("span", { class: "next" }, ` ${next[0]}`) : null,
    info.note ? h("span", { class: "next" }, ` ${info.note}`) : null);
  const classes = ["pile", `role-${info.role}`];
  if (picked) classes.push("picked");
  if (lit.has(pile)) classes.push("target");
  if (movable.has(pile)) classes.push("movable");
  const attrs = { class: classes.join(" "), "data-pile": pile,
    "aria-label": pileLabel(view, pile, layout, lit.has(pile), picked) };
  if (opts.onPile === null) return h("div", { ...attrs, role: "img" }, label, chips);
  const onPile = opts.onPile;
  return h("button", { ...attrs, type: "button", "aria-pressed": picked ? "true" : "false",
    onclick: () => onPile(pile) }, label, chips);
}

export function drawBoard(view: Dict, rawLayout: unknown, opts: BoardOptions): HTMLElement {
  const layout = checkedLayout(rawLayout, view);
  const lit = targets(view, opts.pending);
  const movable = sources(view);
  const board = h("section", { class: `board${layout.gap ? "" : " tight"}`, "aria-label": "your cards",
    "data-legal": legalMoves(view).join(" "), "data-v": String(view.v ?? "") });
  for (const row of layout.rows) {
    const el = h("div", { class: "row", style: `--cells:${Math.max(1, row.length)}` });
    for (const cell of row) {
      el.append(h("div", { class: "cell" }, ...cell.map((p) => drawPile(view, p, layout, opts, lit, movable))));
    }
    board.append(el);
  }
  // the stock and the waste: a line of their own
  const piles = obj(view.piles) ?? {};
  const stockCount = int(view.stock_count) ?? 0;
  const line = h("div", { class: "row stockline" });
  const legal = legalMoves(view);
  if ("w" in piles || stockCount > 0 || legal.includes("draw") || legal.includes("deal")) {
    const action = drawAction(view);
    const passes = int(view.passes_left);
    const stockLabel = `stock: ${stockCount} card${stockCount === 1 ? "" : "s"}` +
      (passes !== null ? `, ${passes} redeal${passes === 1 ? "" : "s"} left` : "");
    const stockAttrs = { class: `pile stock${legal.includes(action) ? " movable" : ""}`, "data-pile": "s",
      "aria-label": `${stockLabel}${opts.onPile ? `; space: ${action}` : ""}` };
    const stockBody = [h("span", { class: "label", "aria-hidden": "true" }, "stock"),
      h("span", { class: "cards", "aria-hidden": "true" }, h("span", { class: "card back" }, String(stockCount)))];
    const onPile = opts.onPile;
    line.append(onPile
      ? h("button", { ...stockAttrs, type: "button", onclick: () => onPile("s") }, ...stockBody)
      : h("div", { ...stockAttrs, role: "img" }, ...stockBody));
    if ("w" in piles) line.append(drawPile(view, "w", layout, opts, lit, movable));
  }
  if (line.childElementCount) board.append(line);
  return board;
}
