"""The variant picker: one list of the server's variants for every lobby item
that needs one (a quick race, a private room, the rules, today's challenge, a
board, a solo game); :data:`PICKED` holds what choosing does for each (pure)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Final

from ..state import RaceState
from ..text import Out, clean, wrap
from ..ui import UI, Command, move_cursor, open_board, open_text
from ..variants import Variant
from .base import At, Keys
from .chrome import connected, notices

__all__ = ["HEADINGS", "ONE_COLUMN_MAX", "PICKED", "draw", "press"]

# Up to this many variants the picker lists one a line with its id; more go in two
# columns (numbers and names, the chosen one's id above its paragraph), so the
# screen still fits 80x24.
ONE_COLUMN_MAX = 12

HEADINGS: Final = {
    "quick": "Quick race: pick a variant",
    "create": "Private room: pick a variant",
    "browse": "Variants and rules",
    "daily": "Today's challenge: pick a variant",
    "board-daily": "Today's daily board: pick a variant",
    "board-rating": "Ratings: pick a variant",
    "board-wins": "Daily wins: pick a variant",
    "solo": "Play alone: pick a variant",
    "challenge": "Challenge a friend: pick a variant",
}

# the purpose's answer to a chosen variant (its id, and its place in the list)
PICKED: Final[dict[str, Callable[[UI, str, int], Keys]]] = {
    "quick": lambda ui, variant, i: (replace(ui, menu="main", cursor=0), [Command("quick", variant)]),
    "create": lambda ui, variant, i: (replace(open_text(ui, "players"), variant=variant, cursor=i), []),
    "daily": lambda ui, variant, i: (replace(ui, menu="daily", variant=variant, cursor=0, note=""),
                                     [Command("daily_info", variant)]),
    "board-daily": lambda ui, variant, i: open_board(ui, "daily", variant),
    "board-rating": lambda ui, variant, i: open_board(ui, "rating", variant),
    "board-wins": lambda ui, variant, i: open_board(ui, "wins", variant),
    # the deal number comes next, on the input line (Enter alone: a random deal)
    "solo": lambda ui, variant, i: (replace(ui, text="", text_purpose="deal", variant=variant, cursor=i,
                                            note=""), []),
    # the name comes next, on the input line (client/screens/friendline.py)
    "challenge": lambda ui, variant, i: (replace(open_text(ui, "challenge"), menu="friends", variant=variant,
                                                 cursor=0), []),
}


def press(ui: UI, key: str, at: At) -> Keys:
    variants = at.ctx.variants
    count = len(variants)
    if key == "backspace" and ui.digits:
        return replace(ui, digits="", note=""), []
    if key in ("escape", "backspace", "left", "h"):
        back = "boards" if ui.purpose.startswith("board-") else "main"
        return replace(ui, menu=back, cursor=0, digits="", note=""), []
    moved = move_cursor(ui, key, count)
    if moved is not None:
        return replace(moved, digits="", note=""), []
    if key == "enter" and variants:
        return _choose(replace(ui, digits="", note=""), variants)
    if len(key) == 1 and key.isdigit() and variants:
        return _digit(ui, key, variants)
    return ui, []


def _choose(ui: UI, variants: tuple[Variant, ...]) -> Keys:
    """The variant under the cursor, chosen for the picker's purpose."""
    chosen = ui.cursor % len(variants)
    picked = PICKED.get(ui.purpose)
    if picked is None:
        return replace(ui, cursor=chosen), []  # browsing: move the cursor only
    return picked(ui, variants[chosen].id, chosen)


def _digit(ui: UI, key: str, variants: tuple[Variant, ...]) -> Keys:
    """A digit of a variant's number: chosen as soon as no longer number could
    start with what was typed (``1`` of 18 waits for ``12`` or Enter; ``2`` does not)."""
    count = len(variants)
    typed = ui.digits + key
    if not 1 <= int(typed) <= count:
        if ui.digits:  # ``1`` then ``9`` of 18: the 9 starts afresh
            return _digit(replace(ui, digits=""), key, variants)
        return replace(ui, note=f"no variant {typed}: 1 to {count}"), []
    if int(typed) * 10 > count:
        return _choose(replace(ui, cursor=int(typed) - 1, digits="", note=""), variants)
    n = int(typed)
    return replace(ui, cursor=n - 1, digits=typed,
                   note=f"{typed}: another digit, or Enter for {n}"), []


def draw(state: RaceState, ui: UI, out: Out, now: int) -> None:
    connected(state, out)
    out.text(" " + HEADINGS.get(ui.purpose, "Variants"), "class:title")
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
    notices(state, ui, out)


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
