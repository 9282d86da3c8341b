"""The lobby's main menu: one key (or the cursor and Enter) per item (pure).

:data:`MENU` holds what each item of :data:`client.ui.LOBBY_ITEMS` does: most
open another lobby screen (a variant picker, the boards, the arenas) or the
input line; Esc asks before quitting, being easy to hit by accident.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any, Final

from ..state import RaceState
from ..text import Out, clean
from ..ui import LOBBY_ITEMS, MAX_NAME, UI, Command, Context, move_cursor, open_text
from .base import At, Keys
from .chrome import connected, notices, num

__all__ = ["MENU", "away_line", "draw", "press"]


def _pick(purpose: str) -> Callable[[UI, Context], Keys]:
    """An item that opens the variant picker (client/screens/picker.py) for ``purpose``."""
    def opened(ui: UI, ctx: Context) -> Keys:
        return replace(ui, menu="pick", purpose=purpose, cursor=0, note=""), []
    return opened


def _claim(ui: UI, ctx: Context) -> Keys:
    if ctx.claimed:
        return replace(ui, note=f"the name {ctx.name} is already yours on this server"), []
    return open_text(ui, "name", ctx.name[:MAX_NAME]), []


MENU: Final[dict[str, Callable[[UI, Context], Keys]]] = {
    "1": _pick("quick"),
    "2": _pick("create"),
    "3": lambda ui, ctx: (open_text(ui, "code"), []),
    "4": _pick("browse"),
    "5": _pick("daily"),
    "6": lambda ui, ctx: (replace(ui, menu="boards", cursor=0, note=""), []),
    "7": _claim,
    "8": _pick("solo"),  # then the deal number on the input line
    "w": lambda ui, ctx: (open_text(ui, "watch"), []),
    "g": lambda ui, ctx: (open_text(ui, "ghost"), []),
    "a": lambda ui, ctx: (replace(ui, menu="arenas", cursor=0, note=""), [Command("arenas")]),
    "d": lambda ui, ctx: (replace(ui, menu="devices", cursor=0, note=""),
                          [Command("devices")] if ctx.claimed else []),
    "f": lambda ui, ctx: (replace(ui, menu="friends", cursor=0, note=""),
                          [Command("friends")] if ctx.claimed else []),
    "q": lambda ui, ctx: (ui, [Command("quit")]),
}


def press(ui: UI, key: str, at: At) -> Keys:
    items = [item[0] for item in LOBBY_ITEMS]
    moved = move_cursor(ui, key, len(items))
    if moved is not None:
        return moved, []
    if key == "enter":
        key = items[ui.cursor % len(items)]
    if key == "escape":  # easy to hit by accident (it goes back everywhere else): ask first
        return replace(ui, confirm="quit", note="quit? y to quit, any other key stays"), []
    action = MENU.get(key)
    return action(ui, at.ctx) if action is not None else (ui, [])


def away_line(res: dict[str, Any]) -> str:
    """One line on a race left before its end: where the player finished."""
    listed = res.get("ranking")
    ranking: list[Any] = listed if isinstance(listed, list) else []
    mine = next((e for e in ranking if isinstance(e, dict) and e.get("player") == res.get("me")), None)
    code = str(res.get("code", ""))[:16]
    if mine is None:
        return f"race {code} is over"
    place = num(mine.get("place")) or 0
    done, total = num(mine.get("foundation_cards")), num(mine.get("total_cards"))
    how = "won" if mine.get("won") else f"{done}/{total} cards"
    return f"race {code} is over: you placed {place} of {len(ranking)} ({how})"


def draw(state: RaceState, ui: UI, out: Out, now: int) -> None:
    connected(state, out)
    for i, (key, title, hint) in enumerate(LOBBY_ITEMS):
        style = "class:cursorline" if i == ui.cursor else ""
        if key == "7" and state.claimed:
            title, hint = "Your name", f"{clean(state.name, 24)} is yours on this server"
        out.add((style, f"  {key}  {title:<24}"), ("class:dim", hint))
    out.text()
    for res in state.away_results:  # races left before their end: their results came here
        out.text(" " + clean(away_line(res), out.width), "class:info")
    out.text(" up/down and Enter, or the key \u00b7 ? help", "class:dim")
    notices(state, ui, out)
