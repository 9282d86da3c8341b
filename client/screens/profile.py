"""A name's profile: its rating in each variant it has played, with the deviation,
the rated races, the provisional mark and where its last changes took it, and its
daily streaks (pure). Opened from the boards menu (``4``) with a name typed.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Final

from ..state import RaceState
from ..text import Out, clean, keys_line
from ..ui import UI, Command, open_text
from ..variants import variant_name
from .base import At, Keys
from .chrome import connected, notices, num
from .line import open_report

__all__ = ["draw", "press"]

# rows of ratings on screen: with the header, the streaks and the keys the page
# stays inside 24 lines; a name with more variants says how many are left out
MAX_ROWS: Final = 12


def press(ui: UI, key: str, at: At) -> Keys:
    if key in ("escape", "backspace", "h", "left"):
        return replace(ui, menu="boards", cursor=3, note=""), []
    if key == "r":
        name = (at.state.profile or {}).get("name")
        return ui, [Command("profile", name)] if isinstance(name, str) and name else []
    if key == "!":  # report this name to the moderators
        name = (at.state.profile or {}).get("name")
        if not (at.state.profile or {}).get("claimed") or not isinstance(name, str):
            return replace(ui, note="only a claimed name can be reported"), []
        return open_report(ui, name), []
    if key == "n":  # another name
        return open_text(ui, "profile", ""), []
    if key == "q":
        return ui, [Command("quit")]
    return ui, []


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def _trend(curve: Any) -> str:
    """Where the last changes took the rating: ``12.40 -> 14.05 over 6``."""
    points = [p for p in curve if isinstance(p, list) and len(p) == 2] if isinstance(curve, list) else []
    values = [v for v in (_number(p[1]) for p in points) if v is not None]
    if len(values) < 2:
        return ""
    return f"{values[0]:.2f} -> {values[-1]:.2f} over {len(values) - 1}"


def _rows(state: RaceState, ratings: dict[str, Any]) -> list[tuple[str, str, str, str, str]]:
    rows = []
    for variant, r in ratings.items():
        if not isinstance(r, dict):
            continue
        value, deviation = _number(r.get("value")), _number(r.get("deviation"))
        races = num(r.get("races"))
        rows.append((clean(variant_name(state.variants, str(variant)), 26),
                     f"{value:.2f}" if value is not None else "-",
                     f"{deviation:.2f}" if deviation is not None else "-",
                     f"{races if races is not None else '-'}{'?' if r.get('provisional') else ''}",
                     _trend(r.get("curve"))))
    rows.sort(key=lambda row: -float(row[1]) if row[1] != "-" else 0.0)
    return rows


def draw(state: RaceState, ui: UI, out: Out, now: int) -> None:
    connected(state, out)
    profile = state.profile
    name = clean(profile.get("name"), 24) if profile and isinstance(profile.get("name"), str) else ""
    out.text(f" Profile \u00b7 {name}" if name else " Profile", "class:title")
    out.text()
    if profile is None:
        out.text("  loading\u2026", "class:dim")
    elif not profile.get("claimed"):
        out.text(f"  {name or 'this name'} is not claimed: no ratings, no streaks", "class:dim")
    else:
        ratings = profile.get("ratings")
        rows = _rows(state, ratings) if isinstance(ratings, dict) else []
        if not rows:
            out.text("  no rated race yet", "class:dim")
        else:
            out.text(f"  {'variant':<27}{'rating':>7}{'dev':>6}{'races':>7}  last changes", "class:dim")
            for variant, value, deviation, races, trend in rows[:MAX_ROWS]:
                out.text(f"  {variant:<27}{value:>7}{deviation:>6}{races:>7}  {trend}")
            if len(rows) > MAX_ROWS:
                out.text(f"  and {len(rows) - MAX_ROWS} more variants", "class:dim")
        streaks = profile.get("streaks")
        if isinstance(streaks, dict):
            days, best, wins = num(streaks.get("days")), num(streaks.get("best")), num(streaks.get("wins"))
            out.text()
            out.text(f"  daily streak {days or 0} days (best {best or 0}) \u00b7 "
                     f"ranked daily wins {wins or 0}")
    out.text()
    out.text(keys_line("? provisional: fewer rated races than the rating needs", ""), "class:dim")
    out.text(keys_line("r refresh", "n another name", "! report", "Esc back"), "class:dim")
    notices(state, ui, out)
