"""Watching a race, racing a ghost and replaying games, in the client.

:func:`press` sits in front of :func:`client.solo.press` (which sits in front
of :func:`client.keys.press`) and takes the keys these features add:

* lobby ``w``: watch a race; type its room code, Enter. The spectate screen
  shows every player's counts, status and connection, and the clock; never
  a card (the server sends a spectator none while the race runs). ``l``
  stops watching. The results follow as for a player.
* lobby ``g``: race a ghost; type a finished race's room code (and, after a
  space, a player's number; else its winner is the ghost), Enter. The
  ghost's progress comes at the times it was played, like an opponent's.
* on a results screen: ``v`` replays the games move by move
  (:mod:`client.replay`), ``g`` races this race's winner as a ghost.

:func:`render` draws the spectate and replay screens and leaves every other
screen to :func:`client.screen.render`.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Final

from . import replay
from .keys import LOBBY_ITEMS, UI, Command, Context
from .screen import render as render_screen
from .solo import press as press_solo
from .state import RaceState, mode, players_of
from .text import Out, Screen, clean, keys_line, player_name, plural
from .variants import variant_name

if TYPE_CHECKING:
    from .connection import ClientSession

__all__ = ["GHOST_KEY", "WATCH_KEY", "ghost_target", "press", "render", "run"]

WATCH_KEY: Final = "w"
GHOST_KEY: Final = "g"
_GHOST_TEXT: Final = re.compile(r"\s*([A-Za-z0-9]{1,16})(?:\s*[\s.#:]\s*([1-8]))?\s*")
_ASCII: Final = str.maketrans({"\u00b7": "-", "\u2026": "...", "\u2500": "-", "\u2588": "#",
                               "\u2591": "-"})


def ghost_target(text: str) -> tuple[str, int] | None:
    """``CODE`` or ``CODE 2`` (also ``CODE.2``, ``CODE#2``): the room and player (0: its winner)."""
    found = _GHOST_TEXT.fullmatch(text)
    if found is None:
        return None
    return found.group(1).upper(), int(found.group(2) or 0)


def _watching(state: RaceState) -> bool:
    return state.watching is not None and state.watching == state.code


def press(ui: UI, key: str, *, mode: str, view: dict[str, Any] | None, ctx: Context, state: RaceState,
          size: tuple[int, int | None] = (80, None)) -> tuple[UI, list[Command]]:
    """:func:`client.solo.press` with watching, ghosts and replays."""
    def on() -> tuple[UI, list[Command]]:
        return press_solo(ui, key, mode=mode, view=view, ctx=ctx, state=state, size=size)

    if key == "c-c" or ui.confirm or ui.help:
        return on()
    if ui.text is not None:
        if key == "enter" and ui.text_purpose in ("watch", "ghost"):
            return _typed(ui)
        return on()
    if mode == "lobby" and ui.menu == "main":
        items = [item[0] for item in LOBBY_ITEMS]
        chosen = items[ui.cursor % len(items)] if key == "enter" else key
        if chosen in (WATCH_KEY, GHOST_KEY):
            purpose = "watch" if chosen == WATCH_KEY else "ghost"
            return replace(ui, text="", text_purpose=purpose, pending=None, note=""), []
    elif mode == "results" and state.replaying is not None:
        if key == "?":
            return on()
        note, commands = replay.press(state, key)
        return replace(ui, note=note), commands
    elif _watching(state) and mode in ("room", "countdown"):
        if key in ("l", "escape"):
            return UI(), [Command("leave")]
        if key in ("q", "?"):
            return on()
        return ui, []
    elif mode == "results":
        if key == "v":
            return replace(ui, note=""), [Command("replay_open")]
        if key == GHOST_KEY and state.code:
            if ctx.daily:
                return replace(ui, note="a daily's ghosts are raced once the day is over"), []
            note = "racing this race's winner as a ghost"
            return replace(ui, note=note), [Command("ghost", state.code)]
    return on()


def _typed(ui: UI) -> tuple[UI, list[Command]]:
    """Enter on the code line of ``w`` or ``g``."""
    text = (ui.text or "").strip()
    closed = replace(ui, text=None, text_purpose="", menu="main", cursor=0)
    if not text:
        return closed, []
    if ui.text_purpose == "watch":
        return replace(closed, note=f"watching room {clean(text.upper(), 16)}"), [
            Command("watch", text.upper())]
    target = ghost_target(text)
    if target is None:
        return replace(ui, note="a room code, then a player's number if not its winner (e.g. ABC234 2)"), []
    code, n = target
    return replace(closed, note=f"racing a ghost of room {code}"), [Command("ghost", code, n)]


# -- commands ------------------------------------------------------------------------------
async def run(session: ClientSession, command: Command) -> bool:
    """Carry out a command of this module's; False for any other command."""
    state, name = session.state, command.name
    if name == "watch":
        await session.send({"t": "watch", "code": command.arg})
    elif name == "ghost":
        msg: dict[str, Any] = {"t": "ghost", "code": command.arg}
        if command.num:
            msg["player"] = command.num
        await session.send(msg)
    elif name == "replay_open":
        first, other = replay.open_replay(state)
        state.replaying = {"code": state.code, "player": first, "index": 0, "with": other}
        for n in replay.racers(state):
            if n not in state.records:
                await session.send({"t": "record", "player": n})
        await session.send({"t": "replay", "player": first, "index": 0})
    elif name == "replay":
        await session.send({"t": "replay", "player": int(command.arg), "index": max(command.num, 0)})
    elif name == "replay_with":
        if state.replaying is not None:
            state.replaying["with"] = command.num
    elif name == "replay_close":
        state.replaying = None
    else:
        return False
    return True


# -- drawing -------------------------------------------------------------------------------
def render(state: RaceState, ui: UI, *, now_ms: int, width: int = 80, height: int | None = None,
           ascii_only: bool = False) -> Screen:
    """The spectate or replay screen when one is up; else :func:`client.screen.render`."""
    current = mode(state)
    mine = not ui.help and ((current == "results" and state.replaying is not None)
                            or (_watching(state) and current in ("room", "countdown")))
    if not mine:
        return render_screen(state, ui, now_ms=now_ms, width=width, height=height, ascii_only=ascii_only)
    out = Out(max(width, 40), height, ascii_only)
    if current == "results":
        replay.draw(state, ui.note, out)
    else:
        _watch(state, ui, out, state.server_now(now_ms))
    screen = out.screen()
    if not ascii_only:
        return screen
    return tuple(tuple((style, text.translate(_ASCII)) for style, text in line) for line in screen)


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
