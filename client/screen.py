"""State -> screen model: the lines to draw, as (style, text) fragments (pure).

Nothing here touches a terminal; the app draws the model, and only when it
differs from the last one. Every text that came from the server (names, error
messages, codes, card texts) goes through :func:`clean` first, so no server
can move the cursor, retitle the window or spoof a line with escape codes.

Boards follow each variant's real layout, picked from the pile names the view
carries: the cross (corner foundations f1 clubs upper-left, f2 spades
upper-right, f3 hearts lower-left, f4 diamonds lower-right; t1 top, t2 left,
t3 centre, t4 right, t5 bottom), Simplicity's two rows of six, Corner Stones'
two columns (t1..t6 left, t7..t12 right, top to bottom) with the Ace (f1..f4)
and King (f5..f8) foundations between them, Betsy Ross' indicators i1..i4 above
its foundations f1..f4.

The lobby's other screens: today's challenge of a variant (day number, the
commitment's prefix, whether an attempt would be ranked, and yesterday's
reveal checked here by recomputing SHA-256(deal|salt)), the board menu and a
board page, and on the results of a daily the share line and streaks; races
between claimed names show each rating's change.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any, Final

from wcwidth import wcwidth

from .keys import BOARD_ITEMS, LOBBY_ITEMS, UI, pile_key, targets
from .state import BOARD_PAGE, RaceState, is_daily, mode, players_of, reveal_check
from .variants import VARIANTS, variant_name

__all__ = [
    "Fragment",
    "Line",
    "Screen",
    "card",
    "clean",
    "layout_of",
    "render",
    "text_lines",
    "width_of",
]

Fragment = tuple[str, str]
Line = tuple[Fragment, ...]
Screen = tuple[Line, ...]

RANKS: Final = "A23456789TJQK"
SUITS: Final = {"C": ("\u2663", False), "S": ("\u2660", False), "H": ("\u2665", True), "D": ("\u2666", True)}
STATUS_TEXT: Final = {
    "in_progress": "racing",
    "won": "won",
    "dead": "stuck",
    "resigned": "resigned",
    "disconnected": "disconnected",
    "left": "left",
    "timed_out": "out of time",
    "frozen": "frozen (server check failed)",
}

# CSI, OSC, DCS/SOS/PM/APC strings, two-byte escapes and 8-bit CSI: removed whole.
_ESCAPES: Final = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]?"
    r"|\x1b\][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
    r"|\x1b[PX^_][^\x1b\x9c]*(?:\x1b\\|\x9c)?"
    r"|\x1b[ -/]*[0-~]?"
    r"|\x9b[0-?]*[ -/]*[@-~]?"
)
_DROP_CATEGORIES: Final = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


# -- text helpers --------------------------------------------------------------------
def clean(value: object, limit: int | None = None) -> str:
    """Server text made safe to draw: no escape sequences, control or format characters.

    ``limit`` cuts the result to that many terminal cells (with an ellipsis).
    """
    text = value if isinstance(value, str) else str(value)
    text = _ESCAPES.sub("", unicodedata.normalize("NFC", text))
    text = "".join(
        " " if ch in "\t\n\r" else ch
        for ch in text
        if ch in "\t\n\r" or unicodedata.category(ch) not in _DROP_CATEGORIES
    )
    if limit is not None and width_of(text) > limit:
        out, used = [], 0
        for ch in text:
            w = max(wcwidth(ch), 0)
            if used + w > limit - 1:
                break
            out.append(ch)
            used += w
        text = "".join(out) + "\u2026"
    return text


def width_of(text: str) -> int:
    return sum(max(wcwidth(ch), 0) for ch in text)


def _pad(frags: list[Fragment], width: int, right: bool = False) -> list[Fragment]:
    used = sum(width_of(t) for _, t in frags)
    fill = ("", " " * max(width - used, 0))
    return [fill, *frags] if right else [*frags, fill]


def text_lines(screen: Screen) -> list[str]:
    """The screen as plain text lines (for tests and logs)."""
    return ["".join(text for _, text in line) for line in screen]


class _Out:
    def __init__(self) -> None:
        self.lines: list[Line] = []

    def add(self, *frags: Fragment | list[Fragment]) -> None:
        line: list[Fragment] = []
        for f in frags:
            if isinstance(f, list):
                line.extend(f)
            else:
                line.append(f)
        self.lines.append(tuple(x for x in line if x[1]))

    def text(self, text: str = "", style: str = "") -> None:
        self.add((style, text))

    def screen(self) -> Screen:
        return tuple(self.lines)


# -- cards and piles --------------------------------------------------------------------
def card(text: object, ascii_only: bool = False) -> Fragment:
    """A card as a 3-cell fragment: `` 9♥`` / ``10♠`` (``--ascii``: `` 9H`` / `` TS``)."""
    t = clean(text, 3)
    if len(t) == 2 and t[0].upper() in RANKS and t[1].upper() in SUITS:
        rank, suit = t[0].upper(), t[1].upper()
        glyph, red = SUITS[suit]
        face = (rank if ascii_only or rank != "T" else "10") + (suit if ascii_only else glyph)
        return ("class:card.red" if red else "class:card.black", face.rjust(3))
    return ("class:card", t.rjust(3))


def _cards(view: dict[str, Any], pile: str) -> list[Any]:
    piles = view.get("piles")
    cards = piles.get(pile) if isinstance(piles, dict) else None
    return cards if isinstance(cards, list) else []


def _empty(ascii_only: bool) -> Fragment:
    return ("class:empty", " --" if ascii_only else " \u00b7\u00b7")


class _Board:
    """Shared state for drawing one view: highlights, selection, glyphs."""

    def __init__(self, view: dict[str, Any], ui: UI, ascii_only: bool) -> None:
        self.view = view
        self.ascii = ascii_only
        self.targets = targets(ui, view)
        self.pending = ui.pending
        self.must_fill = view.get("must_fill")
        self.next_deal = view.get("next_deal_pile")

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

    def fan(self, pile: str, room: int, reverse: bool = False) -> list[Fragment]:
        """The pile's cards bottom to top (top to bottom if ``reverse``), the last ``room`` shown."""
        cards = _cards(self.view, pile)
        if not cards:
            return [("", " "), _empty(self.ascii)]
        shown = cards[-room:] if len(cards) > room else cards
        hidden = len(cards) - len(shown)
        frags = [card(c, self.ascii) for c in shown]
        if reverse:
            frags.reverse()
        out: list[Fragment] = []
        for f in frags:
            out += [("", " "), f]
        if hidden:
            more = ("class:dim", f"+{hidden}")
            out = [*out, ("", " "), more] if reverse else [("", " "), more, *out]
        return out

    def top(self, pile: str, count: bool = True) -> list[Fragment]:
        cards = _cards(self.view, pile)
        if not cards:
            return [("", " "), _empty(self.ascii)]
        out: list[Fragment] = [("", " "), card(cards[-1], self.ascii)]
        if count and len(cards) > 1:
            out.append(("class:dim", f" x{len(cards)}" if self.ascii else f" \u00d7{len(cards)}"))
        return out

    def cell(self, pile: str, width: int) -> list[Fragment]:
        if pile.startswith("t"):
            room = max((width - len(pile_key(pile)) - 3) // 4, 1)
            cards = _cards(self.view, pile)
            if len(cards) > room:
                room -= 1  # leave space for the +N marker
            body = self.fan(pile, max(room, 1))
        else:
            body = self.top(pile)
        return _pad([self.label(pile), *body], width)


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


def _board_cross(b: _Board, out: _Out, width: int) -> None:
    cell_w = max(min((width - 2) // 3, 26), 18)
    for row in (("f1", "t1", "f2"), ("t2", "t3", "t4"), ("f3", "t5", "f4")):
        frags: list[Fragment] = [("", " ")]
        for pile in row:
            frags += b.cell(pile, cell_w)
        out.add(frags)
        out.text()


def _foundation_row(b: _Board, piles: list[str]) -> list[Fragment]:
    frags: list[Fragment] = [("", " ")]
    for pile in piles:
        frags += _pad([b.label(pile), *b.top(pile)], 11)
    return frags


def _board_simplicity(b: _Board, out: _Out, width: int) -> None:
    out.add(_foundation_row(b, ["f1", "f2", "f3", "f4"]))
    out.text()
    col_w, depth = 7, 6
    for row in (range(1, 7), range(7, 13)):
        piles = [f"t{k}" for k in row]
        out.add([("", " ")] + [x for p in piles for x in _pad([b.label(p)], col_w)])
        columns: list[list[Fragment]] = []
        for p in piles:
            cards = _cards(b.view, p)
            shown = cards[-(depth - 1):] if len(cards) > depth else cards
            col: list[Fragment] = []
            if len(cards) > len(shown):  # the marker takes the place of one card
                col.append(("class:dim", f"+{len(cards) - len(shown)}".rjust(3)))
            col += [card(c, b.ascii) for c in shown]
            if not cards:
                col.append(_empty(b.ascii))
            columns.append(col)
        for i in range(max(len(c) for c in columns)):
            frags: list[Fragment] = [("", " ")]
            for col in columns:
                frags += _pad([col[i]] if i < len(col) else [], col_w)
            out.add(frags)
        out.text()


def _board_corner_stones(b: _Board, out: _Out, width: int) -> None:
    side_w = 28
    room = (side_w - 4) // 4
    for r in range(6):
        left, right = f"t{r + 1}", f"t{r + 7}"
        n_left, n_right = len(_cards(b.view, left)), len(_cards(b.view, right))
        lfan = b.fan(left, room if n_left <= room else room - 1)
        rfan = b.fan(right, room if n_right <= room else room - 1, reverse=True)
        frags: list[Fragment] = [("", " "), *_pad([b.label(left), *lfan], side_w)]
        if 1 <= r <= 4:
            ace, king = f"f{r}", f"f{r + 4}"
            centre = [("", "  "), b.label(ace), *b.top(ace, count=False),
                      ("", "  "), b.label(king), *b.top(king, count=False)]
        else:
            centre = []
        frags += _pad(centre, 20)
        frags += _pad([*rfan, ("", " "), b.label(right)], side_w - 1, right=True)
        out.add(frags)
    out.text()


def _board_betsy_ross(b: _Board, out: _Out, width: int) -> None:
    frags: list[Fragment] = [("", " ")]
    for k in range(1, 5):
        pile = f"i{k}"
        frags += _pad([("class:dim", f" {pile} "), *b.top(pile, count=False)], 11)
    out.add(frags)
    out.add(_foundation_row(b, ["f1", "f2", "f3", "f4"]))
    out.text()


_BOARDS: Final = {
    "cross": _board_cross,
    "simplicity": _board_simplicity,
    "corner-stones": _board_corner_stones,
    "betsy-ross": _board_betsy_ross,
}


def _stock_line(b: _Board) -> list[Fragment]:
    view = b.view
    frags: list[Fragment] = [("", " ")]
    stock = view.get("stock_count", 0)
    if view.get("phase") is None:  # the stock's top card is a source (s-t3) except in Corner Stones
        frags += [b.label("s"), ("", " ")]
    frags.append(("", f"stock {clean(stock)}"))
    if b.view.get("phase") is None or _cards(view, "w"):
        waste = _cards(view, "w")
        frags += [("", "   "), b.label("w"), ("", " waste")]
        frags += b.top("w", count=False)
        frags.append(("class:dim", f" ({clean(view.get('waste_count', len(waste)))})"))
    passes = view.get("passes_left")
    if isinstance(passes, int) and (passes > 0 or view.get("phase") is None):
        frags.append(("", f"   passes left {passes}"))
    if view.get("base_rank"):
        frags.append(("", f"   base {clean(view['base_rank'], 2)}"))
    return frags


def _phase_line(b: _Board) -> list[Fragment] | None:
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


# -- clocks, progress ---------------------------------------------------------------------
def _mmss(ms: int) -> str:
    s = max(ms, 0) // 1000
    return f"{s // 60:02d}:{s % 60:02d}"


def _bar(done: int, total: int, width: int, ascii_only: bool) -> list[Fragment]:
    filled = 0 if total <= 0 else min(width, max(0, done) * width // total)
    full, empty = ("#", "-") if ascii_only else ("\u2588", "\u2591")
    return [("class:bar.done", full * filled), ("class:bar.todo", empty * (width - filled))]


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _offline(info: dict[str, Any]) -> bool:
    """The server says this player is not connected (``connected`` false or 0)."""
    for key in ("connected", "online"):
        value = info.get(key)
        if value is not None and not value:
            return True
    return False


def _clock(state: RaceState, now: int) -> str:
    room = state.room or {}
    starts, ends = _int(room.get("starts_at")), _int(room.get("ends_at"))
    parts = []
    if starts is not None and now >= starts:
        parts.append(f"{_mmss(now - starts)} elapsed")
    if ends is not None:
        parts.append(f"{_mmss(ends - now)} left")
    return " \u00b7 ".join(parts)


def _progress_rows(state: RaceState, ascii_only: bool) -> list[list[Fragment]]:
    rows: list[list[Fragment]] = []
    seats = {p["player"]: p for p in players_of(state)}
    numbers = sorted(set(seats) | set(state.progress) | ({state.me} if state.me else set()))
    for n in numbers:
        seat = seats.get(n, {})
        info: dict[str, Any] = dict(seat)
        info.update(state.progress.get(n, {}))
        if n == state.me and state.view is not None:
            info.update({k: state.view.get(k) for k in ("foundation_cards", "total_cards", "status")})
            info["moves"] = state.v
        done = _int(info.get("foundation_cards")) or 0
        total = _int(info.get("total_cards")) or _int((state.room or {}).get("total_cards")) or 0
        status = info.get("status")
        if info.get("left"):
            status = "left"
        elif _offline(info):
            status = "disconnected"
        name = clean(seat.get("name", f"player {n}"), 16)
        me = n == state.me
        row: list[Fragment] = [("class:me" if me else "", f"  {name:<16}"[:18])]
        row += [("", " "), *_bar(done, total, 20, ascii_only), ("", f" {done:>3}/{total:<3} ")]
        row.append(("class:dim", STATUS_TEXT.get(str(status), clean(status or "", 14))))
        moves = _int(info.get("moves"))
        if moves is not None:
            row.append(("class:dim", f"  {moves} moves"))
        if me:
            row.append(("class:me", "  (you)"))
        rows.append(row)
    return rows


# -- screens ------------------------------------------------------------------------------------
def _header(state: RaceState, out: _Out, width: int, right: str, ascii_only: bool) -> None:
    room = state.room or {}
    variant = room.get("variant") or (state.view or {}).get("variant")
    left = "Patience Race"
    if variant:
        left += f" \u00b7 {clean(variant_name(str(variant)), 30)}"
    if state.code:
        left += f" \u00b7 room {clean(state.code, 16)}"
    if is_daily(state):
        left += " \u00b7 daily, " + ("ranked" if _ranked(state) else "practice")
    gap = max(width - width_of(left) - width_of(right) - 2, 2)
    out.add(("class:title", " " + left), ("", " " * gap), ("class:clock", right))
    if state.conn == "reconnecting":
        dots = "..." if ascii_only else "\u2026"
        out.text(f" reconnecting{dots} (attempt {state.attempt}); your seat is kept", "class:warn")
    elif state.conn == "closed":
        out.text(" disconnected from the server", "class:error")
    else:
        out.text(" " + ("-" if ascii_only else "\u2500") * max(width - 2, 0), "class:rule")


def _notices(state: RaceState, ui: UI, out: _Out) -> None:
    if state.notice:
        out.text(" " + clean(state.notice, 100), "class:error" if state.notice_error else "class:info")
    if ui.note:
        out.text(" " + ui.note, "class:hint")
    if ui.text is not None:
        prompt = {"move": "move: ", "code": "room code: ", "players": "players (2-8, Enter for 2): ",
                  "name": "name to claim (Enter claims it): "}
        out.add(("class:prompt", " " + prompt.get(ui.text_purpose, "> ")), ("", clean(ui.text)),
                ("class:cursor", " "))


def _lobby(state: RaceState, ui: UI, out: _Out, width: int, now: int) -> None:
    who = "claimed" if state.claimed else "guest"
    out.text(f" connected to {clean(state.server, 60)} as {clean(state.name, 24)} ({who})", "class:dim")
    out.text()
    if ui.menu == "pick":
        heading = {"quick": "Quick race: pick a variant", "create": "Private room: pick a variant",
                   "browse": "Variants and rules", "daily": "Today's challenge: pick a variant",
                   "board-daily": "Today's daily board: pick a variant",
                   "board-wins": "Daily wins: pick a variant"}
        out.text(" " + heading.get(ui.purpose, "Variants"), "class:title")
        out.text()
        for i, variant in enumerate(VARIANTS):
            style = "class:cursorline" if i == ui.cursor else ""
            out.add((style, f"  {i + 1}  {variant.name:<32}"), ("class:dim", variant.id))
        out.text()
        for line in _wrap(VARIANTS[ui.cursor % len(VARIANTS)].blurb, min(width, 100) - 4):
            out.text("  " + line)
        out.text()
        tail = "Enter or a number to choose" if ui.purpose != "browse" else "up/down to read"
        out.text(f" {tail} \u00b7 Esc back", "class:dim")
        return
    if ui.menu == "daily":
        _daily(state, ui, out, now)
        return
    if ui.menu == "boards":
        out.text(" Boards", "class:title")
        out.text()
        for i, (key, title, hint) in enumerate(BOARD_ITEMS):
            style = "class:cursorline" if i == ui.cursor else ""
            out.add((style, f"  {key}  {title:<24}"), ("class:dim", hint))
        out.text()
        out.text(" up/down and Enter, or the key \u00b7 Esc back", "class:dim")
        return
    if ui.menu == "board":
        _board(state, ui, out)
        return
    for i, (key, title, hint) in enumerate(LOBBY_ITEMS):
        style = "class:cursorline" if i == ui.cursor else ""
        if key == "7" and state.claimed:
            title, hint = "Your name", f"{clean(state.name, 24)} is yours on this server"
        out.add((style, f"  {key}  {title:<24}"), ("class:dim", hint))
    out.text()
    out.text(" up/down and Enter, or the key \u00b7 ? help", "class:dim")


def _hms(ms: int) -> str:
    s = max(ms, 0) // 1000
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"


def _short(text: object, n: int = 16) -> str:
    t = clean(text, 80)
    return t if len(t) <= n else t[:n] + "\u2026"


def _daily(state: RaceState, ui: UI, out: _Out, now: int) -> None:
    """Today's challenge of one variant: what it is, whether it counts, yesterday's reveal."""
    out.text(f" Today's challenge \u00b7 {clean(variant_name(ui.variant), 30)}", "class:title")
    out.text()
    info = state.daily_info.get(ui.variant)
    if info is None:
        out.text(" asking the server for today's deal\u2026 (the first ask of a day may take a few seconds)",
                 "class:dim")
    else:
        day, ends = _int(info.get("day")), _int(info.get("ends_at"))
        line = f" Day #{day if day is not None else '?'} \u00b7 {clean(info.get('date', ''), 10)}"
        if ends is not None:
            line += f" \u00b7 ends in {_hms(ends - now)} (midnight UTC)"
        out.text(line)
        out.add(("", " Commitment "), ("class:code", f" {_short(info.get('commitment', ''))} "),
                ("class:dim", "  SHA-256 of the deal number and a salt, revealed tomorrow"))
        out.text()
        if state.claimed:
            out.text(" Ranked: your first attempt today goes on the board; later ones are practice.",
                     "class:info")
        else:
            out.text(" Practice: guests are never ranked. Claim your name (7 in the lobby) to be ranked.",
                     "class:warn")
        out.text()
        _reveal(state, ui.variant, info.get("yesterday"), out)
    out.text()
    _notices(state, ui, out)
    out.text(" Enter start \u00b7 b today's board \u00b7 w daily wins \u00b7 r refresh \u00b7 Esc back",
             "class:dim")


def _reveal(state: RaceState, variant: str, yesterday: Any, out: _Out) -> None:
    if not isinstance(yesterday, dict):
        out.text(" Yesterday: nothing to reveal (no deal was drawn for this variant)", "class:dim")
        return
    day, date = _int(yesterday.get("day")), clean(yesterday.get("date", ""), 10)
    out.text(f" Yesterday's deal, revealed \u00b7 day #{day if day is not None else '?'} \u00b7 {date}",
             "class:title")
    deal = clean(yesterday.get("deal", "?"), 24)
    out.text(f"   deal {deal}   salt {clean(yesterday.get('salt', '?'), 40)}")
    par = _int(yesterday.get("par"))
    if par is not None:
        out.text(f"   par {par} foundation cards (the solver found no winning line)")
    check = reveal_check(yesterday, state.seen_commitments.get(f"{yesterday.get('date')}|{variant}"))
    commit = _short(yesterday.get("commitment", ""))
    if check.ours is None:
        out.text("   check: the reveal is incomplete and cannot be checked", "class:error")
    elif check.ours:
        server = "" if check.server is None else (" (the server agrees)" if check.server
                                                  else " (the server's own check says otherwise)")
        out.text(f"   check: SHA-256(deal|salt) matches the commitment {commit}, checked here{server}",
                 "class:info")
    else:
        out.text(f"   check FAILED: SHA-256(deal|salt) does not match the commitment {commit}", "class:error")
    if check.seen is True:
        out.text("   and that is the commitment this client was shown during that day", "class:info")
    elif check.seen is False:
        seen = _short(state.seen_commitments.get(f"{yesterday.get('date')}|{variant}", ""))
        out.text(f"   but during that day this client was shown another commitment: {seen}", "class:error")
    out.text(f"   replay it: patience-server deal {clean(variant, 30)} {deal}", "class:dim")


def _board_matches(state: RaceState, ui: UI) -> dict[str, Any] | None:
    board = state.board
    if board is None or board.get("kind") != ui.board_kind or _int(board.get("offset")) != ui.board_offset:
        return None
    if ui.board_kind != "rating" and board.get("variant") != ui.variant:
        return None
    return board


def _board(state: RaceState, ui: UI, out: _Out) -> None:
    board = _board_matches(state, ui)
    name = clean(variant_name(ui.variant), 30)
    if ui.board_kind == "daily":
        title = f" Today's board \u00b7 {name}"
        if board is not None and board.get("date"):
            title += f" \u00b7 {clean(board['date'], 10)}"
    elif ui.board_kind == "wins":
        title = f" Daily wins \u00b7 {name} \u00b7 ranked wins of all days"
    else:
        title = " Ratings \u00b7 OpenSkill ordinal from races between claimed names"
    out.text(title, "class:title")
    out.text()
    entries = [e for e in (board or {}).get("entries") or () if isinstance(e, dict)]
    me = state.name.casefold()
    if board is None:
        out.text("  loading\u2026", "class:dim")
    elif not entries:
        empty = "nobody has finished today's deal yet" if ui.board_kind == "daily" else "nobody here yet"
        out.text(f"  {empty}", "class:dim")
    elif ui.board_kind == "daily":
        out.text(f"  {'rank':<6}{'player':<20}{'result':<9}{'time':>7}{'moves':>7}{'cards':>7}", "class:dim")
        for e in entries:
            who = clean(e.get("name", "?"), 18)
            mine = isinstance(e.get("name"), str) and e["name"].casefold() == me
            ms, moves, cards = _int(e.get("time_ms")), _int(e.get("moves")), _int(e.get("foundation_cards"))
            out.text(f"  {_int(e.get('rank')) or '':<6}{who + (' *' if mine else ''):<20}"
                     f"{'won' if e.get('won') else 'not won':<9}{_mmss(ms) if ms is not None else '--':>7}"
                     f"{moves if moves is not None else '--':>7}{cards if cards is not None else '--':>7}",
                     "class:me" if mine else "")
    else:
        label = "rating" if ui.board_kind == "rating" else "wins"
        out.text(f"  {'rank':<6}{'player':<22}{label:>8}", "class:dim")
        for e in entries:
            who = clean(e.get("name", "?"), 20)
            mine = isinstance(e.get("name"), str) and e["name"].casefold() == me
            value = e.get("value")
            if isinstance(value, int | float) and not isinstance(value, bool):
                shown = f"{value:.2f}" if ui.board_kind == "rating" else f"{value:g}"
            else:
                shown = clean(value or "", 8)
            out.text(f"  {_int(e.get('rank')) or '':<6}{who + (' *' if mine else ''):<22}{shown:>8}",
                     "class:me" if mine else "")
    out.text()
    _notices(state, ui, out)
    total = _int((board or {}).get("total"))
    where = ""
    if board is not None and total is not None and entries:
        where = f"{ui.board_offset + 1}-{ui.board_offset + len(entries)} of {total} \u00b7 "
    paging = "n next page \u00b7 p previous \u00b7 " if total is None or total > BOARD_PAGE else ""
    out.text(f" {where}{paging}r refresh \u00b7 Esc back", "class:dim")


def _wrap(text: str, width: int) -> list[str]:
    lines: list[str] = []
    line = ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    if line:
        lines.append(line)
    return lines


def _ranked(state: RaceState) -> bool:
    """This daily attempt counts: the server says so (and a guest's never does)."""
    if not state.claimed:
        return False
    results = state.results or {}
    if "ranked" in results:
        return bool(results["ranked"])
    return bool((state.room or {}).get("ranked"))


def _practice_reason(state: RaceState) -> str:
    if not state.claimed:
        return "guests are never ranked: claim your name in the lobby (7)"
    return "only your first attempt of the day is ranked"


def _daily_room(state: RaceState, out: _Out, now: int, countdown: bool) -> None:
    room = state.room or {}
    variant = clean(variant_name(str(room.get("variant", ""))), 30)
    info = state.daily_info.get(str(room.get("variant")), {})
    day = _int(info.get("day")) if info.get("date") == room.get("daily") else None
    out.text(f" Today's challenge \u00b7 {variant}" + (f" \u00b7 day #{day}" if day else "")
             + f" \u00b7 {clean(room.get('daily', ''), 10)}", "class:title")
    if _ranked(state):
        out.text(" Ranked attempt: your result goes on today's board.", "class:info")
    else:
        out.text(f" Practice: this attempt is not ranked ({_practice_reason(state)}).", "class:warn")
    out.text()
    if countdown:
        starts = _int(room.get("starts_at"))
        left = (starts - now + 999) // 1000 if starts is not None else None
        text = f"   Starting in {left}\u2026" if left is not None and left > 0 else "   Go!"
        out.text(text, "class:countdown")
        out.text()
        return
    out.text(" You play alone, against the clock and everyone else's result.")
    out.text()
    out.text(" r start \u00b7 l leave \u00b7 q quit \u00b7 ? help", "class:dim")


def _room(state: RaceState, out: _Out, now: int, countdown: bool) -> None:
    room = state.room or {}
    if room.get("daily"):
        _daily_room(state, out, now, countdown)
        return
    if countdown:
        starts = _int(room.get("starts_at"))
        left = (starts - now + 999) // 1000 if starts is not None else None
        out.text()
        if left is not None and left > 0:
            out.text(f"   Starting in {left}\u2026", "class:countdown")
        else:
            out.text("   Go!", "class:countdown")
        out.text()
    else:
        private = room.get("private")
        if state.code:
            if private is False:
                out.text(f" Public room {clean(state.code, 16)}: waiting for players", "class:title")
            else:
                out.add(("", " Share this code: "), ("class:code", f" {clean(state.code, 16)} "))
        out.text()
    maximum = _int(room.get("players_max"))
    seats = players_of(state)
    out.text(f" Players ({len(seats)}" + (f" of {maximum})" if maximum else ")"), "class:title")
    for p in seats:
        n = p["player"]
        ready = p.get("ready")
        flag = "ready" if ready else ("not ready" if ready is False else "")
        if p.get("left"):
            flag = "left"
        elif _offline(p):
            flag = "disconnected"
        me = " (you)" if n == state.me else ""
        who = clean(p.get("name"), 24) + me
        out.add(("", f"   {n}  "), ("class:me" if me else "", who + " " * max(30 - width_of(who), 1)),
                ("class:dim", flag))
    out.text()
    if not countdown:
        out.text(" r ready \u00b7 l leave \u00b7 q quit \u00b7 ? help", "class:dim")


def _race(state: RaceState, ui: UI, out: _Out, width: int, ascii_only: bool) -> None:
    view = state.view or {}
    b = _Board(view, ui, ascii_only)
    status = view.get("status")
    if status and status != "in_progress":
        word = {"won": "You won! Waiting for the others\u2026", "dead": "No moves left: your game is over.",
                "resigned": "You resigned."}.get(str(status), clean(status, 30))
        out.text(" " + word, "class:info")
    out.text()
    _BOARDS[layout_of(view)](b, out, width)
    out.add(_stock_line(b))
    phase = _phase_line(b)
    if phase:
        out.add(phase)
    out.text()
    for row in _progress_rows(state, ascii_only):
        out.add(row)
    out.text()
    if ui.pending is not None:
        hint = "f then a number for a foundation" if ui.want_foundation else "press a target (highlighted)"
        out.text(f" {ui.pending} selected: {hint} \u00b7 Esc cancels", "class:hint")
    elif ui.want_foundation:
        out.text(" which foundation? press its number", "class:hint")
    _notices(state, ui, out)
    out.text(" space " + ("deal" if "phase" in view else "draw") + " \u00b7 pile key then target"
             " \u00b7 : type a move \u00b7 X resign \u00b7 ? help \u00b7 q quit", "class:dim")


def _results(state: RaceState, out: _Out) -> None:
    res = state.results or {}
    deal = res.get("deal")
    title = " Results" + (f" \u00b7 deal #{clean(deal, 20)}" if deal is not None else "")
    daily = is_daily(state)
    if daily:
        info = state.daily_info.get(str(res.get("variant")), {})
        day = _int(info.get("day")) if info.get("date") == res.get("daily") else None
        title += " \u00b7 today's challenge" + (f" #{day}" if day else "")
        title += " \u00b7 " + ("ranked" if _ranked(state) else "practice")
    out.text(title, "class:title")
    out.text()
    out.text(f"  {'place':<6}{'player':<20}{'time':>7}{'moves':>7}  foundation", "class:dim")
    seats = {p["player"]: p for p in players_of(state)}
    starts = _int((state.room or {}).get("starts_at"))
    ranking = res.get("ranking")
    for i, entry in enumerate(ranking if isinstance(ranking, list) else []):
        if not isinstance(entry, dict):
            continue
        n = _int(entry.get("player"))
        name = entry.get("name") or seats.get(n or 0, {}).get("name") or f"player {n}"
        place = _int(entry.get("place")) or i + 1
        ms = next((v for k in ("ms", "time_ms", "elapsed_ms") if (v := _int(entry.get(k))) is not None), None)
        finished = _int(entry.get("finished_at"))
        if ms is None and finished is not None and starts is not None:
            ms = finished - starts
        moves = _int(entry.get("moves"))
        done, total = _int(entry.get("foundation_cards")), _int(entry.get("total_cards"))
        status = STATUS_TEXT.get(str(entry.get("status")), clean(entry.get("status") or "", 14))
        me = n is not None and n == state.me
        found = f"{done if done is not None else '?'}" + (f"/{total}" if total else "")
        out.add(("class:me" if me else "",
                 f"  {place:<6}{clean(name, 18) + (' *' if me else ''):<20}"
                 f"{_mmss(ms) if ms is not None else '  --':>7}{moves if moves is not None else '--':>7}"
                 f"  {found:<8}"),
                ("class:dim", status))
    out.text()
    if daily:
        _daily_results(state, res, out)
        return
    if state.rating_changes:
        _rating_changes(state, out)
    out.text(" m rematch \u00b7 b ratings \u00b7 l back to the lobby \u00b7 q quit", "class:dim")


def _daily_results(state: RaceState, res: dict[str, Any], out: _Out) -> None:
    if not _ranked(state):
        out.text(f" Practice: not on today's board ({_practice_reason(state)}).", "class:warn")
    share = res.get("share")
    if isinstance(share, str) and share:
        out.add(("", " Share: "), ("class:code", f" {clean(share, 100)} "))
    streaks = res.get("streaks")
    if isinstance(streaks, dict):
        days, wins = _int(streaks.get("streak_days")), _int(streaks.get("win_streak"))
        parts = []
        if days is not None:
            parts.append(f"{days} day{'s' if days != 1 else ''} in a row with a ranked attempt")
        if wins is not None:
            parts.append(f"{wins} day{'s' if wins != 1 else ''} in a row with a win")
        if parts:
            out.text(" Streaks: " + " \u00b7 ".join(parts), "class:info")
    out.text()
    copy = "c copy the share line \u00b7 " if isinstance(share, str) and share else ""
    out.text(f" {copy}b today's board \u00b7 l back to the lobby \u00b7 q quit", "class:dim")


def _rating_changes(state: RaceState, out: _Out) -> None:
    out.text(" Ratings (OpenSkill ordinal)", "class:title")
    me = state.name.casefold()
    for change in state.rating_changes:
        mine = change.name.casefold() == me
        who = clean(change.name, 18) + (" *" if mine else "")
        if change.before is None:
            delta = "(no earlier rating seen here)"
        else:
            delta = f"({change.value - change.before:+.2f})"
        out.add(("class:me" if mine else "", f"   {who:<20}{change.value:>8.2f}  "), ("class:dim", delta))
    out.text()


HELP: Final = (
    "How to play",
    "",
    "  Make a move with two keys: the pile you take from, then the pile you put on.",
    "  Pile keys are drawn on the board: 1..9, 0, -, = for the tableau piles t1..t12,",
    "  w the waste, s the stock's top card, f for a foundation (f alone picks the one",
    "  that fits; otherwise f then its number). After the first key the legal targets",
    "  are highlighted. Esc cancels.",
    "",
    "  Or type the move: press : (or Enter, or just start typing t3-f1) and Enter.",
    "  Notation: w-t3, t2-f1, t1-t4:3 (a run of 3), s-t3, draw, redeal, deal,",
    "  deal:round, deal:all.",
    "",
    "  space  draw, deal or redeal          n / N  deal a round / deal everything",
    "  X      resign (asks first)           q      quit (your seat is kept)",
    "  ?      this help                     any key closes it",
    "",
    "  In a room: r when you are ready, l to leave. After a race: m for a rematch.",
    "",
    "  Lobby: 5 today's challenge (a deal a day; a claimed name's first attempt is",
    "  ranked), 6 boards (n / p page through them), 7 claim your name (its key is",
    "  kept on this computer). After a daily: c copies the share line, b its board.",
)


_ASCII: Final = str.maketrans({"\u00b7": "-", "\u2026": "...", "\u2500": "-", "\u00d7": "x",
                               "\u2588": "#", "\u2591": "-"})


def render(state: RaceState, ui: UI, *, now_ms: int, width: int = 80, ascii_only: bool = False) -> Screen:
    """The whole screen for this state (``now_ms`` is the local clock)."""
    screen = _render(state, ui, now_ms, width, ascii_only)
    if not ascii_only:
        return screen
    return tuple(tuple((style, text.translate(_ASCII)) for style, text in line) for line in screen)


def _render(state: RaceState, ui: UI, now_ms: int, width: int, ascii_only: bool) -> Screen:
    width = max(width, 40)
    now = state.server_now(now_ms)
    current = mode(state)
    out = _Out()
    _header(state, out, width, _clock(state, now) if current in ("race", "countdown") else "", ascii_only)
    if ui.help:
        for line in HELP:
            out.text(" " + line, "class:title" if line == HELP[0] else "")
        return out.screen()
    if current == "lobby":
        _lobby(state, ui, out, width, now)
        if ui.menu not in ("daily", "board"):  # those draw the notices above their key line
            _notices(state, ui, out)
    elif current in ("room", "countdown"):
        _room(state, out, now, current == "countdown")
        _notices(state, ui, out)
    elif current == "race":
        _race(state, ui, out, width, ascii_only)
    else:
        _results(state, out)
        _notices(state, ui, out)
    return out.screen()
