"""The lobby's and the menus' keys: the main menu, the variant picker, today's
challenge and the boards (pure: no terminal, no network)."""

from __future__ import annotations

from dataclasses import replace

from .state import BOARD_PAGE
from .ui import BOARD_ITEMS, LOBBY_ITEMS, MAX_NAME, UI, Command, Context, move_cursor, open_board, open_text
from .variants import Variant, index_of


def lobby_key(ui: UI, key: str, ctx: Context) -> tuple[UI, list[Command]]:
    if ui.menu == "pick":
        return pick_key(ui, key, ctx.variants)
    if ui.menu == "daily":
        return daily_key(ui, key, ctx)
    if ui.menu == "boards":
        return boards_key(ui, key)
    if ui.menu == "board":
        return board_key(ui, key, ctx)
    # the main menu
    items = [item[0] for item in LOBBY_ITEMS]
    moved = move_cursor(ui, key, len(items))
    if moved is not None:
        return moved, []
    if key == "enter":
        key = items[ui.cursor]
    if key == "q":
        return ui, [Command("quit")]
    if key == "escape":  # easy to hit by accident (it goes back everywhere else): ask first
        return replace(ui, confirm="quit", note="quit? y to quit, any other key stays"), []
    if key == "1":
        return replace(ui, menu="pick", purpose="quick", cursor=0, note=""), []
    if key == "2":
        return replace(ui, menu="pick", purpose="create", cursor=0, note=""), []
    if key == "3":
        return open_text(ui, "code"), []
    if key == "4":
        return replace(ui, menu="pick", purpose="browse", cursor=0, note=""), []
    if key == "5":
        return replace(ui, menu="pick", purpose="daily", cursor=0, note=""), []
    if key == "6":
        return replace(ui, menu="boards", cursor=0, note=""), []
    if key == "7":
        if ctx.claimed:
            return replace(ui, note=f"the name {ctx.name} is already yours on this server"), []
        return open_text(ui, "name", ctx.name[:MAX_NAME]), []
    return ui, []


def pick_key(ui: UI, key: str, variants: tuple[Variant, ...]) -> tuple[UI, list[Command]]:
    count = len(variants)
    if key in ("escape", "backspace", "left", "h"):
        back = "boards" if ui.purpose.startswith("board-") else "main"
        return replace(ui, menu=back, cursor=0), []
    moved = move_cursor(ui, key, count)
    if moved is not None:
        return moved, []
    chosen: int | None = None
    if key == "enter":
        chosen = ui.cursor
    elif len(key) == 1 and key.isdigit() and 1 <= int(key) <= count:
        chosen = int(key) - 1
    if chosen is None or not variants:
        return ui, []
    variant = variants[chosen % count].id
    if ui.purpose == "quick":
        return replace(ui, menu="main", cursor=0), [Command("quick", variant)]
    if ui.purpose == "create":
        return replace(open_text(ui, "players"), variant=variant, cursor=chosen), []
    if ui.purpose == "daily":
        return replace(ui, menu="daily", variant=variant, cursor=0, note=""), [Command("daily_info", variant)]
    if ui.purpose in ("board-daily", "board-wins"):
        return open_board(ui, ui.purpose.removeprefix("board-"), variant)
    return replace(ui, cursor=chosen), []  # browsing: move the cursor only


def daily_key(ui: UI, key: str, ctx: Context) -> tuple[UI, list[Command]]:
    """Today's challenge of ``ui.variant``: its info on screen."""
    if key in ("escape", "backspace", "left", "h"):
        return replace(ui, menu="pick", purpose="daily", note="",
                       cursor=index_of(ctx.variants, ui.variant)), []
    if key in ("enter", "s"):
        note = "starting today's deal (the server may take a few seconds to pick it)"
        return replace(ui, note=note), [Command("daily", ui.variant)]
    if key == "b":
        return open_board(ui, "daily", ui.variant)
    if key == "w":
        return open_board(ui, "wins", ui.variant)
    if key == "r":
        return replace(ui, note=""), [Command("daily_info", ui.variant)]
    if key == "q":
        return ui, [Command("quit")]
    return ui, []


def boards_key(ui: UI, key: str) -> tuple[UI, list[Command]]:
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
        return open_board(ui, "rating")
    if key == "3":
        return replace(ui, menu="pick", purpose="board-wins", cursor=0), []
    if key == "q":
        return ui, [Command("quit")]
    return ui, []


def board_key(ui: UI, key: str, ctx: Context) -> tuple[UI, list[Command]]:
    """A board page on screen: page through it, refresh it, leave it."""
    if key in ("escape", "backspace", "h"):
        back = replace(ui, menu="boards", cursor=0, note="", board_offset=0)
        return back, [Command("unwatch")]
    if key in ("n", "right", "down", "j", " "):
        offset = ui.board_offset + BOARD_PAGE
        if ctx.board_total is not None and offset >= ctx.board_total:
            return replace(ui, note="this is the last page"), []
        return open_board(ui, ui.board_kind, ui.variant, offset)
    if key in ("p", "left", "up", "k"):
        if ui.board_offset <= 0:
            return replace(ui, note="this is the first page"), []
        return open_board(ui, ui.board_kind, ui.variant, ui.board_offset - BOARD_PAGE)
    if key == "r":
        return open_board(ui, ui.board_kind, ui.variant, ui.board_offset)
    if key == "q":
        return ui, [Command("quit")]
    return ui, []
