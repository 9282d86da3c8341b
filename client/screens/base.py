"""What a screen is: a key handler and a drawing, and what a key is given (pure)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from ..state import RaceState
from ..text import Out
from ..ui import UI, Command, Context

__all__ = ["At", "Draw", "Keys", "Press", "ScreenDef"]


class At(NamedTuple):
    """What a key may depend on besides the UI state."""

    mode: str  # lobby, room, countdown, race or results (client/state.py's mode)
    view: dict[str, Any] | None  # the player's own position
    ctx: Context
    state: RaceState
    size: tuple[int, int | None]  # the terminal's columns and rows (None: no limit)


Keys = tuple[UI, list[Command]]  # the new UI state and what the session is to do
Press = Callable[[UI, str, At], Keys]
Draw = Callable[[RaceState, UI, Out, int], None]  # the int: now, on the server's clock


class ScreenDef(NamedTuple):
    """One screen: its keys and its drawing."""

    press: Press
    draw: Draw
