"""A kept game replayed from a name's history, move by move (pure).

As the results' replay (client/screens/replay.py), the client draws the view
the server sends for a move index (``game_replay``); it holds no rules. Keys:
right, ``.`` or space the next move; left or ``,`` the one before; ``b`` /
``e`` the deal / the last move; ``g`` races the game as a ghost; Esc goes
back to the games list.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Final

from ..board import Board, draw_board
from ..state import RaceState
from ..text import Out, clean, keys_line
from ..ui import UI, Command
from .base import At, Keys
from .chrome import num, step_line

__all__ = ["draw", "press"]

END: Final = 2**31 - 1  # "the last move": the server answers with the record's last index


def _on_screen(state: RaceState) -> dict[str, Any]:
    return state.kept or {}


def press(ui: UI, key: str, at: At) -> Keys:
    r = _on_screen(at.state)
    name, code = r.get("name"), r.get("code")
    if key in ("escape", "backspace"):
        return replace(ui, menu="games", note=""), []
    if not isinstance(name, str) or not isinstance(code, str):
        return ui, []
    index, total = num(r.get("index")) or 0, num(r.get("total"))
    if key in ("right", ".", " ", "l"):
        if total is not None and index >= total:
            return replace(ui, note="that was the last move"), []
        return replace(ui, note=""), [Command("game_replay", code, index + 1, scope=name)]
    if key in ("left", ",", "h"):
        if index <= 0:
            return replace(ui, note="this is the deal"), []
        return replace(ui, note=""), [Command("game_replay", code, index - 1, scope=name)]
    if key == "b":
        return replace(ui, note=""), [Command("game_replay", code, 0, scope=name)]
    if key == "e":
        return replace(ui, note=""), [Command("game_replay", code, END, scope=name)]
    if key == "g":
        return replace(ui, note=f"racing this game of {clean(name, 24)} as a ghost"), \
            [Command("game_ghost", code, scope=name)]
    if key == "q":
        return ui, [Command("quit")]
    return ui, []


def draw(state: RaceState, ui: UI, out: Out, now: int) -> None:
    r = _on_screen(state)
    dot = " - " if out.ascii else " \u00b7 "
    parts = ["Patience Race", "Replay", f"{clean(r.get('name'), 24)}'s game {clean(r.get('code'), 16)}"]
    out.text(" " + dot.join(parts), "class:title")
    out.text(" " + ("-" if out.ascii else "\u2500") * max(out.width - 2, 0), "class:rule")
    view = r.get("view")
    if not isinstance(view, dict):
        out.text(" asking the server for the game\u2026" if not out.ascii else " asking the server...",
                 "class:dim")
    else:
        index, total = num(r.get("index")) or 0, num(r.get("total"))
        head = " " + ("the deal" if index == 0 else f"after move {index}") + \
            (f" of {total}" if total is not None else "")
        head += step_line(r, view, index, dot)
        out.text(head, "class:info")
        out.text()
        room = None if out.height is None else out.height - 9
        draw_board(Board(view, UI(), out.ascii), out, room)
    out.text()
    if ui.note:
        out.text(" " + ui.note, "class:hint")
    if state.notice:
        out.text(" " + clean(state.notice, 200), "class:error" if state.notice_error else "class:info")
    out.text(keys_line("left/right step", "b/e deal/end", "g race it as a ghost", "Esc games"), "class:dim")
