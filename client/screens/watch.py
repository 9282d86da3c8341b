"""Watching a race without a seat (``w`` in the lobby, then the room's code) (pure).

The spectate screen shows every player's counts, status and connection, and
the clock; never a card (the server sends a spectator none while the race
runs). ``l`` stops watching. The results follow as for a player.
"""

from __future__ import annotations

from typing import Any

from ..state import RaceState, players_of
from ..text import Out, clean, keys_line, player_name, plural
from ..ui import UI, Command
from ..variants import variant_name
from .base import At, Keys

__all__ = ["draw", "press", "watching"]


def watching(state: RaceState) -> bool:
    """The room on screen is one watched without a seat."""
    return state.watching is not None and state.watching == state.code


def press(ui: UI, key: str, at: At) -> Keys:
    if key in ("l", "escape"):
        return UI(), [Command("leave")]
    if key == "q":
        return ui, [Command("quit")]
    return ui, []


def draw(state: RaceState, ui: UI, out: Out, now: int) -> None:
    _watch(state, ui, out, now)


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _mmss(ms: int) -> str:
    s = max(ms, 0) // 1000
    return f"{s // 60:02d}:{s % 60:02d}"


def _watch(state: RaceState, ui: UI, out: Out, now: int) -> None:
    """Every player's counts, status and connection, and the clock: what the room shows its players."""
    room = state.room or {}
    starts, ends = _int(room.get("starts_at")), _int(room.get("ends_at"))
    if starts is None:
        clock = "waiting for the players to be ready"
    elif now < starts:
        clock = f"starting in {(starts - now + 999) // 1000}\u2026"
    else:
        clock = f"{_mmss((ends or now) - now)} left \u00b7 {_mmss(now - starts)} elapsed"
    title = ["Patience Race", "watching"]
    if room.get("variant"):
        title.append(clean(variant_name(state.variants, str(room["variant"])), 30))
    title.append(f"room {clean(state.code, 16)}")
    out.text(" " + " \u00b7 ".join(title), "class:title")
    out.text(" " + "\u2500" * max(out.width - 2, 0), "class:rule")
    out.text(f" {clock}", "class:clock")
    out.text()
    total_room = _int(room.get("total_cards")) or 0
    for p in players_of(state):
        n = p["player"]
        info = {**p, **state.progress.get(n, {})}
        done, total = _int(info.get("foundation_cards")) or 0, _int(info.get("total_cards")) or total_room
        status = "left" if info.get("left") else str(info.get("status") or "in_progress")
        status = {"in_progress": "racing", "dead": "stuck"}.get(status, clean(status, 14))
        online = "connected" if info.get("connected", True) else "disconnected"
        bar = max(10, min(30, out.width - 66))
        filled = min(bar, done * bar // total) if total else 0
        moves = _int(info.get("moves"))
        out.add(("", f"  {n} {player_name(info.get('name'), 16):<16} "),
                ("class:bar.done", "\u2588" * filled), ("class:bar.todo", "\u2591" * (bar - filled)),
                ("", f" {done:>3}/{total:<3} "), ("class:label", f"{status:<10}"),
                ("class:dim" if online == "connected" else "class:warn", f" {online:<12}"),
                ("class:dim", plural(moves, "move") if moves is not None else ""))
    out.text()
    out.text(" Counts only: no card is shown to a spectator while the race runs.", "class:dim")
    if state.notice:
        out.text(" " + clean(state.notice, 200), "class:error" if state.notice_error else "class:info")
    if ui.note:
        out.text(" " + ui.note, "class:hint")
    out.text(keys_line("l stop watching", "? help", "q quit"), "class:dim")
