// Cards as the player reads them: `10♦` on the board and "10 of diamonds" for a
// screen reader. Colour is never the only cue: every card carries its suit's symbol.
export const RANKS = "A23456789TJQK";
const SUITS: Record<string, { glyph: string; name: string; red: boolean }> = {
  C: { glyph: "\u2663", name: "clubs", red: false },
  D: { glyph: "\u2666", name: "diamonds", red: true },
  H: { glyph: "\u2665", name: "hearts", red: true },
  S: { glyph: "\u2660", name: "spades", red: false },
};
const RANK_NAMES: Record<string, string> = { A: "ace", T: "10", J: "jack", Q: "queen", K: "king" };

function parts(text: string): [string, string] | null {
  const t = text.trim().toUpperCase();
  if (t.length === 2 && RANKS.includes(t[0]!) && t[1]! in SUITS) return [t[0]!, t[1]!];
  return null;
}

export function face(text: string): string {
  const p = parts(text);
  if (!p) return text;
  return (p[0] === "T" ? "10" : p[0]) + SUITS[p[1]]!.glyph;
}

export function spoken(text: string): string {
  const p = parts(text);
  if (!p) return text;
  return `${RANK_NAMES[p[0]] ?? p[0]} of ${SUITS[p[1]]!.name}`;
}

export function isRed(text: string): boolean {
  const p = parts(text);
  return p !== null && SUITS[p[1]]!.red;
}

export function rankFace(rank: string, suit: string): string {
  return (rank === "T" ? "10" : rank) + (SUITS[suit]?.glyph ?? "");
}

export function rankSpoken(rank: string, suit: string): string {
  return (RANK_NAMES[rank] ?? rank) + (SUITS[suit] ? ` of ${SUITS[suit]!.name}` : "");
}

/** Cards named in server text (`4H`, `TD`) in the form the board shows them. */
export function glyphText(text: string): string {
  return text.replace(/(?<![A-Za-z0-9])(10|[A2-9TJQK])([CSHD])(?![A-Za-z0-9])/g,
    (_m, rank: string, suit: string) => rankFace(rank === "10" ? "T" : rank, suit));
}
