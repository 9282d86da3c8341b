"""The client's screens: one module per screen, gathered in :data:`SCREENS` (pure).

:func:`screen_of` says which screen is up for a state and the UI state;
:func:`press` and :func:`render` hand a key and the drawing to it. What every
screen shares comes first in :func:`press`: Ctrl-C quits, a question waiting
for ``y`` takes the next key, the open input line takes every key
(client/screens/line.py), and ``?`` opens the help over any screen.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Final

from ..state import RaceState, is_solo, mode
from ..text import Out, Screen
from ..ui import UI, Command, Context
from . import (
    arena,
    boards,
    daily,
    devices,
    friends,
    games,
    help,
    kept,
    line,
    lobby,
    picker,
    profile,
    race,
    replay,
    results,
    room,
    solo,
    watch,
)
from .base import At, Keys, ScreenDef

__all__ = ["LOBBY_MENUS", "SCREENS", "press", "render", "screen_of"]

SCREENS: Final[dict[str, ScreenDef]] = {
    "lobby": ScreenDef(lobby.press, lobby.draw),
    "pick": ScreenDef(picker.press, picker.draw),
    "daily": ScreenDef(daily.press, daily.draw),
    "boards": ScreenDef(boards.press_menu, boards.draw_menu),
    "board": ScreenDef(boards.press_page, boards.draw_page),
    "profile": ScreenDef(profile.press, profile.draw),
    "arena": ScreenDef(arena.press, arena.draw),
    "devices": ScreenDef(devices.press, devices.draw),
    "friends": ScreenDef(friends.press, friends.draw),
    "codes": ScreenDef(devices.press_codes, devices.draw_codes),
    "room": ScreenDef(room.press, room.draw),
    "watch": ScreenDef(watch.press, watch.draw),
    "race": ScreenDef(race.press, race.draw),
    "solo": ScreenDef(solo.press, solo.draw),
    "results": ScreenDef(results.press, results.draw),
    "replay": ScreenDef(replay.press, replay.draw),
    "help": ScreenDef(help.press, help.draw),
    "games": ScreenDef(games.press, games.draw),
    "kept": ScreenDef(kept.press, kept.draw),
}

# the lobby's screens by ``UI.menu`` (any other menu is the main one)
LOBBY_MENUS: Final = {"main": "lobby", "pick": "pick", "daily": "daily", "boards": "boards",
                      "board": "board", "profile": "profile", "arenas": "arena", "devices": "devices",
                      "friends": "friends", "games": "games", "kept": "kept"}

_ASCII: Final = str.maketrans({"\u00b7": "-", "\u2026": "...", "\u2500": "-", "\u00d7": "x",
                               "\u2588": "#", "\u2591": "-"})


def screen_of(state: RaceState, ui: UI, current: str) -> str:
    """The screen up in ``current`` (a :func:`client.state.mode`): a key in :data:`SCREENS`."""
    if ui.help:
        return "help"
    if current == "lobby":
        if state.recovery_codes:  # shown once, before anything else, until Enter
            return "codes"
        return "arena" if arena.member(state) else LOBBY_MENUS.get(ui.menu, "lobby")
    if current in ("room", "countdown"):
        return "watch" if watch.watching(state) else "room"
    if current == "race":
        return "solo" if is_solo(state) else "race"
    return "replay" if state.replaying is not None else "results"


def press(ui: UI, key: str, *, mode: str, view: dict[str, Any] | None = None, ctx: Context | None = None,
          state: RaceState | None = None, size: tuple[int, int | None] = (80, None)) -> Keys:
    """Handle one key in ``mode`` (lobby, room, countdown, race, results)."""
    if key == "c-c":
        return replace(ui, confirm="", text=None), [Command("quit")]
    if ui.confirm:
        commands = [Command(ui.confirm)] if key in ("y", "Y") else []
        return replace(ui, confirm="", note=""), commands
    if ui.text is not None:
        return line.press(ui, key)
    if key == "?" and not ui.help:
        return replace(ui, help=True, help_top=0), []
    state = state if state is not None else RaceState()
    at = At(mode, view, ctx or Context(), state, size)
    return SCREENS[screen_of(state, ui, mode)].press(ui, key, at)


def render(state: RaceState, ui: UI, *, now_ms: int, width: int = 80, height: int | None = None,
           ascii_only: bool = False) -> Screen:
    """The whole screen for this state (``now_ms`` is the local clock), at most ``width`` cells wide.

    With ``height``, spacer lines give way so that the screen fits.
    """
    out = Out(max(width, 40), height, ascii_only)
    SCREENS[screen_of(state, ui, mode(state))].draw(state, ui, out, state.server_now(now_ms))
    screen = out.screen()
    if not ascii_only:
        return screen
    return tuple(tuple((style, text.translate(_ASCII)) for style, text in row) for row in screen)
