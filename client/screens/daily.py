"""Today's challenge of one variant: the day, the commitment, whether an attempt
is ranked, and yesterday's reveal checked here by recomputing SHA-256(deal|salt)
(pure). Enter starts it; ``b`` and ``w`` open its boards.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..competition import reveal_check
from ..state import RaceState
from ..text import Out, clean, keys_line
from ..ui import UI, Command, open_board
from ..variants import index_of, variant_name
from .base import At, Keys
from .chrome import connected, difficulty, notices, num

__all__ = ["draw", "press"]


def press(ui: UI, key: str, at: At) -> Keys:
    """Today's challenge of ``ui.variant``: its info on screen."""
    if key in ("escape", "backspace", "left", "h"):
        return replace(ui, menu="pick", purpose="daily", note="",
                       cursor=index_of(at.ctx.variants, ui.variant)), []
    if key in ("enter", "s"):
        note = "starting today's deal (the server may take a few seconds to pick it)"
        return replace(ui, note=note), [Command("daily", ui.variant)]
    if key == "b":
        return open_board(ui, "daily", ui.variant)
    if key == "w":
        return open_board(ui, "wins", ui.variant)
    if key == "r":
        return replace(ui, note=""), [Command("daily_info", ui.variant)]
    if key == "q":
        return ui, [Command("quit")]
    return ui, []


def draw(state: RaceState, ui: UI, out: Out, now: int) -> None:
    connected(state, out)
    _daily(state, ui, out, now)


def _hms(ms: int) -> str:
    s = max(ms, 0) // 1000
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"


def _short(text: object, n: int = 16) -> str:
    t = clean(text, 80)
    return t if len(t) <= n else t[:n] + "\u2026"


def _daily(state: RaceState, ui: UI, out: Out, now: int) -> None:
    """Today's challenge of one variant: what it is, whether it counts, yesterday's reveal."""
    name = clean(variant_name(state.variants, ui.variant), 30)
    out.text(f" Today's challenge \u00b7 {name}", "class:title")
    out.text()
    info = state.daily_info.get(ui.variant)
    if info is None:
        out.text(" asking the server for today's deal\u2026 (the first ask of a day may take a few seconds)",
                 "class:dim")
    else:
        day, ends = num(info.get("day")), num(info.get("ends_at"))
        line = f" Day #{day if day is not None else '?'} \u00b7 {clean(info.get('date', ''), 10)}"
        if ends is not None:
            line += f" \u00b7 ends in {_hms(ends - now)} (midnight UTC)"
        out.text(line)
        out.add(("", " Commitment "), ("class:code", f" {_short(info.get('commitment', ''))} "),
                ("class:dim", "  SHA-256(deal|salt), revealed tomorrow"))
        _grade_and_par(info, out)
        out.text()
        ranked = info.get("ranked")  # the server's word on this connection's next attempt
        if not state.claimed:
            out.text(" Practice: guests are never ranked; claim your name (7 in the lobby) first.",
                     "class:warn")
        elif ranked is False:
            out.text(" Practice: today's deal was played already under this name or on this computer;"
                     " only a first attempt is ranked.", "class:warn")
        elif ranked is True:
            out.text(" Ranked: this attempt goes on today's board; later ones are practice.", "class:info")
        else:  # an older server, which does not say
            out.text(" Ranked if it is your first attempt today (on this computer too); later ones are"
                     " practice.", "class:info")
        out.text()
        _reveal(state, ui.variant, info.get("yesterday"), out)
    out.text()
    notices(state, ui, out)
    out.text(keys_line("Enter start", "b today's board", "w daily wins", "r refresh", "Esc back"),
             "class:dim")


def _grade_and_par(info: dict[str, Any], out: Out) -> None:
    """The deal's difficulty (easier early in the week) and the bots' par per level."""
    grade = difficulty(info.get("difficulty"))
    pars = info.get("pars")
    par = (" \u00b7 par " + ", ".join(f"L{k} {int(p)}" for k, p in enumerate(pars, start=1))
           if isinstance(pars, list) and pars and all(isinstance(p, int) for p in pars) else "")
    if grade is not None or par:
        out.text(" " + (grade.capitalize() if grade else "Difficulty not graded") + par
                 + ("  (the bots' median cards home, by level)" if par else ""), "class:dim")


def _reveal(state: RaceState, variant: str, yesterday: Any, out: Out) -> None:
    if not isinstance(yesterday, dict):
        out.text(" Yesterday: nothing to reveal (no deal was drawn for this variant)", "class:dim")
        return
    day, date = num(yesterday.get("day")), clean(yesterday.get("date", ""), 10)
    out.text(f" Yesterday's deal, revealed \u00b7 day #{day if day is not None else '?'} \u00b7 {date}",
             "class:title")
    deal = clean(yesterday.get("deal", "?"), 24)
    out.text(f"   deal {deal}   salt {clean(yesterday.get('salt', '?'), 40)}")
    par = num(yesterday.get("par"))
    if par is not None:
        out.text(f"   par {par} foundation cards (the solver found no winning line)")
    check = reveal_check(yesterday, state.seen_commitments.get(f"{yesterday.get('date')}|{variant}"))
    commit = _short(yesterday.get("commitment", ""))
    if check.ours is None:
        out.text("   check: the reveal is incomplete and cannot be checked", "class:error")
    elif check.ours:
        out.text(f"   checked here: SHA-256(deal|salt) matches the commitment {commit}", "class:info")
        if check.server is not None:
            out.text("   the server's own check agrees" if check.server
                     else "   but the server's own check says otherwise",
                 "class:info")
    else:
        out.text(f"   FAILED: SHA-256(deal|salt) does not match the commitment {commit}", "class:error")
    if check.seen is True:
        out.text("   and that is the commitment this client was shown during that day", "class:info")
    elif check.seen is False:
        seen = _short(state.seen_commitments.get(f"{yesterday.get('date')}|{variant}", ""))
        out.text(f"   but this client was shown another commitment that day: {seen}", "class:error")
    out.text(f"   replay it: patience-server deal {clean(variant, 30)} {deal}", "class:dim")
