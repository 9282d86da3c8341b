"""Key presses -> move text and UI actions (pure: no terminal, no network).

On the board a move is two keys, the source pile then the target, using the
hotkeys drawn on the board: ``1``..``9``, ``0``, ``-``, ``=`` for ``t1``..``t12``,
``w`` the waste, ``s`` the stock top, and ``f`` for a foundation (``f`` alone
picks the one foundation the server lists as legal; otherwise a digit names
it). After the first key the legal targets from the view's ``legal_moves`` are
highlighted. A target that is not legal is still sent: the server says why.
The move text can be typed too: ``:`` (or Enter, or any letter that is not a
hotkey) opens the input line. Space draws (or deals, in Corner Stones);
``n``/``N`` deal a round or everything. A redeal spends one of the few passes
a game allows, so it has a key of its own, ``R``, and space on an empty stock
only says so. ``f`` with nothing selected asks which foundation to move from
only where a foundation's card can move at all.

The lobby also leads to today's challenge (pick a variant: its info screen,
then start it), the boards (a daily board, ratings, daily wins; ``n``/``p``
page) and claiming the player's name. After a daily, ``c`` copies the share
line and ``b`` opens today's board.

Keys are plain strings: a printable character, or ``enter``, ``escape``,
``backspace``, ``up``, ``down``, ``left``, ``right``, ``tab``, ``c-c``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Final

from .menu_keys import lobby_key
from .state import BOARD_PAGE
from .ui import (
    BOARD_ITEMS,
    LOBBY_ITEMS,
    UI,
    Command,
    Context,
    context_of,
    open_board,
    open_text,
    settle,
    text_key,
)

__all__ = [
    "BOARD_ITEMS",
    "BOARD_PAGE",
    "LOBBY_ITEMS",
    "TABLEAU_KEYS",
    "UI",
    "Command",
    "Context",
    "choose_move",
    "context_of",
    "draw_action",
    "pile_key",
    "press",
    "redeals_left",
    "settle",
    "targets",
]

TABLEAU_KEYS: Final = "1234567890-="  # t1..t12

def pile_key(pile: str) -> str:
    """The hotkey drawn for a pile (``t3`` -> ``3``, ``t11`` -> ``-``, ``f2`` -> ``f2``)."""
    if pile.startswith("t") and pile[1:].isdigit():
        n = int(pile[1:])
        if 1 <= n <= len(TABLEAU_KEYS):
            return TABLEAU_KEYS[n - 1]
    return pile


def _tableau_for_key(key: str, view: dict[str, Any]) -> str | None:
    if len(key) != 1 or key not in TABLEAU_KEYS:
        return None
    pile = f"t{TABLEAU_KEYS.index(key) + 1}"
    return pile if pile in _piles(view) else None


def _piles(view: dict[str, Any]) -> dict[str, Any]:
    piles = view.get("piles")
    return piles if isinstance(piles, dict) else {}


def _legal(view: dict[str, Any]) -> list[str]:
    moves = view.get("legal_moves")
    return [m for m in moves if isinstance(m, str)] if isinstance(moves, list) else []


def _split(move: str) -> tuple[str, str, int] | None:
    """``t1-t4:3`` -> (``t1``, ``t4``, 3); actions -> None."""
    src, sep, rest = move.partition("-")
    if not sep:
        return None
    dst, _, count = rest.partition(":")
    return src, dst, int(count) if count.isdigit() else 1


def targets(ui: UI, view: dict[str, Any] | None) -> frozenset[str]:
    """The piles to highlight: legal targets of the selected source."""
    if view is None or ui.pending is None:
        return frozenset()
    out = set()
    for move in _legal(view):
        parts = _split(move)
        if parts and parts[0] == ui.pending and (not ui.want_foundation or parts[1].startswith("f")):
            out.add(parts[1])
    return frozenset(out)


def choose_move(src: str, dst: str, legal: list[str]) -> str:
    """The move text for src -> dst: the legal one (the longest run if several), else plain."""
    best: tuple[int, str] | None = None
    for move in legal:
        parts = _split(move)
        if parts and parts[0] == src and parts[1] == dst and (best is None or parts[2] > best[0]):
            best = (parts[2], move)
    return best[1] if best else f"{src}-{dst}"


def draw_action(view: dict[str, Any]) -> str:
    """What space does: the legal one of draw and deal, else the one the variant has.

    Never ``redeal``: that spends a pass, and has its own key.
    """
    legal = _legal(view)
    for action in ("draw", "deal"):
        if action in legal:
            return action
    return "deal" if "phase" in view else "draw"  # Corner Stones deals instead of drawing


def redeals_left(view: dict[str, Any] | None) -> int | None:
    """Redeals the game still allows (the view's ``passes_left``), None when it does not say."""
    value = (view or {}).get("passes_left")
    return value if isinstance(value, int) and not isinstance(value, bool) else None


# -- the key handler ------------------------------------------------------------------
def press(ui: UI, key: str, *, mode: str, view: dict[str, Any] | None = None,
          ctx: Context | None = None) -> tuple[UI, list[Command]]:
    """Handle one key in ``mode`` (lobby, room, countdown, race, results)."""
    ctx = ctx or Context()
    if key == "c-c":
        return replace(ui, confirm="", text=None), [Command("quit")]
    if ui.text is not None:
        return text_key(ui, key)
    if ui.help:
        return replace(ui, help=False), []
    if ui.confirm:
        if key in ("y", "Y"):
            command = Command(ui.confirm)
            return replace(ui, confirm="", note=""), [command]
        return replace(ui, confirm="", note=""), []
    if key == "?":
        return replace(ui, help=True, help_top=0), []
    if mode == "lobby":
        return lobby_key(ui, key, ctx)
    if mode in ("room", "countdown"):
        if key == "r" and mode == "room":
            return replace(ui, note=""), [Command("ready")]
        if key == "l":
            return UI(), [Command("leave")]
        if key == "q":
            return ui, [Command("quit")]
        return ui, []
    if mode == "results":
        if key == "m":
            if ctx.daily:
                return replace(ui, note="a daily deal is played once a day: no rematch"), []
            return replace(ui, note="rematch accepted: it starts when everyone accepts"), [Command("rematch")]
        if key == "n" and not ctx.daily:
            return replace(ui, note="no rematch for you"), [Command("decline")]
        if key == "c" and ctx.share:
            note = "share line copied (if your terminal allows) and printed when you quit"
            return replace(ui, note=note), [Command("share", ctx.share)]
        if key == "b":  # today's board after a daily, else the ratings
            kind, variant = ("daily", ctx.variant) if ctx.daily and ctx.variant else ("rating", "")
            opened, commands = open_board(UI(), kind, variant)
            return opened, [Command("leave"), *commands]
        if key in ("l", "escape"):
            return UI(), [Command("leave")]
        if key == "q":
            return ui, [Command("quit")]
        return ui, []
    return _race_key(ui, key, view or {})


def _race_key(ui: UI, key: str, view: dict[str, Any]) -> tuple[UI, list[Command]]:
    legal = _legal(view)
    piles = _piles(view)
    clear = replace(ui, pending=None, want_foundation=False, note="")
    if key == "escape":
        return clear, []
    if key in (":", "enter"):
        return open_text(ui, "move"), []
    if key == " ":
        if "redeal" in legal and not any(m in legal for m in ("draw", "deal")):
            left = redeals_left(view)
            note = "the stock is empty: R turns the waste over" + (f" ({left} left)" if left else "")
            return replace(clear, note=note), []
        return clear, [Command("move", draw_action(view))]
    if key == "R":
        return clear, [Command("move", "redeal")]
    if key == "a":  # send every safe card home (client/home.py)
        if not view.get("safe_moves"):
            return replace(clear, note="no card is safe to send home yet"), []
        return clear, [Command("home")]
    if key == "n":
        return clear, [Command("move", "deal:round")]
    if key == "N":
        return clear, [Command("move", "deal:all")]
    if key == "X":
        return replace(clear, confirm="resign", note="resign this game? y to confirm"), []
    if key == "q":
        note = "quit? your seat is kept: run patience again to resume. y to quit"
        return replace(clear, confirm="quit", note=note), []

    if ui.want_foundation:
        if len(key) == 1 and key.isdigit() and f"f{key}" in piles:
            if ui.pending is None:
                if not any(m.startswith(f"f{key}-") for m in legal):  # foundation cards stay put
                    return replace(clear, note=f"no card can move from f{key}: pick a pile first"), []
                return replace(ui, pending=f"f{key}", want_foundation=False, note=""), []
            return clear, [Command("move", choose_move(ui.pending, f"f{key}", legal))]
        return replace(ui, want_foundation=False, note="press a foundation's number"), []
    if key == "f":
        if ui.pending is not None:
            options = sorted(t for t in targets(ui, view) if t.startswith("f"))
            if len(options) == 1:
                return clear, [Command("move", choose_move(ui.pending, options[0], legal))]
        return replace(ui, want_foundation=True, note="which foundation? press its number"), []

    pile = _tableau_for_key(key, view)
    if pile is None and key in ("w", "s"):
        pile = key
    if pile is None:
        if ui.pending is not None and key == "-":  # typing w-t3 after the w hotkey
            return open_text(ui, "move", f"{ui.pending}-"), []
        if len(key) == 1 and key.isalpha():
            return open_text(ui, "move", key), []
        return ui, []
    if ui.pending is None:
        note = "" if any(m.startswith(pile + "-") for m in legal) else f"no legal move from {pile}"
        return replace(ui, pending=pile, want_foundation=False, note=note), []
    if ui.pending == pile:
        return clear, []
    return clear, [Command("move", choose_move(ui.pending, pile, legal))]
