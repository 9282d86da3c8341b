"""Which key names which pile, and the move text two piles make (pure).

The race screen's keys (client/screens/race.py) and the board's drawing
(client/board.py) share these: the hotkeys ``1``..``9``, ``0``, ``-``, ``=`` name
``t1``..``t12``; the legal targets of a selected pile come from the view's
``legal_moves``.

Keys are plain strings: a printable character, or ``enter``, ``escape``,
``backspace``, ``up``, ``down``, ``left``, ``right``, ``tab``, ``c-c``.
"""

from __future__ import annotations

from typing import Any, Final

from .state import BOARD_PAGE

# the UI names are kept importable from here, where the key handling used to live
from .ui import BOARD_ITEMS, LOBBY_ITEMS, UI, Command, Context, context_of, settle

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
    "legal_moves",
    "pile_key",
    "piles_of",
    "redeals_left",
    "settle",
    "tableau_for_key",
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


def tableau_for_key(key: str, view: dict[str, Any]) -> str | None:
    if len(key) != 1 or key not in TABLEAU_KEYS:
        return None
    pile = f"t{TABLEAU_KEYS.index(key) + 1}"
    return pile if pile in piles_of(view) else None


def piles_of(view: dict[str, Any]) -> dict[str, Any]:
    piles = view.get("piles")
    return piles if isinstance(piles, dict) else {}


def legal_moves(view: dict[str, Any]) -> list[str]:
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
    for move in legal_moves(view):
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
    legal = legal_moves(view)
    for action in ("draw", "deal"):
        if action in legal:
            return action
    return "deal" if "phase" in view else "draw"  # Corner Stones deals instead of drawing


def redeals_left(view: dict[str, Any] | None) -> int | None:
    """Redeals the game still allows (the view's ``passes_left``), None when it does not say."""
    value = (view or {}).get("passes_left")
    return value if isinstance(value, int) and not isinstance(value, bool) else None
