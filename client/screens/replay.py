"""Replaying a finished race's games, move by move (pure: keys and drawing).

After the results every record is public. The client has no rules engine
(it never imports the server's game core), so it does not play the moves
itself: it asks the server for the view at a move index (``replay``), and
draws that view with the same board as a race. The records themselves (move
texts only, ``record``) tell where two players' paths diverged: their first
differing entry, the deal being the same.

Keys on the replay (``v`` on a results screen opens it; ``?`` the help):

* right, ``.`` or space: the next move; left or ``,``: the one before;
  ``b`` / ``e``: the deal / the last move;
* a player's number, or Tab: that player's game, at the same move;
* ``c``: the player to compare with (the next racer); ``d``: jump to where
  the two paths diverged (the position both reached, before the first
  differing move);
* Esc: back to the results.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Final

from ..board import Board, draw_board
from ..state import RaceState, players_of
from ..text import Out, clean, keys_line, player_name
from ..ui import UI, Command
from .base import At, Keys
from .chrome import step_line

__all__ = ["END", "answer", "diverged", "draw", "open_replay", "press", "racers"]

END: Final = 2**31 - 1  # "the last move": the server answers with the record's last index


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def diverged(a: list[str], b: list[str]) -> int | None:
    """The first entry index where two records of the same deal differ, None if they never do."""
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return i
    return min(len(a), len(b)) if len(a) != len(b) else None


def racers(state: RaceState) -> list[int]:
    """The players of the results, in their order of places (else the room's seats)."""
    ranking = (state.results or {}).get("ranking")
    out = [n for e in ranking if isinstance(e, dict) and (n := _int(e.get("player"))) is not None] \
        if isinstance(ranking, list) else []
    return out or [p["player"] for p in players_of(state) if p.get("player") != _ghost_number(state)]


def _ghost_number(state: RaceState) -> int | None:
    return _int((state.ghost or {}).get("player"))


def _name(state: RaceState, n: int) -> str:
    for entry in (state.results or {}).get("ranking") or ():
        if isinstance(entry, dict) and entry.get("player") == n and entry.get("name"):
            return player_name(entry["name"], 16)
    return f"player {n}"


def open_replay(state: RaceState) -> tuple[int, int]:
    """Whose game opens the replay (this player's, else the winner's) and who it is compared with."""
    order = racers(state)
    first = state.me if state.me in order else (order[0] if order else 1)
    others = [n for n in order if n != first]
    return first, others[0] if others else first


def press(ui: UI, key: str, at: At) -> Keys:
    note, commands = answer(at.state, key)
    return replace(ui, note=note), commands


def answer(state: RaceState, key: str) -> tuple[str, list[Command]]:
    """A key on the replay: (a note, commands)."""
    r = state.replaying or {}
    n, index = _int(r.get("player")) or 1, _int(r.get("index")) or 0
    total = _int(r.get("total"))
    order = racers(state)
    if key in ("right", ".", " ", "l"):
        if total is not None and index >= total:
            return "that was the last move", []
        return "", [Command("replay", str(n), index + 1)]
    if key in ("left", ",", "h", "backspace"):
        return ("this is the deal" if index <= 0 else ""), ([Command("replay", str(n), index - 1)]
                                                            if index > 0 else [])
    if key == "b":
        return "", [Command("replay", str(n), 0)]
    if key == "e":
        return "", [Command("replay", str(n), END)]
    if key == "tab" or (len(key) == 1 and key.isdigit()):
        target = (order[(order.index(n) + 1) % len(order)] if n in order and order else n) \
            if key == "tab" else int(key)
        if target not in order:
            return f"no player {key} in this race", []
        return "", [Command("replay", str(target), index)]
    if key == "c":
        others = [p for p in order if p != n]
        if not others:
            return "nobody else to compare with", []
        current = _int(r.get("with"))
        following = [p for p in others if current is None or p > current]
        return "", [Command("replay_with", num=(following or others)[0])]
    if key == "d":
        other = _int(r.get("with"))
        if other is None or other == n:
            return "c picks a player to compare with first", []
        mine, theirs = state.records.get(n), state.records.get(other)
        if mine is None or theirs is None:
            return "the records are still on their way: d again in a moment", []
        at = diverged(mine, theirs)
        if at is None:
            return f"{_name(state, n)} and {_name(state, other)} played the very same moves", []
        return f"the paths diverge after {at} common moves", [Command("replay", str(n), at)]
    if key == "escape":
        return "", [Command("replay_close")]
    return "", []


def draw(state: RaceState, ui: UI, out: Out, now: int) -> None:
    """The replay screen: whose game, which move, the board as that player saw it."""
    note = ui.note
    r = state.replaying or {}
    dot = " - " if out.ascii else " \u00b7 "
    n, index, total = _int(r.get("player")) or 1, _int(r.get("index")) or 0, _int(r.get("total"))
    parts = ["Patience Race", "Replay", f"room {clean(state.code, 16)}"]
    out.text(" " + dot.join(parts), "class:title")
    out.text(" " + ("-" if out.ascii else "\u2500") * max(out.width - 2, 0), "class:rule")
    view = r.get("view")
    if not isinstance(view, dict):
        out.text(" asking the server for the game\u2026" if not out.ascii else " asking the server...",
                 "class:dim")
    else:
        where = "the deal" if index == 0 else f"after move {index}"
        head = f" {_name(state, n)}{dot}{where}" + (f" of {total}" if total is not None else "")
        head += step_line(r, view, index, dot)
        out.text(head, "class:info")
        out.text()
        room = None if out.height is None else out.height - 11
        draw_board(Board(view, UI(), out.ascii), out, room)
    out.text()
    other = _int(r.get("with"))
    row: list[tuple[str, str]] = [("", " ")]
    for p in racers(state):
        style = "class:selected" if p == n else ("class:label" if p == other else "")
        row.append((style, f" {p} {_name(state, p)} "))
        row.append(("", " "))
    out.add(row)
    if other is not None and other != n and n in state.records and other in state.records:
        at = diverged(state.records[n], state.records[other])
        text = "the same moves throughout" if at is None else f"paths diverge after {at} common moves"
        out.text(f" with {_name(state, other)}: {text}", "class:dim")
    if note:
        out.text(" " + note, "class:hint")
    if state.notice:
        out.text(" " + clean(state.notice, 200), "class:error" if state.notice_error else "class:info")
    out.text(keys_line("left/right step", "b/e deal/end", "1-8 or Tab player", "c compare with",
                       "d where paths diverge", "Esc results"), "class:dim")
