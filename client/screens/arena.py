"""The arenas: their list, and the live standing of the one the connection is in (pure).

* lobby ``a``: the arenas the server lists (to come, running, finished ones
  kept); a number (or Enter) joins one, or shows a finished one's final
  standing; ``r`` asks again; Esc goes back.
* while the connection is in an arena, the lobby *is* the arena's standing:
  the first lines, the player's own, the clock. The server moves the player
  into each race it pairs (the race screens as usual); after a race's
  results, Esc (or ``l``) comes back here and the next pairing follows.
  ``l`` (or Esc) leaves the arena, ``r`` asks for the standing again.
* the membership is the connection's: after a reconnect the session joins
  the arena again by itself (client/connection.py, on the new ``welcome``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Final

from ..state import RaceState
from ..text import Out, clean, keys_line, plural
from ..ui import UI, Command
from ..variants import variant_name
from .base import At, Keys

__all__ = ["draw", "member", "press"]

SHOWN: Final = 9  # arenas on the list screen (one key each)
_BACK: Final = ("escape", "backspace", "left", "h")


def member(state: RaceState) -> bool:
    """The connection is in an arena (the lobby shows its standing)."""
    return state.arena is not None and state.arena.get("member") is True


def _listed(state: RaceState) -> list[dict[str, Any]]:
    return [a for a in state.arenas if isinstance(a, dict) and isinstance(a.get("id"), str)][:SHOWN]


def press(ui: UI, key: str, at: At) -> Keys:
    """The standing while the connection is in an arena, else the list."""
    state = at.state
    if key == "q":
        return ui, [Command("quit")]
    if member(state):
        arena = state.arena or {}
        if key in ("l", *_BACK):
            return replace(ui, menu="main", cursor=0, note=""), [Command("arena_leave")]
        if key == "r":
            return replace(ui, note=""), [Command("arena_info", str(arena.get("id", "")))]
        return ui, []
    listed = _listed(state)
    if key in _BACK:
        return replace(ui, menu="main", cursor=0, note=""), []
    if key == "r":
        return replace(ui, note=""), [Command("arenas")]
    if key in ("up", "k", "down", "j", "tab") and listed:
        step = -1 if key in ("up", "k") else 1
        return replace(ui, cursor=(ui.cursor + step) % len(listed)), []
    chosen: int | None = None
    if key == "enter" and listed:
        chosen = ui.cursor % len(listed)
    elif len(key) == 1 and key.isdigit() and 1 <= int(key) <= len(listed):
        chosen = int(key) - 1
    if chosen is None:
        return ui, []
    picked = listed[chosen]
    if picked.get("phase") == "finished":
        return replace(ui, note="its final standing"), [Command("arena_info", picked["id"])]
    return replace(ui, note=f"joining {clean(picked.get('name'), 30)}"), [Command("arena_join", picked["id"])]


# -- drawing -------------------------------------------------------------------------------
def draw(state: RaceState, ui: UI, out: Out, now: int) -> None:
    shown = state.arena if state.arena is not None and ui.menu == "arenas" else None
    if member(state) or (shown is not None and shown.get("phase") == "finished"):
        _standing(state, ui, out, now)
    else:
        _list(state, ui, out, now)


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _mmss(ms: int) -> str:
    s = max(ms, 0) // 1000
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60:02d}:{s % 60:02d}"


def _when(arena: dict[str, Any], now: int) -> str:
    phase = arena.get("phase")
    if phase == "upcoming":
        return f"starts in {_mmss(_int(arena.get('starts_at')) - now)}"
    if phase == "running":
        return f"{_mmss(_int(arena.get('ends_at')) - now)} left"
    if phase == "closing":
        return "over: its last races are finishing"
    return "final standing"


def _title(out: Out, *parts: str) -> None:
    out.text(" " + " \u00b7 ".join(["Patience Race", *parts]), "class:title")
    out.text(" " + "\u2500" * max(out.width - 2, 0), "class:rule")


def _tail(state: RaceState, ui: UI, out: Out) -> None:
    if state.notice:
        out.text(" " + clean(state.notice, 200), "class:error" if state.notice_error else "class:info")
    if ui.note:
        out.text(" " + clean(ui.note, 200), "class:hint")


def _list(state: RaceState, ui: UI, out: Out, now: int) -> None:
    _title(out, "arenas")
    out.text(" Timed events of one variant: after each race you are paired again at once.", "class:dim")
    out.text()
    listed = _listed(state)
    if not listed:
        out.text("  no arena is listed on this server now (its operator makes them)", "class:dim")
    for i, arena in enumerate(listed):
        style = "class:cursorline" if i == ui.cursor % max(len(listed), 1) else ""
        name = clean(arena.get("name") or variant_name(state.variants, str(arena.get("variant"))), 28)
        out.add((style, f"  {i + 1}  {name:<28} "), ("class:label", f"{clean(arena.get('phase'), 9):<9} "),
                ("", f"{_when(arena, now):<22} "),
                ("class:dim", plural(_int(arena.get("players")), "player")))
    out.text()
    _tail(state, ui, out)
    out.text(keys_line("Enter or a number to join", "r refresh", "Esc back", "? help"), "class:dim")


def _line(entry: dict[str, Any]) -> str:
    fire = " *" if entry.get("fire") else ""
    points, races, wins = (_int(entry.get(k)) for k in ("points", "races", "wins"))
    return (f"  {_int(entry.get('rank')):>3}  {clean(entry.get('name'), 24):<24} "
            f"{points:>6} {races:>6} {wins:>5}{fire}")


def _standing(state: RaceState, ui: UI, out: Out, now: int) -> None:
    arena = state.arena or {}
    name = clean(arena.get("name") or variant_name(state.variants, str(arena.get("variant"))), 30)
    _title(out, "arena", name, _when(arena, now))
    me = arena.get("me") if isinstance(arena.get("me"), dict) else None
    if me is not None:
        fire = " \u00b7 on fire: your next win counts double" if me.get("fire") else ""
        counts = [plural(_int(me.get(k)), k[:-1]) for k in ("points", "races", "wins")]
        out.text(f" you: #{_int(me.get('rank'))} \u00b7 " + " \u00b7 ".join(counts) + fire, "class:info")
    phase = arena.get("phase")
    if not member(state):
        out.text(" You are not in this arena.", "class:dim")
    elif phase == "running":
        out.text(" Waiting for the next pairing: the race starts by itself.", "class:dim")
    elif phase == "upcoming":
        out.text(" You are in: the first pairing comes when the arena starts.", "class:dim")
    out.text()
    out.text(f"  {'#':>3}  {'name':<24} {'points':>6} {'races':>6} {'wins':>5}", "class:label")
    for entry in arena.get("top") or ():
        if isinstance(entry, dict):
            out.text(_line(entry))
    players = _int(arena.get("players"))
    if players > len(arena.get("top") or ()):
        out.text(f"  ... {plural(players, 'player')} in all", "class:dim")
    out.text(" win 2 points, 4 after two wins in a row (*); first by cards when nobody won 1", "class:dim")
    _tail(state, ui, out)
    if member(state):
        out.text(keys_line("l leave the arena", "r refresh", "? help", "q quit"), "class:dim")
    else:
        out.text(keys_line("Esc back", "? help", "q quit"), "class:dim")
