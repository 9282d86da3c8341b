"""One player's board: cards, piles and each variant's layout (pure).

Boards follow each variant's real layout, picked from the pile names the view
carries: the cross (corner foundations f1 clubs upper-left, f2 spades
upper-right, f3 hearts lower-left, f4 diamonds lower-right; t1 top, t2 left,
t3 centre, t4 right, t5 bottom), Simplicity's two rows of six, Corner Stones'
two columns (t1..t6 left, t7..t12 right, top to bottom) with the Ace (f1..f4)
and King (f5..f8) foundations between them, Betsy Ross' indicators i1..i4 above
its foundations f1..f4.

Every face-up card is drawn: a pile longer than its cell goes on over more
lines rather than hiding its lower cards, and a pile's top card (the one that
moves) is underlined. Piles fan towards their top: left to right, except
Corner Stones' right-hand column, whose tops face the foundations in the
middle. Foundations say which card they take next, so nobody has to count
Betsy Ross' steps of 1 to 4 in their head. Cells grow with the terminal.
"""

from __future__ import annotations

import re
from typing import Any, Final

from .keys import UI, pile_key, targets
from .text import Fragment, Out, clean, pad, width_of

__all__ = ["RANKS", "Board", "card", "draw_board", "face", "glyph_cards", "layout_of", "next_card"]

RANKS: Final = "A23456789TJQK"
SUITS: Final = {"C": ("\u2663", False), "S": ("\u2660", False), "H": ("\u2665", True), "D": ("\u2666", True)}
CROSS_SUITS: Final = "CSHD"  # the cross's and Simplicity's foundations f1..f4
_CARD_IN_TEXT: Final = re.compile(r"(?<![A-Za-z0-9])(10|[A2-9TJQK])([CSHD])(?![A-Za-z0-9])")


def face(rank: str, suit: str = "", ascii_only: bool = False) -> str:
    """A rank (and suit) as the player reads them: ``10♦``, or ``TD`` with ``--ascii``."""
    if ascii_only:
        return rank + suit
    return ("10" if rank == "T" else rank) + (SUITS[suit][0] if suit in SUITS else suit)


def card(text: object, ascii_only: bool = False, top: bool = False) -> Fragment:
    """A card as a 3-cell fragment: `` 9♥`` / ``10♠`` (``--ascii``: `` 9H`` / `` TS``)."""
    t = clean(text, 3)
    mark = " class:top" if top else ""
    if len(t) == 2 and t[0].upper() in RANKS and t[1].upper() in SUITS:
        rank, suit = t[0].upper(), t[1].upper()
        style = "class:card.red" if SUITS[suit][1] else "class:card.black"
        return (style + mark, face(rank, suit, ascii_only).rjust(3))
    return ("class:card" + mark, t.rjust(3))


def glyph_cards(text: str, ascii_only: bool) -> str:
    """Cards named in server text (``4H``, ``TD``) in the form the board shows them."""
    if ascii_only:
        return text
    return _CARD_IN_TEXT.sub(lambda m: face("T" if m[1] == "10" else m[1], m[2]), text)


def _cards(view: dict[str, Any], pile: str) -> list[Any]:
    piles = view.get("piles")
    cards = piles.get(pile) if isinstance(piles, dict) else None
    return cards if isinstance(cards, list) else []


def _rank(text: Any) -> int | None:
    if isinstance(text, str) and text and text[0].upper() in RANKS:
        return RANKS.index(text[0].upper()) + 1
    return None


def layout_of(view: dict[str, Any]) -> str:
    """The board layout for a view, from its piles: cross, simplicity, corner-stones or betsy-ross."""
    piles = view.get("piles")
    names = set(piles) if isinstance(piles, dict) else set()
    if "i1" in names:
        return "betsy-ross"
    if "f8" in names or "phase" in view:
        return "corner-stones"
    if "t12" in names or "t6" in names:
        return "simplicity"
    return "cross"


def next_card(view: dict[str, Any], pile: str, ascii_only: bool = False) -> str | None:
    """The card a foundation takes next (``J♣``, ``3``), ``done`` when full, None when unknown."""
    cards, layout = _cards(view, pile), layout_of(view)
    top = _rank(cards[-1]) if cards else None
    if layout == "betsy-ross" and pile[1:].isdigit():
        step = int(pile[1:])  # foundation i builds by i from rank 2i, regardless of suit
        if len(cards) >= 12:
            return "done"
        rank = 2 * step if top is None else (top - 1 + step) % 13 + 1
        return face(RANKS[rank - 1], "", ascii_only)
    if layout in ("cross", "simplicity") and pile in ("f1", "f2", "f3", "f4"):
        suit = CROSS_SUITS[int(pile[1]) - 1]
        if len(cards) >= 13:
            return "done"
        if top is None:
            base = _rank(view.get("base_rank"))
            return face(RANKS[base - 1], suit, ascii_only) if base else None
        return face(RANKS[top % 13], suit, ascii_only)
    return None


class Board:
    """Drawing one view: highlights, selection, glyphs."""

    def __init__(self, view: dict[str, Any], ui: UI, ascii_only: bool) -> None:
        self.view = view
        self.ascii = ascii_only
        self.targets = targets(ui, view)
        self.pending = ui.pending
        self.must_fill = view.get("must_fill")
        self.next_deal = view.get("next_deal_pile")

    def cards(self, pile: str) -> list[Any]:
        return _cards(self.view, pile)

    def label(self, pile: str) -> Fragment:
        text = f"[{pile_key(pile)}]"
        if pile == self.pending:
            return ("class:selected", text)
        if pile in self.targets:
            return ("class:target", text)
        if pile == self.must_fill:
            return ("class:mustfill", text)
        if pile == self.next_deal:
            return ("class:next", text)
        return ("class:label", text)

    def empty(self) -> list[Fragment]:
        return [("", " "), ("class:empty", " --" if self.ascii else " \u00b7\u00b7")]

    def fan(self, pile: str, per_line: int, reverse: bool = False) -> list[list[Fragment]]:
        """Every card of the pile, ``per_line`` to a line, bottom to top (top first if ``reverse``)."""
        cards = self.cards(pile)
        if not cards:
            return [self.empty()]
        frags = [card(c, self.ascii, top=i == len(cards) - 1) for i, c in enumerate(cards)]
        if reverse:
            frags.reverse()
        per_line = max(per_line, 1)
        return [[x for f in frags[i:i + per_line] for x in (("", " "), f)]
                for i in range(0, len(frags), per_line)]

    def top(self, pile: str, count: bool = True) -> list[Fragment]:
        cards = self.cards(pile)
        if not cards:
            return self.empty()
        out: list[Fragment] = [("", " "), card(cards[-1], self.ascii)]
        if count and len(cards) > 1:
            out.append(("class:dim", f" x{len(cards)}" if self.ascii else f" \u00d7{len(cards)}"))
        return out

    def foundation(self, pile: str, count: bool = True) -> list[Fragment]:
        """A foundation: its label, top card, size and the card it takes next."""
        out = [self.label(pile), *self.top(pile, count)]
        nxt = next_card(self.view, pile, self.ascii)
        if nxt is not None:
            out.append(("class:dim", " full" if nxt == "done" else f" next {nxt}"))
        return out

    def cell(self, pile: str, width: int) -> list[list[Fragment]]:
        """A pile in a cell ``width`` cells wide: one line, or more for a long tableau pile."""
        if not pile.startswith("t"):
            return [pad(self.foundation(pile), width)]
        label = self.label(pile)
        lines = self.fan(pile, (width - width_of(label[1]) - 1) // 4)
        indent = ("", " " * width_of(label[1]))
        return [pad([label if i == 0 else indent, *line], width) for i, line in enumerate(lines)]


def _rows(cells: list[list[list[Fragment]]]) -> list[list[Fragment]]:
    """Cells side by side, each as tall as it needs (shorter ones padded to their width)."""
    height = max(len(c) for c in cells)
    out = []
    for i in range(height):
        line: list[Fragment] = [("", " ")]
        for c in cells:
            width = sum(width_of(t) for _, t in c[0])
            line += c[i] if i < len(c) else [("", " " * width)]
        out.append(line)
    return out


def _board_cross(b: Board, out: Out, room: int | None) -> None:
    cell_w = max((out.width - 2) // 3, 18)
    for row in (("f1", "t1", "f2"), ("t2", "t3", "t4"), ("f3", "t5", "f4")):
        for line in _rows([b.cell(p, cell_w) for p in row]):
            out.add(line)
        out.text()


def _board_simplicity(b: Board, out: Out, room: int | None) -> None:
    cell_w = max((out.width - 2) // 4, 16)
    out.add(_rows([[pad(b.foundation(p), cell_w)] for p in ("f1", "f2", "f3", "f4")])[0])
    out.text()
    depth = max(len(b.cards(f"t{k}")) for k in range(1, 13)) or 1
    col_w = max((out.width - 2) // 6, 5)
    if room is not None and 2 * (depth + 2) + 2 > room:  # too tall as columns: piles as rows instead
        _two_columns(b, out, [f"t{k}" for k in range(1, 7)], [f"t{k}" for k in range(7, 13)], None)
        return
    for row in (range(1, 7), range(7, 13)):
        piles = [f"t{k}" for k in row]
        out.add([("", " ")] + [x for p in piles for x in pad([b.label(p)], col_w)])
        columns = [[card(c, b.ascii, top=i == len(b.cards(p)) - 1) for i, c in enumerate(b.cards(p))]
                   or b.empty()[1:] for p in piles]
        for i in range(max(len(c) for c in columns)):
            frags: list[Fragment] = [("", " ")]
            for col in columns:
                frags += pad([col[i]] if i < len(col) else [], col_w)
            out.add(frags)
        out.text()


def _two_columns(b: Board, out: Out, left: list[str], right: list[str],
                 centre: dict[int, list[Fragment]] | None) -> None:
    """Piles as rows in two columns, tops facing the middle (Corner Stones' layout)."""
    mid_w = 20 if centre else 2
    side_w = max((out.width - 1 - mid_w) // 2, 16)
    per_line = (side_w - 5) // 4
    for r, (lp, rp) in enumerate(zip(left, right, strict=True)):
        lfan, rfan = b.fan(lp, per_line), b.fan(rp, per_line, reverse=True)
        for i in range(max(len(lfan), len(rfan))):
            lhs = [b.label(lp) if i == 0 else ("", " " * width_of(b.label(lp)[1])), *lfan[i]] \
                if i < len(lfan) else []
            rhs = [*rfan[i], ("", " "), b.label(rp) if i == 0 else ("", " " * width_of(b.label(rp)[1]))] \
                if i < len(rfan) else []
            mid = (centre or {}).get(r, []) if i == 0 else []
            out.add([("", " "), *pad(lhs, side_w), *pad(mid, mid_w), *pad(rhs, side_w, right=True)])
    out.text()


def _board_corner_stones(b: Board, out: Out, room: int | None) -> None:
    centre = {}
    for r in range(1, 5):
        ace, king = f"f{r}", f"f{r + 4}"
        centre[r] = [("", "  "), b.label(ace), *b.top(ace, count=False),
                     ("", "  "), b.label(king), *b.top(king, count=False)]
    _two_columns(b, out, [f"t{k}" for k in range(1, 7)], [f"t{k}" for k in range(7, 13)], centre)


def _board_betsy_ross(b: Board, out: Out, room: int | None) -> None:
    cells = [b.foundation(f"f{k}") for k in range(1, 5)]
    cell_w = max(max(sum(width_of(t) for _, t in c) for c in cells) + 2, min((out.width - 2) // 4, 24))
    steps = [pad([("class:dim", f" i{k} "), *b.top(f"i{k}", count=False), ("class:dim", f" +{k}")], cell_w)
             for k in range(1, 5)]
    out.add([("", " "), *[x for c in steps for x in c]])
    out.add([("", " "), *[x for c in cells for x in pad(c, cell_w)]])
    out.text()


_BOARDS: Final = {
    "cross": _board_cross,
    "simplicity": _board_simplicity,
    "corner-stones": _board_corner_stones,
    "betsy-ross": _board_betsy_ross,
}


def draw_board(b: Board, out: Out, room: int | None = None) -> None:
    """The board for ``out.width`` (``room``: lines it may take, when the terminal says)."""
    _BOARDS[layout_of(b.view)](b, out, room)
    out.add(_stock_line(b))
    phase = _phase_line(b)
    if phase:
        out.add(phase)


def _stock_line(b: Board) -> list[Fragment]:
    view = b.view
    frags: list[Fragment] = [("", " ")]
    stock = view.get("stock_count", 0)
    if view.get("phase") is None:  # the stock's top card is a source (s-t3) except in Corner Stones
        frags += [b.label("s"), ("", " ")]
    frags.append(("", f"stock {clean(stock)}"))
    if b.view.get("phase") is None or b.cards("w"):
        waste = b.cards("w")
        frags += [("", "   "), b.label("w"), ("", " waste")]
        frags += b.top("w", count=False)
        frags.append(("class:dim", f" ({clean(view.get('waste_count', len(waste)))})"))
    redeals = view.get("passes_left")  # redeals still allowed (the view's name for them)
    if isinstance(redeals, int) and view.get("phase") is None:
        frags.append(("", f"   redeals left {redeals}" if redeals > 0 else "   no redeal left"))
    base = view.get("base_rank")
    if isinstance(base, str) and base[:1].upper() in RANKS:
        frags.append(("", f"   base {face(base[0].upper(), '', b.ascii)}"))
    return frags


def _phase_line(b: Board) -> list[Fragment] | None:
    view = b.view
    if view.get("phase") == "deal":
        nxt = view.get("next_deal_pile")
        frags: list[Fragment] = [("", " dealing: next card to ")]
        if isinstance(nxt, str):
            frags.append(b.label(clean(nxt, 4)))
        frags.append(("class:dim", "   (space deals one, n a round, N all)"))
        return frags
    if view.get("phase") == "play":
        return [("class:dim", " the deal is done: build up or down, any suit")]
    if b.must_fill:
        return [("class:mustfill", f" fill the space at {clean(b.must_fill, 4)} first")]
    return None
