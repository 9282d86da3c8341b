"""A name's profile: per variant its rating (deviation, rated races, the
provisional mark, where its last changes took it), its races, wins and best
winning time; then its totals, win rate, daily results, arenas and streaks
(pure). Opened from the boards menu (``4``) with a name typed, or from a race's
results (``p``: one's own); ``g`` lists the name's kept games
(client/screens/games.py).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Final

from ..state import RaceState
from ..text import Out, clean, keys_line
from ..ui import UI, Command, open_text
from ..variants import variant_name
from .base import At, Keys
from .chrome import connected, mmss, notices, num
from .line import open_report

__all__ = ["draw", "press", "open_games"]

# rows of variants on screen: with the header, the figures and the keys the page
# stays inside 24 lines; a name with more variants says how many are left out
MAX_ROWS: Final = 7
DAILIES_SHOWN: Final = 4  # the newest daily results on the page's line


def open_games(ui: UI, name: str, offset: int = 0) -> Keys:
    return replace(ui, menu="games", cursor=0, board_offset=max(offset, 0), note=""), \
        [Command("games", name, max(offset, 0))]


def shown_name(state: RaceState) -> str | None:
    name = (state.profile or {}).get("name")
    return name if isinstance(name, str) and name else None


def press(ui: UI, key: str, at: At) -> Keys:
    name = shown_name(at.state)
    if key in ("escape", "backspace", "h", "left"):
        return replace(ui, menu="boards", cursor=3, note=""), []
    if key == "r":
        return ui, [Command("profile", name)] if name else []
    if key == "!":  # report this name to the moderators
        if not (at.state.profile or {}).get("claimed") or not name:
            return replace(ui, note="only a claimed name can be reported"), []
        return open_report(ui, name), []
    if key == "g" and name:
        return open_games(ui, name)
    if key == "n":  # another name
        return open_text(ui, "profile", ""), []
    if key == "q":
        return ui, [Command("quit")]
    return ui, []


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def _trend(curve: Any) -> str:
    """Where the last changes took the rating: ``12.4 -> 14.1 (6)``."""
    points = [p for p in curve if isinstance(p, list) and len(p) == 2] if isinstance(curve, list) else []
    values = [v for v in (_number(p[1]) for p in points) if v is not None]
    if len(values) < 2:
        return ""
    return f"{values[0]:.1f} -> {values[-1]:.1f} ({len(values) - 1})"


def _rate(value: Any) -> str:
    rate = _number(value)
    return f"{rate * 100:.0f}%" if rate is not None else "-"


def _rows(state: RaceState, ratings: dict[str, Any], figures: dict[str, Any]) -> list[tuple[str, ...]]:
    rows: list[tuple[str, ...]] = []
    for variant in sorted(set(ratings) | set(figures)):
        r, f = _dict(ratings.get(variant)), _dict(figures.get(variant))
        value, deviation = _number(r.get("value")), _number(r.get("deviation"))
        rated, races = num(r.get("races")), num(f.get("races"))
        wins, best = num(f.get("wins")), num(f.get("best_ms"))
        rows.append((clean(variant_name(state.variants, str(variant)), 17),
                     f"{value:.2f}" if value is not None else "-",
                     f"{deviation:.2f}" if deviation is not None else "-",
                     f"{rated if rated is not None else '-'}{'?' if r.get('provisional') else ''}",
                     f"{wins or 0}/{races or 0}", _rate(f.get("win_rate")) if races else "-",
                     mmss(best) if best is not None else "-", _trend(r.get("curve"))))
    rows.sort(key=lambda row: -float(row[1]) if row[1] != "-" else 0.0)
    return rows


def _dailies(last: Any) -> str:
    items = [d for d in last if isinstance(d, dict)][:DAILIES_SHOWN] if isinstance(last, list) else []
    parts = []
    for d in items:
        date = clean(d.get("date"), 10)[5:]
        time_ms = num(d.get("time_ms"))
        outcome = (f"won {mmss(time_ms)}" if time_ms is not None else "won") if d.get("won") else \
            f"{num(d.get('foundation_cards')) or 0}/{num(d.get('total_cards')) or 0}"
        parts.append(f"{date} {outcome}")
    return ", ".join(parts)


def _figures(profile: dict[str, Any], out: Out) -> None:
    stats = _dict(profile.get("stats"))
    streaks = _dict(profile.get("streaks"))
    races, wins = num(stats.get("races")) or 0, num(stats.get("wins")) or 0
    arenas = _dict(stats.get("arenas"))
    daily = _dict(stats.get("daily"))
    out.text(f"  races {races} \u00b7 wins {wins} ({_rate(stats.get('win_rate'))}) \u00b7 "
             f"games kept {num(stats.get('games')) or 0} \u00b7 arenas {num(arenas.get('played')) or 0} "
             f"({num(arenas.get('races')) or 0} races, {num(arenas.get('wins')) or 0} won)")
    out.text(f"  daily: {num(daily.get('played')) or 0} played, {num(daily.get('won')) or 0} won \u00b7 "
             f"daily streak {num(streaks.get('days')) or 0} days (best {num(streaks.get('best')) or 0}) "
             f"\u00b7 ranked daily wins {num(streaks.get('wins')) or 0}")
    last = _dailies(daily.get("last"))
    if last:
        out.text(f"  last dailies: {last}", "class:dim")


def draw(state: RaceState, ui: UI, out: Out, now: int) -> None:
    connected(state, out)
    profile = state.profile
    name = clean(profile.get("name"), 24) if profile and isinstance(profile.get("name"), str) else ""
    out.text(f" Profile \u00b7 {name}" if name else " Profile", "class:title")
    if profile is None:
        out.text("  loading\u2026", "class:dim")
    elif not profile.get("claimed"):
        out.text(f"  {name or 'this name'} is not claimed: no ratings, no streaks", "class:dim")
    else:
        ratings = _dict(profile.get("ratings"))
        stats = _dict(profile.get("stats"))
        figures = _dict(stats.get("variants"))
        rows = _rows(state, ratings, figures)
        if not rows:
            out.text("  no race yet", "class:dim")
        else:
            out.text(f"  {'variant':<18}{'rating':>7}{'dev':>6}{'rated':>6}{'won':>7}{'rate':>5}{'best':>6}"
                     "  last changes", "class:dim")
            for variant, value, deviation, rated, won, rate, best, trend in rows[:MAX_ROWS]:
                out.text(f"  {variant:<18}{value:>7}{deviation:>6}{rated:>6}{won:>7}{rate:>5}{best:>6}"
                         f"  {trend}")
            if len(rows) > MAX_ROWS:
                out.text(f"  and {len(rows) - MAX_ROWS} more variants", "class:dim")
        out.text()
        _figures(profile, out)
    out.text()
    out.text(keys_line("? provisional: fewer rated races than the rating needs", "won: first places/races"),
             "class:dim")
    out.text(keys_line("g games", "r refresh", "n another name", "! report", "Esc back"), "class:dim")
    notices(state, ui, out)
