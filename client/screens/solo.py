"""A solo game: the race screen, with ``u`` to undo the last move (the server
records the undo) and ``h`` to ask the server for a hint (a move that keeps the
game winnable, when its solver finds one quickly). Races and the daily have
neither (pure)."""

from __future__ import annotations

from dataclasses import replace

from ..state import RaceState
from ..text import Out
from ..ui import UI, Command
from . import race
from .base import At, Keys

__all__ = ["draw", "press"]


def press(ui: UI, key: str, at: At) -> Keys:
    if not ui.want_foundation:  # after f, a key names a foundation
        if key == "u":
            return replace(ui, pending=None, note=""), [Command("undo")]
        if key == "h":
            return replace(ui, pending=None, note="asking the server for a hint\u2026"), [Command("hint")]
    return race.press(ui, key, at)


def draw(state: RaceState, ui: UI, out: Out, now: int) -> None:
    race.draw(state, ui, out, now)  # the race's key line names undo and hint in a solo game
