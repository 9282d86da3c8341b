"""The room before a race: who is in and ready, then the countdown; a daily's own
room says whether the attempt is ranked (pure)."""

from __future__ import annotations

from dataclasses import replace

from ..state import RaceState, mode, players_of
from ..text import Out, bot_tag, clean, player_name, width_of
from ..ui import UI, Command
from ..variants import variant_name
from .base import At, Keys
from .chrome import clock, header, notices, num, offline, practice_reason, ranked

__all__ = ["draw", "press"]


def press(ui: UI, key: str, at: At) -> Keys:
    if key == "r" and at.mode == "room":
        return replace(ui, note=""), [Command("ready")]
    if key == "l":
        return UI(), [Command("leave")]
    if key == "q":
        return ui, [Command("quit")]
    return ui, []


def draw(state: RaceState, ui: UI, out: Out, now: int) -> None:
    countdown = mode(state) == "countdown"
    header(state, out, clock(state, now) if countdown else [])
    _room(state, out, now, countdown)
    notices(state, ui, out)


def _daily_room(state: RaceState, out: Out, now: int, countdown: bool) -> None:
    room = state.room or {}
    variant = clean(variant_name(state.variants, str(room.get("variant", ""))), 30)
    info = state.daily_info.get(str(room.get("variant")), {})
    day = num(info.get("day")) if info.get("date") == room.get("daily") else None
    out.text(f" Today's challenge \u00b7 {variant}" + (f" \u00b7 day #{day}" if day else "")
             + f" \u00b7 {clean(room.get('daily', ''), 10)}", "class:title")
    if ranked(state):
        out.text(" Ranked attempt: your result goes on today's board.", "class:info")
    else:
        out.text(f" Practice: {practice_reason(state)}.", "class:warn")
    out.text()
    if countdown:
        starts = num(room.get("starts_at"))
        left = (starts - now + 999) // 1000 if starts is not None else None
        text = f"   Starting in {left}\u2026" if left is not None and left > 0 else "   Go!"
        out.text(text, "class:countdown")
        out.text()
        return
    out.text(" You play alone, against the clock and everyone else's result.")
    out.text()
    out.text(" r start \u00b7 l leave \u00b7 q quit \u00b7 ? help", "class:dim")


def _room(state: RaceState, out: Out, now: int, countdown: bool) -> None:
    room = state.room or {}
    if room.get("daily"):
        _daily_room(state, out, now, countdown)
        return
    if countdown:
        starts = num(room.get("starts_at"))
        left = (starts - now + 999) // 1000 if starts is not None else None
        out.text()
        if left is not None and left > 0:
            out.text(f"   Starting in {left}\u2026", "class:countdown")
        else:
            out.text("   Go!", "class:countdown")
        out.text()
    else:
        private = room.get("private")
        if state.code:
            if private is False:
                out.text(f" Public room {clean(state.code, 16)}: waiting for players", "class:title")
            else:
                out.add(("", " Share this code: "), ("class:code", f" {clean(state.code, 16)} "))
        out.text()
    maximum = num(room.get("players_max"))
    seats = players_of(state)
    seated = len([p for p in seats if not p.get("ghost")])  # a ghost takes no seat of the room's
    out.text(f" Players ({seated}" + (f" of {maximum})" if maximum else ")")
             + (" and a ghost" if seated < len(seats) else ""), "class:title")
    for p in seats:
        n = p["player"]
        ready = p.get("ready")
        flag = "ready" if ready else ("not ready" if ready is False else "")
        if p.get("left"):
            flag = "left"
        elif offline(p):
            flag = "disconnected"
        me = " (you)" if n == state.me else ""
        who = player_name(p.get("name"), 24) + bot_tag(p) + me
        out.add(("", f"   {n}  "), ("class:me" if me else "", who + " " * max(30 - width_of(who), 1)),
                ("class:dim", flag))
    out.text()
    if not countdown:
        out.text(" r ready \u00b7 l leave \u00b7 q quit \u00b7 ? help", "class:dim")
