"""The lobby's screens: the menu, variant picker, today's challenge and the boards (pure).

Today's challenge of a variant shows the day number, the commitment's prefix,
whether an attempt would be ranked, and yesterday's reveal checked here by
recomputing SHA-256(deal|salt); the board menu leads to a board page.
"""

from __future__ import annotations

from typing import Any

from .board import glyph_cards
from .competition import reveal_check
from .keys import BOARD_ITEMS, LOBBY_ITEMS, UI
from .state import BOARD_PAGE, RaceState
from .text import Out, clean, keys_line, wrap
from .variants import Variant, variant_name

__all__ = ["lobby", "notices", "practice_reason", "ranked"]


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _mmss(ms: int) -> str:
    s = max(ms, 0) // 1000
    return f"{s // 60:02d}:{s % 60:02d}"


def notices(state: RaceState, ui: UI, out: Out) -> None:
    if state.notice:
        text = glyph_cards(clean(state.notice, 400), out.ascii)
        out.text(" " + text, "class:error" if state.notice_error else "class:info")
    if ui.note:
        out.text(" " + ui.note, "class:hint")
    if ui.text is not None:
        prompt = {"move": "move: ", "code": "room code: ", "players": "players (2-8, Enter for 2): ",
                  "name": "name to claim (Enter claims it): ",
                  "deal": "deal number (PySolFC's; Enter for a random one): ",
                  "watch": "room code to watch: ",
                  "ghost": "room code of a finished race (then a player's number, else its winner): "}
        out.add(("class:prompt", " " + prompt.get(ui.text_purpose, "> ")), ("", clean(ui.text)),
                ("class:cursor", " "))


# Up to this many variants the picker lists one a line with its id; more go in two
# columns (numbers and names, the chosen one's id above its paragraph), so the
# screen still fits 80x24.
ONE_COLUMN_MAX = 12


def _two_columns(variants: tuple[Variant, ...], cursor: int, out: Out) -> None:
    rows = (len(variants) + 1) // 2
    width = max(24, min(36, out.width // 2 - 2))
    for r in range(rows):
        frags: list[tuple[str, str]] = []
        for i in (r, r + rows):
            if i < len(variants):
                style = "class:cursorline" if i == cursor else ""
                frags.append((style, f"  {i + 1:>2}  {clean(variants[i].name, width - 6):<{width - 6}}"))
        out.add(*frags)
    out.text()
    out.text("  " + clean(variants[cursor % len(variants)].id, 60), "class:dim")


def lobby(state: RaceState, ui: UI, out: Out, now: int) -> None:
    who = "claimed" if state.claimed else "guest"
    out.text(f" connected to {clean(state.server, 60)} as {clean(state.name, 24)} ({who})", "class:dim")
    out.text()
    if ui.menu == "pick":
        heading = {"quick": "Quick race: pick a variant", "create": "Private room: pick a variant",
                   "browse": "Variants and rules", "daily": "Today's challenge: pick a variant",
                   "board-daily": "Today's daily board: pick a variant",
                   "board-wins": "Daily wins: pick a variant", "solo": "Play alone: pick a variant"}
        out.text(" " + heading.get(ui.purpose, "Variants"), "class:title")
        out.text()
        variants = state.variants
        if not variants:
            out.text("  the server has not listed its variants yet", "class:dim")
        if len(variants) <= ONE_COLUMN_MAX:
            for i, variant in enumerate(variants):
                style = "class:cursorline" if i == ui.cursor else ""
                out.add((style, f"  {i + 1}  {variant.name:<32}"), ("class:dim", variant.id))
        else:
            _two_columns(variants, ui.cursor, out)
        out.text()
        for line in wrap(clean(variants[ui.cursor % len(variants)].blurb, 2000) if variants else "",
                         min(out.width, 100) - 4):
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


def _daily(state: RaceState, ui: UI, out: Out, now: int) -> None:
    """Today's challenge of one variant: what it is, whether it counts, yesterday's reveal."""
    name = clean(variant_name(state.variants, ui.variant), 30)
    out.text(f" Today's challenge \u00b7 {name}", "class:title")
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
                ("class:dim", "  SHA-256(deal|salt), revealed tomorrow"))
        out.text()
        if state.claimed:
            out.text(" Ranked: your first attempt today goes on the board; later ones are practice.",
                     "class:info")
        else:
            out.text(" Practice: guests are never ranked; claim your name (7 in the lobby) first.",
                     "class:warn")
        out.text()
        _reveal(state, ui.variant, info.get("yesterday"), out)
    out.text()
    notices(state, ui, out)
    out.text(keys_line("Enter start", "b today's board", "w daily wins", "r refresh", "Esc back"),
             "class:dim")


def _reveal(state: RaceState, variant: str, yesterday: Any, out: Out) -> None:
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
        out.text(f"   checked here: SHA-256(deal|salt) matches the commitment {commit}", "class:info")
        if check.server is not None:
            out.text("   the server's own check agrees" if check.server
                     else "   but the server's own check says otherwise",
                 "class:info")
    else:
        out.text(f"   FAILED: SHA-256(deal|salt) does not match the commitment {commit}", "class:error")
    if check.seen is True:
        out.text("   and that is the commitment this client was shown during that day", "class:info")
    elif check.seen is False:
        seen = _short(state.seen_commitments.get(f"{yesterday.get('date')}|{variant}", ""))
        out.text(f"   but this client was shown another commitment that day: {seen}", "class:error")
    out.text(f"   replay it: patience-server deal {clean(variant, 30)} {deal}", "class:dim")


def _board_matches(state: RaceState, ui: UI) -> dict[str, Any] | None:
    board = state.board
    if board is None or board.get("kind") != ui.board_kind or _int(board.get("offset")) != ui.board_offset:
        return None
    if ui.board_kind != "rating" and board.get("variant") != ui.variant:
        return None
    return board


def _board(state: RaceState, ui: UI, out: Out) -> None:
    board = _board_matches(state, ui)
    name = clean(variant_name(state.variants, ui.variant), 30)
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
    notices(state, ui, out)
    total = _int((board or {}).get("total"))
    where = ""
    if board is not None and total is not None and entries:
        where = f"{ui.board_offset + 1}-{ui.board_offset + len(entries)} of {total} \u00b7 "
    paging = "n next page \u00b7 p previous \u00b7 " if total is None or total > BOARD_PAGE else ""
    out.text(f" {where}{paging}" + keys_line("r refresh", "Esc back")[1:], "class:dim")


def ranked(state: RaceState) -> bool:
    """This daily attempt counts: the server says so (and a guest's never does)."""
    if not state.claimed:
        return False
    results = state.results or {}
    if "ranked" in results:
        return bool(results["ranked"])
    return bool((state.room or {}).get("ranked"))


def practice_reason(state: RaceState) -> str:
    if not state.claimed:
        return "guests are never ranked; claim your name (7 in the lobby)"
    return "only your first attempt of the day is ranked"
