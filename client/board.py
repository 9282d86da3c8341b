"""One player's board, drawn from the layout the server sends (pure).

The ``room`` message carries the variant's layout: rows of cells, each cell the
piles it holds, and for each pile its role and how it fans (docs/reference/protocol.md,
"Layouts"). The board knows no variant by name, so a variant the client has
never heard of is drawn as well as any other. A server that sends no layout
gets a plain board made from the pile names.

Every face-up card is drawn: a pile longer than its cell goes on over more
lines rather than hiding its lower cards, and a pile's top card (the one that
moves) is underlined. Piles fan towards their top: to the right, to the left
(a right-hand column facing the middle) or down in columns. Foundations say
which card they take next when the layout tells how they build, so nobody has
to count Betsy Ross' steps of 1 to 4 in their head. Cells grow with the terminal.
"""

from __future__ import annotations

import re
from typing import Any, Final

from .keys import pile_key, targets
from .text import Fragment, Out, clean, pad, width_of
from .ui import UI

__all__ = ["RANKS", "Board", "card", "checked_layout", "draw_board", "face", "glyph_cards",
           "next_card"]

RANKS: Final = "A23456789TJQK"
SUITS: Final = {"C": ("\u2663", False), "S": ("\u2660", False), "H": ("\u2665", True), "D": ("\u2666", True)}
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


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _num(value: Any, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def fallback_layout(view: dict[str, Any]) -> dict[str, Any]:
    """A board from the pile names alone, for a server that sends no layout:
    indicators, then foundations, then the tableau in rows of six."""
    names = [p for p in (view.get("piles") or {}) if isinstance(p, str) and p not in ("s", "w")]
    rows: list[list[list[str]]] = []
    for prefix, width in (("i", 4), ("f", 4), ("t", 6)):
        group = [p for p in names if p[:1] == prefix]
        rows += [[[p] for p in group[i:i + width]] for i in range(0, len(group), width)]
    piles = {p: {"role": {"f": "foundation", "i": "indicator"}.get(p[:1], "tableau"),
                 "fan": "none" if p[:1] in "fi" else "right"} for p in names}
    return {"rows": rows, "piles": piles}


def checked_layout(layout: Any, view: dict[str, Any]) -> dict[str, Any]:
    """The server's layout when it is well formed, else one made from the pile names.
    Piles of the view that the layout does not place are not lost: they go below."""
    if not isinstance(layout, dict) or not isinstance(layout.get("rows"), list) \
            or not isinstance(layout.get("piles"), dict):
        return fallback_layout(view)
    rows: list[list[list[str]]] = []
    placed: set[str] = set()
    for row in layout["rows"]:
        if isinstance(row, list):
            cells = [[p for p in cell if isinstance(p, str)] if isinstance(cell, list) else []
                     for cell in row]
            placed.update(p for cell in cells for p in cell)
            if cells:
                rows.append(cells)
    piles = {k: v for k, v in layout["piles"].items() if isinstance(k, str) and isinstance(v, dict)}
    missing = {"piles": {p: v for p, v in fallback_layout(view)["piles"].items() if p not in placed}}
    extra = [[p] for p in missing["piles"]]
    return {"rows": rows + [extra[i:i + 6] for i in range(0, len(extra), 6)],
            "piles": {**missing["piles"], **piles}, "gap": layout.get("gap", True) is not False}


def next_card(view: dict[str, Any], info: dict[str, Any], pile: str, ascii_only: bool = False) -> str | None:
    """The card a foundation takes next (``J\u2663``, ``3``), ``done`` when full, None when the
    layout gives no hint. ``info``: the layout's entry for the pile (suit, step, size, start)."""
    step = info.get("step")
    if not isinstance(step, int) or isinstance(step, bool):
        return None
    cards = _cards(view, pile)
    suit = _str(info.get("suit")) or ""
    suit = suit if suit in SUITS else ""
    if len(cards) >= _num(info.get("size"), 13):
        return "done"
    top = _rank(cards[-1]) if cards else None
    if top is None:
        start = _rank(info.get("start")) or _rank(view.get("base_rank"))
        return face(RANKS[start - 1], suit, ascii_only) if start else None
    return face(RANKS[(top - 1 + step) % 13], suit, ascii_only)


class Board:
    """Drawing one view: highlights, selection, glyphs."""

    def __init__(self, view: dict[str, Any], ui: UI, ascii_only: bool, layout: Any = None) -> None:
        self.view = view
        self.layout = checked_layout(layout, view)
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

    def info(self, pile: str) -> dict[str, Any]:
        """The layout's entry for a pile: role, fan, foundation hints."""
        entry = self.layout["piles"].get(pile)
        return entry if isinstance(entry, dict) else {}

    def fan_of(self, pile: str) -> str:
        fan = self.info(pile).get("fan")
        return fan if fan in ("right", "left", "down", "none") else "right"

    def foundation(self, pile: str, count: bool = True) -> list[Fragment]:
        """A pile shown by its top card: label, top card, size and, for a foundation,
        the card it takes next; an indicator is a dead card with a note under its name."""
        info = self.info(pile)
        if info.get("role") == "indicator":
            note = _str(info.get("note"))
            return [("class:dim", f" {clean(pile, 4)} "), *self.top(pile, count=False),
                    *([("class:dim", " " + clean(note, 8))] if note else [])]
        out = [self.label(pile), *self.top(pile, count)]
        nxt = next_card(self.view, info, pile, self.ascii)
        if nxt is not None:
            out.append(("class:dim", " full" if nxt == "done" else f" next {nxt}"))
        return out

    def cell(self, pile: str, width: int) -> list[list[Fragment]]:
        """A pile in a cell ``width`` cells wide: one line, or more for a long pile.
        A pile fanned left has its label on the right and its top card first."""
        fan = self.fan_of(pile)
        if fan == "none":
            return [pad(self.foundation(pile), width)]
        label = self.label(pile)
        indent = ("", " " * width_of(label[1]))
        lines = self.fan(pile, (width - width_of(label[1]) - 1) // 4, reverse=fan == "left")
        if fan == "left":
            # a space after the label keeps it off the next cell's
            return [[*pad([*line, ("", " "), label if i == 0 else indent], width - 1, right=True), ("", " ")]
                    for i, line in enumerate(lines)]
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


def _two_columns(b: Board, out: Out, left: list[str], right: list[str],
                 centre: dict[int, list[Fragment]] | None) -> None:
    """Piles as rows in two columns, tops facing the middle."""
    mid_w = 20 if centre else 2
    side_w = max((out.width - 1 - mid_w) // 2, 16)
    per_line = (side_w - 5) // 4
    for r, (lp, rp) in enumerate(zip(left, right, strict=True)):
        lfan, rfan = b.fan(lp, per_line), b.fan(rp, per_line, reverse=True) if rp else []
        for i in range(max(len(lfan), len(rfan))):
            lhs = [b.label(lp) if i == 0 else ("", " " * width_of(b.label(lp)[1])), *lfan[i]] \
                if i < len(lfan) else []
            rhs = [*rfan[i], ("", " "), b.label(rp) if i == 0 else ("", " " * width_of(b.label(rp)[1]))] \
                if i < len(rfan) else []
            mid = (centre or {}).get(r, []) if i == 0 else []
            out.add([("", " "), *pad(lhs, side_w), *pad(mid, mid_w), *pad(rhs, side_w, right=True)])
    out.text()


def _compact(b: Board, cell: list[str]) -> bool:
    return all(b.fan_of(p) == "none" for p in cell)


def _cell_content(b: Board, cell: list[str]) -> list[Fragment]:
    """A cell of piles shown by their top cards; two or more share it without counts."""
    if len(cell) == 1:
        return b.foundation(cell[0])
    out: list[Fragment] = []
    for i, p in enumerate(cell):
        out += [("", "  ")] if i else []
        out += [b.label(p), *b.top(p, count=False)]
    return out


def _widths(b: Board, rows: list[list[list[str]]], width: int) -> list[int]:
    """Column widths for rows of the same number of cells. A column of top-card piles
    (or blanks) is as wide as it needs; the others share what is left."""
    n = len(rows[0])
    compact = [all(_compact(b, row[j]) for row in rows) for j in range(n)]
    need = [max((sum(width_of(t) for _, t in _cell_content(b, row[j])) + 2 for row in rows if row[j]),
                default=2) for j in range(n)]
    if all(compact):
        return [max(need[j], min((width - 2) // n, 24)) for j in range(n)]
    used = sum(need[j] for j in range(n) if compact[j])
    flex = max((width - 2 - used) // (n - sum(compact)), 16)
    return [need[j] if compact[j] else flex for j in range(n)]


def _cells_row(b: Board, out: Out, row: list[list[str]], widths: list[int]) -> None:
    cells: list[list[list[Fragment]]] = []
    for cell, w in zip(row, widths, strict=True):
        if not cell:
            cells.append([[("", " " * w)]])
        elif len(cell) > 1 or _compact(b, cell):
            content = _cell_content(b, cell)
            cells.append([pad([("", "  "), *content] if len(cell) > 1 else content, w)])
        else:
            cells.append(b.cell(cell[0], w))
    for line in _rows(cells):
        out.add(line)


def _columns(b: Board, out: Out, band: list[list[list[str]]], room: int | None) -> None:
    """Rows of piles fanned down: each pile a column under its label. When the band
    would not fit the terminal, its piles lie down in two columns of rows instead."""
    piles = [p for row in band for cell in row for p in cell]
    depth = max((len(b.cards(p)) for p in piles), default=1) or 1
    if room is not None and len(band) * (depth + 2) + 2 > room:
        half = (len(piles) + 1) // 2
        _two_columns(b, out, piles[:half], piles[half:] + [""] * (2 * half - len(piles)), None)
        return
    col_w = max((out.width - 2) // max(len(row) for row in band), 5)
    for row in band:
        names = [cell[0] if cell else "" for cell in row]
        out.add([("", " ")] + [x for p in names for x in pad([b.label(p)] if p else [], col_w)])
        columns = [[card(c, b.ascii, top=i == len(b.cards(p)) - 1) for i, c in enumerate(b.cards(p))]
                   or (b.empty()[1:] if p else []) for p in names]
        for i in range(max(len(c) for c in columns)):
            frags: list[Fragment] = [("", " ")]
            for col in columns:
                frags += pad([col[i]] if i < len(col) else [], col_w)
            out.add(frags)
        out.text()


def draw_grid(b: Board, out: Out, room: int | None) -> None:
    """The layout's rows top to bottom; rows of columns (fan down) are drawn as a band."""
    rows: list[list[list[str]]] = b.layout["rows"]
    gap = b.layout.get("gap", True)
    groups: dict[int, list[list[list[str]]]] = {}
    for row in rows:
        groups.setdefault(len(row), []).append(row)
    i = 0
    while i < len(rows):
        row = rows[i]
        if all(b.fan_of(p) == "down" for cell in row for p in cell) and any(row):
            band = [row]
            while i + len(band) < len(rows) and all(b.fan_of(p) == "down" for cell in rows[i + len(band)]
                                                    for p in cell):
                band.append(rows[i + len(band)])
            _columns(b, out, band, room)
            i += len(band)
            continue
        same = [r for r in groups[len(row)] if not all(b.fan_of(p) == "down" for c in r for p in c)]
        _cells_row(b, out, row, _widths(b, same, out.width))
        i += 1
        nxt_down = i < len(rows) and all(b.fan_of(p) == "down" for cell in rows[i] for p in cell)
        if gap or i == len(rows) or nxt_down:
            out.text()


def draw_board(b: Board, out: Out, room: int | None = None) -> None:
    """The board for ``out.width`` (``room``: lines it may take, when the terminal says)."""
    draw_grid(b, out, room)
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
