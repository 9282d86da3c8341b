"""What several screens draw alike: the header and clock, the notices, the
lobby's first line, and the words for a player's status (pure)."""

from __future__ import annotations

from typing import Any, Final

from ..board import glyph_cards
from ..state import RaceState, is_daily
from ..text import Out, clean, width_of
from ..ui import UI
from ..variants import variant_name
from .line import draw_prompt

__all__ = ["STATUS_TEXT", "clock", "connected", "header", "mmss", "notices", "num", "offline",
           "practice_reason", "ranked"]

STATUS_TEXT: Final = {
    "in_progress": "racing",
    "won": "won",
    "dead": "stuck",
    "resigned": "resigned",
    "disconnected": "disconnected",
    "left": "left",
    "timed_out": "out of time",
    "frozen": "frozen (server check failed)",
}


def num(value: Any) -> int | None:
    """An int from the server, None for anything else (a bool is not a number here)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def mmss(ms: int) -> str:
    s = max(ms, 0) // 1000
    return f"{s // 60:02d}:{s % 60:02d}"


def offline(info: dict[str, Any]) -> bool:
    """The server says this player is not connected (``connected`` false or 0)."""
    for key in ("connected", "online"):
        value = info.get(key)
        if value is not None and not value:
            return True
    return False


def ranked(state: RaceState) -> bool:
    """This daily attempt counts: the server says so (and a guest's never does)."""
    if not state.claimed:
        return False
    results = state.results or {}
    if "ranked" in results:
        return bool(results["ranked"])
    return bool((state.room or {}).get("ranked"))


def practice_reason(state: RaceState) -> str:
    if not state.claimed:
        return "guests are never ranked; claim your name (7 in the lobby)"
    return "only your first attempt of the day is ranked"


def clock(state: RaceState, now: int) -> list[str]:
    """The race clock, most important part first: time left (or the race's length before the start)."""
    room = state.room or {}
    starts, ends = num(room.get("starts_at")), num(room.get("ends_at"))
    if starts is not None and now < starts:  # the countdown: the clock has not started
        return [f"{mmss(ends - starts)} race"] if ends is not None else []
    parts = [f"{mmss(ends - now)} left"] if ends is not None else []
    if starts is not None:
        parts.append(f"{mmss(now - starts)} elapsed")
    return parts


# the server's difficulty grades (docs/design/difficulty.md)
GRADES: Final = {1: "easy", 2: "fair", 3: "tricky", 4: "hard", 5: "no win found"}


def difficulty(grade: Any) -> str | None:
    """A deal's grade as words, or None for none (or one this client does not know)."""
    return f"difficulty {GRADES[grade]}" if isinstance(grade, int) and grade in GRADES else None


def header(state: RaceState, out: Out, clock: list[str]) -> None:
    """The title and the clock; on a narrow terminal the clock keeps its time left, the title gives way."""
    width = out.width
    room = state.room or {}
    variant = room.get("variant") or (state.view or {}).get("variant")
    parts = ["Patience Race"]
    if variant:
        parts.append(clean(variant_name(state.variants, str(variant)), 30))
    if state.code:
        parts.append(f"room {clean(state.code, 16)}")
    if is_daily(state):
        parts.append("daily, " + ("ranked" if ranked(state) else "practice"))
    if room.get("solo"):
        parts.append(f"solo #{clean(room.get('deal', '?'), 22)}")
    grade = difficulty(room.get("difficulty"))
    if grade is not None:
        parts.append(grade)
    left, right = " \u00b7 ".join(parts), " \u00b7 ".join(clock)
    if width_of(left) + width_of(right) + 3 > width and len(parts) > 1:
        left = " \u00b7 ".join(parts[1:])  # the program's name is the first to go
    if width_of(left) + width_of(right) + 3 > width:
        right = clock[0] if clock else ""  # time left before time elapsed
    gap = max(width - width_of(left) - width_of(right) - 2, 2)
    out.add(("class:title", " " + left), ("", " " * gap), ("class:clock", right))
    if state.conn == "reconnecting":
        dots = "..." if out.ascii else "\u2026"
        kept = "; your seat is kept" if state.code is not None and state.watching is None else ""
        out.text(f" reconnecting{dots} (attempt {state.attempt}){kept}", "class:warn")
    elif state.conn == "closed":
        out.text(" disconnected from the server", "class:error")
    else:
        out.text(" " + ("-" if out.ascii else "\u2500") * max(out.width - 2, 0), "class:rule")


def connected(state: RaceState, out: Out) -> None:
    """The header of every lobby screen, and where and as whom the player is connected."""
    header(state, out, [])
    who = "claimed" if state.claimed else "guest"
    out.text(f" connected to {clean(state.server, 60)} as {clean(state.name, 24)} ({who})", "class:dim")
    out.text()


def notices(state: RaceState, ui: UI, out: Out) -> None:
    """The server's last notice, the client's own note, and the input line when it is open."""
    if state.notice:
        text = glyph_cards(clean(state.notice, 400), out.ascii)
        out.text(" " + text, "class:error" if state.notice_error else "class:info")
    if ui.note:
        out.text(" " + ui.note, "class:hint")
    draw_prompt(ui, out)


def step_line(r: dict[str, Any], view: dict[str, Any], index: int, dot: str) -> str:
    """What a replay's step adds to its heading: the move that led here and when, and
    how the game stands if it is over (the room's replay and a kept game's alike)."""
    out = ""
    move, ms = r.get("move"), num(r.get("ms"))
    if isinstance(move, str) and index:
        out += f"{dot}{clean(move, 32)}" + (f" at {ms // 60000:02d}:{ms // 1000 % 60:02d}"
                                            if ms is not None else "")
    status = view.get("status")
    if status and status != "in_progress":
        out += f"{dot}{clean(status, 16)}"
    return out
