"""The boards: the menu of boards, and a board page (today's daily, the ratings,
daily wins), paged ``n``/``p`` (pure). The session asks for a page on screen
again when the server says it changed (client/connection.py).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..state import BOARD_PAGE, RaceState
from ..text import Out, clean, keys_line
from ..ui import BOARD_ITEMS, UI, Command, move_cursor, open_board, open_text
from ..variants import variant_name
from .base import At, Keys
from .chrome import connected, mmss, notices, num

__all__ = ["draw_menu", "draw_page", "press_menu", "press_page"]


# -- the menu of boards --------------------------------------------------------------------
def press_menu(ui: UI, key: str, at: At) -> Keys:
    items = [item[0] for item in BOARD_ITEMS]
    if key in ("escape", "backspace", "left", "h"):
        return replace(ui, menu="main", cursor=0), []
    moved = move_cursor(ui, key, len(items))
    if moved is not None:
        return moved, []
    if key == "enter":
        key = items[ui.cursor]
    if key == "1":
        return replace(ui, menu="pick", purpose="board-daily", cursor=0), []
    if key == "2":
        return replace(ui, menu="pick", purpose="board-rating", cursor=0), []
    if key == "3":
        return replace(ui, menu="pick", purpose="board-wins", cursor=0), []
    if key == "4":  # whose profile: one's own name to start from
        return open_text(ui, "profile", at.state.name or ""), []
    if key == "q":
        return ui, [Command("quit")]
    return ui, []


def draw_menu(state: RaceState, ui: UI, out: Out, now: int) -> None:
    connected(state, out)
    out.text(" Boards", "class:title")
    out.text()
    for i, (key, title, hint) in enumerate(BOARD_ITEMS):
        style = "class:cursorline" if i == ui.cursor else ""
        out.add((style, f"  {key}  {title:<24}"), ("class:dim", hint))
    out.text()
    out.text(" up/down and Enter, or the key \u00b7 Esc back", "class:dim")
    notices(state, ui, out)


# -- a board page --------------------------------------------------------------------------
def press_page(ui: UI, key: str, at: At) -> Keys:
    """A board page on screen: page through it, refresh it, leave it."""
    ctx = at.ctx
    if key in ("escape", "backspace", "h"):
        back = replace(ui, menu="boards", cursor=0, note="", board_offset=0)
        return back, [Command("unwatch")]
    scopes = set(filter(None, ui.board_scope.split(",")))
    if key in ("s", "m") and ui.board_kind in ("rating", "wins"):
        scopes ^= {"season" if key == "s" else "near"}  # this season / all time; around me / pages
        return open_board(ui, ui.board_kind, ui.variant, 0, ",".join(sorted(scopes)))
    if "near" in scopes and key in ("n", "right", "down", "j", " ", "p", "left", "up", "k"):
        return replace(ui, note="around you: m shows the pages again"), []
    if key in ("n", "right", "down", "j", " "):
        offset = ui.board_offset + BOARD_PAGE
        if ctx.board_total is not None and offset >= ctx.board_total:
            return replace(ui, note="this is the last page"), []
        return open_board(ui, ui.board_kind, ui.variant, offset, ui.board_scope)
    if key in ("p", "left", "up", "k"):
        if ui.board_offset <= 0:
            return replace(ui, note="this is the first page"), []
        return open_board(ui, ui.board_kind, ui.variant, ui.board_offset - BOARD_PAGE, ui.board_scope)
    if key == "r":
        return open_board(ui, ui.board_kind, ui.variant, ui.board_offset, ui.board_scope)
    if key == "q":
        return ui, [Command("quit")]
    return ui, []


def draw_page(state: RaceState, ui: UI, out: Out, now: int) -> None:
    connected(state, out)
    _board(state, ui, out)


def _board_matches(state: RaceState, ui: UI) -> dict[str, Any] | None:
    board = state.board
    if board is None or board.get("kind") != ui.board_kind or board.get("variant") != ui.variant:
        return None
    scopes = set(filter(None, ui.board_scope.split(",")))
    if ("near" in scopes) != bool(board.get("near")) or ("season" in scopes) != bool(board.get("season")):
        return None
    if "near" not in scopes and num(board.get("offset")) != ui.board_offset:
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
        title = f" Daily wins \u00b7 {name} \u00b7 ranked wins"
    else:
        title = f" Ratings \u00b7 {name} \u00b7 ? provisional"
    if ui.board_kind in ("rating", "wins"):
        season = (board or {}).get("season")
        title += f" \u00b7 season {clean(season, 10)}" if isinstance(season, str) else \
            (" \u00b7 this season" if "season" in ui.board_scope else " \u00b7 all time")
    out.text(title, "class:title")
    out.text()
    entries = [e for e in (board or {}).get("entries") or () if isinstance(e, dict)]
    me = state.name.casefold()
    if board is None:
        out.text("  loading\u2026", "class:dim")
    elif not entries and "near" in ui.board_scope:
        out.text("  you are not on this board yet", "class:dim")
    elif not entries:
        empty = "nobody has finished today's deal yet" if ui.board_kind == "daily" else "nobody here yet"
        out.text(f"  {empty}", "class:dim")
    elif ui.board_kind == "daily":
        out.text(f"  {'rank':<6}{'player':<20}{'result':<9}{'time':>7}{'moves':>7}{'cards':>7}", "class:dim")
        for e in entries:
            who = clean(e.get("name", "?"), 18)
            mine = isinstance(e.get("name"), str) and e["name"].casefold() == me
            ms, moves, cards = num(e.get("time_ms")), num(e.get("moves")), num(e.get("foundation_cards"))
            out.text(f"  {num(e.get('rank')) or '':<6}{who + (' *' if mine else ''):<20}"
                     f"{'won' if e.get('won') else 'not won':<9}{mmss(ms) if ms is not None else '--':>7}"
                     f"{moves if moves is not None else '--':>7}{cards if cards is not None else '--':>7}",
                     "class:me" if mine else "")
    else:
        label = "rating" if ui.board_kind == "rating" else "wins"
        out.text(f"  {'rank':<6}{'player':<22}{label:>8}", "class:dim")  # a mark may follow
        for e in entries:
            who = clean(e.get("name", "?"), 20)
            mine = isinstance(e.get("name"), str) and e["name"].casefold() == me
            value = e.get("value")
            if isinstance(value, int | float) and not isinstance(value, bool):
                shown = f"{value:.2f}" if ui.board_kind == "rating" else f"{value:g}"
            else:
                shown = clean(value or "", 8)
            if ui.board_kind == "rating" and e.get("provisional"):
                shown += "?"  # not yet rated in enough races to be sure
            elif ui.board_kind == "rating":
                shown += " "
            width = 9 if ui.board_kind == "rating" else 8
            out.text(f"  {num(e.get('rank')) or '':<6}{who + (' *' if mine else ''):<22}{shown:>{width}}",
                     "class:me" if mine else "")
    out.text()
    notices(state, ui, out)
    total = num((board or {}).get("total"))
    where = ""
    if board is not None and total is not None and entries:
        where = f"{ui.board_offset + 1}-{ui.board_offset + len(entries)} of {total} \u00b7 "
    near = "near" in ui.board_scope
    if near and board is not None and entries:
        where = f"you: {num(board.get('me')) or '-'} of {total} \u00b7 "
    pages = not near and (total is None or total > BOARD_PAGE)
    paging = "n next page \u00b7 p previous \u00b7 " if pages else ""
    ladder = ui.board_kind in ("rating", "wins")
    season = ("s all time" if "season" in ui.board_scope else "s this season") if ladder else ""
    around = ("m pages" if near else "m around me") if ladder else ""
    out.text(f" {where}{paging}" + keys_line(season, around, "r refresh", "Esc back")[1:], "class:dim")
