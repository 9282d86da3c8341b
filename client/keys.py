"""Key presses -> move text and UI actions (pure: no terminal, no network).

On the board a move is two keys, the source pile then the target, using the
hotkeys drawn on the board: ``1``..``9``, ``0``, ``-``, ``=`` for ``t1``..``t12``,
``w`` the waste, ``s`` the stock top, and ``f`` for a foundation (``f`` alone
picks the one foundation the server lists as legal; otherwise a digit names
it). After the first key the legal targets from the view's ``legal_moves`` are
highlighted. A target that is not legal is still sent: the server says why.
The move text can be typed too: ``:`` (or Enter, or any letter that is not a
hotkey) opens the input line. Space draws, deals or redeals; ``n``/``N`` deal a
round or everything (Corner Stones).

Keys are plain strings: a printable character, or ``enter``, ``escape``,
``backspace``, ``up``, ``down``, ``left``, ``right``, ``tab``, ``c-c``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Final, NamedTuple

from .variants import VARIANTS

__all__ = [
    "LOBBY_ITEMS",
    "TABLEAU_KEYS",
    "UI",
    "Command",
    "choose_move",
    "draw_action",
    "pile_key",
    "press",
    "settle",
    "targets",
]

TABLEAU_KEYS: Final = "1234567890-="  # t1..t12
LOBBY_ITEMS: Final = (
    ("1", "Quick race", "race whoever picks the same variant next"),
    ("2", "Create a private room", "get a code to share with friends"),
    ("3", "Join by code", "enter the code a friend gave you"),
    ("4", "Variants and rules", "a paragraph on each game"),
    ("q", "Quit", ""),
)
MAX_TEXT: Final = 32


class Command(NamedTuple):
    """Something for the session to do: ``move``, ``quick``, ``create``, ``join``,
    ``ready``, ``leave``, ``rematch``, ``resign`` or ``quit``."""

    name: str
    arg: str = ""
    num: int = 0


@dataclass(frozen=True)
class UI:
    """The client's own interface state (menus, selection, input line)."""

    menu: str = "main"  # lobby: main | pick
    purpose: str = ""  # pick: quick | create | browse
    cursor: int = 0
    variant: str = ""  # the variant picked for create
    pending: str | None = None  # the selected source pile
    want_foundation: bool = False  # after ``f``: a digit names the foundation
    text: str | None = None  # the input line, None when closed
    text_purpose: str = ""  # move | code | players
    help: bool = False
    confirm: str = ""  # resign | quit: waiting for y
    note: str = ""  # a local hint


def settle(ui: UI) -> UI:
    """The UI state for a new screen (lobby -> room -> race -> results): no stale selection."""
    return replace(ui, menu="main", cursor=0, pending=None, want_foundation=False, confirm="", note="",
                   text=None, text_purpose="")


# -- pile names and legal moves ---------------------------------------------------
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
    """What space does: the legal one of draw, deal, redeal (else a sensible guess)."""
    legal = _legal(view)
    for action in ("draw", "deal", "redeal"):
        if action in legal:
            return action
    if "phase" in view:  # Corner Stones deals instead of drawing
        return "deal"
    stock = view.get("stock_count")
    return "redeal" if stock == 0 and view.get("waste_count") else "draw"


# -- the key handler ------------------------------------------------------------------
def press(ui: UI, key: str, *, mode: str, view: dict[str, Any] | None = None) -> tuple[UI, list[Command]]:
    """Handle one key in ``mode`` (lobby, room, countdown, race, results)."""
    if key == "c-c":
        return replace(ui, confirm="", text=None), [Command("quit")]
    if ui.text is not None:
        return _text_key(ui, key)
    if ui.help:
        return replace(ui, help=False), []
    if ui.confirm:
        if key in ("y", "Y"):
            command = Command(ui.confirm)
            return replace(ui, confirm="", note=""), [command]
        return replace(ui, confirm="", note=""), []
    if key == "?":
        return replace(ui, help=True), []
    if mode == "lobby":
        return _lobby_key(ui, key)
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
            return replace(ui, note="asked for a rematch"), [Command("rematch")]
        if key in ("l", "escape"):
            return UI(), [Command("leave")]
        if key == "q":
            return ui, [Command("quit")]
        return ui, []
    return _race_key(ui, key, view or {})


def _open_text(ui: UI, purpose: str, text: str = "") -> UI:
    return replace(ui, text=text, text_purpose=purpose, pending=None, want_foundation=False, note="")


def _text_key(ui: UI, key: str) -> tuple[UI, list[Command]]:
    text = ui.text or ""
    if key == "escape":
        return replace(ui, text=None, text_purpose=""), []
    if key == "backspace":
        return replace(ui, text=text[:-1]), []
    if key == "enter":
        closed = replace(ui, text=None, text_purpose="")
        value = text.strip()
        if ui.text_purpose == "move":
            return closed, [Command("move", value.lower())] if value else []
        if ui.text_purpose == "code":
            if not value:
                return closed, []
            return replace(closed, menu="main"), [Command("join", value.upper())]
        if ui.text_purpose == "players":
            value = value or "2"
            if not value.isdigit() or not 2 <= int(value) <= 8:
                return replace(ui, text="", note="a room takes 2 to 8 players"), []
            return replace(closed, menu="main", note=""), [Command("create", ui.variant, int(value))]
        return closed, []
    if len(key) == 1 and key.isprintable() and len(text) < MAX_TEXT:
        return replace(ui, text=text + key), []
    return ui, []


def _lobby_key(ui: UI, key: str) -> tuple[UI, list[Command]]:
    if ui.menu == "pick":
        count = len(VARIANTS)
        if key in ("escape", "backspace", "left", "h"):
            return replace(ui, menu="main", cursor=0), []
        if key in ("up", "k"):
            return replace(ui, cursor=(ui.cursor - 1) % count), []
        if key in ("down", "j", "tab"):
            return replace(ui, cursor=(ui.cursor + 1) % count), []
        chosen: int | None = None
        if key == "enter":
            chosen = ui.cursor
        elif len(key) == 1 and key.isdigit() and 1 <= int(key) <= count:
            chosen = int(key) - 1
        if chosen is None:
            return ui, []
        variant = VARIANTS[chosen].id
        if ui.purpose == "quick":
            return replace(ui, menu="main", cursor=0), [Command("quick", variant)]
        if ui.purpose == "create":
            return replace(_open_text(ui, "players"), variant=variant, cursor=chosen), []
        return replace(ui, cursor=chosen), []  # browsing: move the cursor only
    # the main menu
    items = [item[0] for item in LOBBY_ITEMS]
    if key in ("up", "k"):
        return replace(ui, cursor=(ui.cursor - 1) % len(items)), []
    if key in ("down", "j", "tab"):
        return replace(ui, cursor=(ui.cursor + 1) % len(items)), []
    if key == "enter":
        key = items[ui.cursor]
    if key in ("q", "escape"):
        return ui, [Command("quit")]
    if key == "1":
        return replace(ui, menu="pick", purpose="quick", cursor=0, note=""), []
    if key == "2":
        return replace(ui, menu="pick", purpose="create", cursor=0, note=""), []
    if key == "3":
        return _open_text(ui, "code"), []
    if key == "4":
        return replace(ui, menu="pick", purpose="browse", cursor=0, note=""), []
    return ui, []


def _race_key(ui: UI, key: str, view: dict[str, Any]) -> tuple[UI, list[Command]]:
    legal = _legal(view)
    piles = _piles(view)
    clear = replace(ui, pending=None, want_foundation=False, note="")
    if key == "escape":
        return clear, []
    if key in (":", "enter"):
        return _open_text(ui, "move"), []
    if key == " ":
        return clear, [Command("move", draw_action(view))]
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
            return _open_text(ui, "move", f"{ui.pending}-"), []
        if len(key) == 1 and key.isalpha():
            return _open_text(ui, "move", key), []
        return ui, []
    if ui.pending is None:
        note = "" if any(m.startswith(pile + "-") for m in legal) else f"no legal move from {pile}"
        return replace(ui, pending=pile, want_foundation=False, note=note), []
    if ui.pending == pile:
        return clear, []
    return clear, [Command("move", choose_move(ui.pending, pile, legal))]
