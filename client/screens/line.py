"""The input line: typing, and what Enter does for each thing it asks for (pure).

A screen opens the line (:func:`client.ui.open_text`) with a purpose; while it is
open every key comes here. :data:`ENTER` holds what Enter does for each purpose.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from typing import Final

from ..text import Out, clean
from ..ui import MAX_NAME, UI, Command
from .base import Keys
from .friendline import ENTER as FRIEND_ENTER
from .friendline import PROMPTS as FRIEND_PROMPTS

__all__ = ["ENTER", "MAX_TEXT", "PROMPTS", "draw_prompt", "ghost_target", "open_report", "press"]

MAX_TEXT: Final = 32
_GHOST_TEXT: Final = re.compile(r"\s*([A-Za-z0-9]{1,16})(?:\s*[\s.#:]\s*([1-8]))?\s*")

PROMPTS: Final = {
    "move": "move: ",
    "code": "room code: ",
    "players": "players (2-8, Enter for 2): ",
    "name": "name to claim (Enter claims it): ",
    "deal": "deal number (PySolFC's; Enter for a random one): ",
    "watch": "room code to watch: ",
    "ghost": "room code of a finished race (then a player's number, else 1st place): ",
    "link_name": "name to link this device to: ",
    "link": "link code (from a device that plays the name): ",
    "recover_name": "name to recover: ",
    "recover": "recovery code: ",
    "revoke": "number of the device to revoke: ",
    "profile": "whose profile (a name): ",
    "report_name": "report whom (a name from the results): ",
    "report_reason": "why: 1 cheating, 2 offensive name, 3 abuse, 4 other: ",
    "report_text": "in a few words (Enter sends the report, Esc cancels): ",
    **FRIEND_PROMPTS,
}
REPORT_REASONS: Final = {"1": "cheating", "2": "offensive_name", "3": "abuse", "4": "other"}


def open_report(ui: UI, name: str, room: str = "") -> UI:
    """Ask why ``name`` is reported (from a profile, or a race's ``room``), then its words."""
    return replace(ui, text="", text_purpose="report_reason", target=f"{name}\t{room}", note="")


def ghost_target(text: str) -> tuple[str, int] | None:
    """``CODE`` or ``CODE 2`` (also ``CODE.2``, ``CODE#2``): the room and player (0: its first place)."""
    found = _GHOST_TEXT.fullmatch(text)
    if found is None:
        return None
    return found.group(1).upper(), int(found.group(2) or 0)


def _closed(ui: UI) -> UI:
    return replace(ui, text=None, text_purpose="")


def _move(ui: UI, value: str) -> Keys:
    return _closed(ui), [Command("move", value.lower())] if value else []


def _code(ui: UI, value: str) -> Keys:
    if not value:
        return _closed(ui), []
    return replace(_closed(ui), menu="main"), [Command("join", value.upper())]


def _name(ui: UI, value: str) -> Keys:
    if not value:
        return _closed(ui), []
    if len(value) > MAX_NAME:
        return replace(ui, note=f"a name has 1 to {MAX_NAME} characters"), []
    return replace(_closed(ui), note=""), [Command("claim", value)]


def _players(ui: UI, value: str) -> Keys:
    value = value or "2"
    if not value.isdigit() or not 2 <= int(value) <= 8:
        return replace(ui, text="", note="a room takes 2 to 8 players"), []
    return replace(_closed(ui), menu="main", note=""), [Command("create", ui.variant, int(value))]


def _profile(ui: UI, value: str) -> Keys:
    if not value:
        return _closed(ui), []
    return replace(_closed(ui), menu="profile", note=""), [Command("profile", value[:MAX_NAME])]


def _report_name(ui: UI, value: str) -> Keys:
    if not value:
        return replace(_closed(ui), target=""), []
    if len(value) > MAX_NAME:
        return replace(ui, note=f"a name has 1 to {MAX_NAME} characters"), []
    return open_report(ui, value, ui.target), []


def _report_reason(ui: UI, value: str) -> Keys:
    if not value:
        return replace(_closed(ui), target=""), []
    if value not in REPORT_REASONS:
        return replace(ui, text="", note="1, 2, 3 or 4"), []
    return replace(ui, text="", text_purpose="report_text", target=f"{ui.target}\t{REPORT_REASONS[value]}",
                   note=""), []


def _report_text(ui: UI, value: str) -> Keys:
    name, room, reason = (ui.target.split("\t") + ["", "", ""])[:3]
    note = f"reporting {clean(name, MAX_NAME)} to the moderators\u2026"
    return replace(_closed(ui), target="", note=note), [Command("report", value, kind=reason,
                                                                scope=f"{name}\t{room}")]


def _back_to_menu(ui: UI) -> UI:
    return replace(_closed(ui), menu="main", cursor=0)


STARTING_SOLO: Final = "starting a solo game\u2026"


def _deal(ui: UI, value: str) -> Keys:
    """A solo game's deal number (empty: a random deal). The line stays open
    until the game starts: a number the server refuses is there to correct,
    under the server's answer (which replaces the waiting note)."""
    if ui.note == STARTING_SOLO:
        return ui, []  # asked already: the answer is on its way
    return replace(ui, note=STARTING_SOLO), [Command("solo", ui.variant, kind=value)]


def _watch(ui: UI, value: str) -> Keys:
    if not value:
        return _back_to_menu(ui), []
    code = value.upper()
    return replace(_back_to_menu(ui), note=f"watching room {clean(code, 16)}"), [Command("watch", code)]


def _ghost(ui: UI, value: str) -> Keys:
    if not value:
        return _back_to_menu(ui), []
    target = ghost_target(value)
    if target is None:
        note = "a room code, then a player's number if not its first place (e.g. ABC234 2)"
        return replace(ui, note=note), []
    code, n = target
    return replace(_back_to_menu(ui), note=f"racing a ghost of room {code}"), [Command("ghost", code, n)]


def _redeem_name(how: str) -> Callable[[UI, str], Keys]:
    """The name a link or recovery code is for; the code comes next."""
    def named(ui: UI, value: str) -> Keys:
        if not value:
            return _closed(ui), []
        if len(value) > MAX_NAME:
            return replace(ui, note=f"a name has 1 to {MAX_NAME} characters"), []
        return replace(ui, text="", text_purpose=how, target=value, note=""), []
    return named


def _redeem(ui: UI, value: str) -> Keys:
    if not value:
        return replace(_closed(ui), target=""), []
    how = ui.text_purpose
    return replace(_closed(ui), target="", note=""), [Command("redeem", value, kind=how, scope=ui.target)]


def _revoke(ui: UI, value: str) -> Keys:
    if not value:
        return _closed(ui), []
    if not value.isdigit() or not 1 <= int(value) <= 10:
        return replace(ui, text="", note="the device's number in the list"), []
    return replace(_closed(ui), note=""), [Command("revoke", num=int(value))]


ENTER: Final[dict[str, Callable[[UI, str], Keys]]] = {
    "link_name": _redeem_name("link"),
    "link": _redeem,
    "recover_name": _redeem_name("recover"),
    "recover": _redeem,
    "revoke": _revoke,
    "move": _move,
    "code": _code,
    "name": _name,
    "players": _players,
    "deal": _deal,
    "watch": _watch,
    "ghost": _ghost,
    "profile": _profile,
    "report_name": _report_name,
    "report_reason": _report_reason,
    "report_text": _report_text,
    **FRIEND_ENTER,
}


def press(ui: UI, key: str) -> Keys:
    """A key while the line is open: edit it, close it (Esc), or hand it over (Enter)."""
    text = ui.text or ""
    if key == "escape":
        return _closed(ui), []
    if key == "backspace":
        return replace(ui, text=text[:-1]), []
    if key == "enter":
        done = ENTER.get(ui.text_purpose)
        return done(ui, text.strip()) if done is not None else (_closed(ui), [])
    if len(key) == 1 and key.isprintable() and len(text) < MAX_TEXT:
        return replace(ui, text=text + key), []
    return ui, []


def draw_prompt(ui: UI, out: Out) -> None:
    if ui.text is not None:
        out.add(("class:prompt", " " + PROMPTS.get(ui.text_purpose, "> ")), ("", clean(ui.text)),
                ("class:cursor", " "))
