// A finished room's post-game analysis (the server's `analysis` answer) under the
// results: one sentence a player, the player's own first with the start of its
// winning line, where the paths parted and who stayed on a winning line longest.
// The same sentences as the terminal client's (client/analysis.py).
import type { App } from "./app";
import { glyphText } from "./cards";
import { h } from "./dom";
import type { Dict } from "./state";
import { int, list, obj, str } from "./wire";

const LINE_MOVES = 12;

function plural(n: number, word: string, many = word + "s"): string {
  return `${n} ${n === 1 ? word : many}`;
}

export function gameLine(game: Dict, budget: number | null): string {
  const result = game.result;
  if (result === "won") return "won: no move lost it";
  if (result === "lost_at") {
    return `winnable until after entry ${int(game.index)}; ${str(game.move) ?? "?"} ` +
      `(entry ${int(game.losing_entry)}) lost it, proved`;
  }
  if (result === "deal_lost") return "no line of play wins this deal: no move lost it (proved)";
  if (result === "winnable_at_end") return "still winnable when the game ended";
  const nodes = int(game.nodes);
  const where: string[] = [];
  if (int(game.winnable_through) !== null) where.push(`winnable through entry ${int(game.winnable_through)}`);
  if (int(game.lost_from) !== null) where.push(`lost from entry ${int(game.lost_from)}`);
  return `undecided ${nodes !== null ? `after ${nodes.toLocaleString("en")} positions` : "in the time it had"}` +
    (budget ? ` (budget ${budget.toLocaleString("en")} a game)` : "") + (where.length ? ": " + where.join(", ") : "");
}

export function analysisLines(msg: Dict, me: number | null, name: (n: number) => string): string[] {
  const games = list(msg.players).map(obj).filter((g): g is Dict => g !== null);
  games.sort((a, b) => Number(a.player !== me) - Number(b.player !== me));
  const solo = games.length === 1;
  const budget = int(msg.budget);
  const out: string[] = [];
  for (const game of games) {
    const n = int(game.player) ?? 0;
    out.push((solo ? "" : `${name(n)}${n === me ? " (you)" : ""}: `) + gameLine(game, solo ? budget : null));
    const line = list(game.line).map((m) => String(m));
    if (line.length && (solo || n === me)) {
      out.push("a winning line from there: " + line.slice(0, LINE_MOVES).join(" ") +
        (line.length > LINE_MOVES ? ` … (${line.length} moves)` : ""));
    }
  }
  const longest = list(msg.longest).map((n) => int(n)).filter((n): n is number => n !== null);
  if (longest.length) {
    const top = games.find((g) => g.player === longest[0]);
    out.push(`longest on a winning line: ${longest.map(name).join(", ")} (${plural(int(top?.on_line) ?? 0, "move")})`);
  }
  const parts: string[] = [];
  for (const pair of list(msg.parted).map(obj)) {
    if (!pair) continue;
    const a = int(pair.a), b = int(pair.b), after = int(pair.after) ?? 0;
    if (me === a || me === b || games.length === 2) parts.push(`${name((a === me ? b : a) ?? 0)}'s after ${after}`);
  }
  if (parts.length) out.push(`${games.some((g) => g.player === me) ? "your path" : "the paths"} parted from ` +
    parts.join(", ") + " entries");
  return out;
}

export function analysisBlock(app: App): HTMLElement | null {
  const s = app.state;
  const found = s.analysis;
  if (!found || found.code !== s.code) return null;
  const lines = analysisLines(found, s.me, (n) => s.playerName(n));
  return h("section", { class: "analysis", "aria-label": "where it was lost" },
    h("h3", {}, "Where it was lost"), h("ul", {}, ...lines.map((t) => h("li", {}, glyphText(t)))));
}
