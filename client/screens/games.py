"""A name's kept games (its history), newest first, a page at a time (pure).

Each line says when, which variant and what kind of game, the place among the
racers, the outcome and the rating's change. The game under the cursor opens
as a replay (Enter or ``v``: client/screens/kept.py) or as a ghost race
(``g``: a room of one on its deal, its recorded run as the ghost).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import replace
from typing import Any, Final

from ..state import RaceState
from ..text import Out, clean, keys_line
from ..ui import UI, Command, move_cursor
from ..variants import variant_name
from .base import At, Keys
from .chrome import connected, mmss, notices, num

__all__ = ["PAGE", "draw", "press", "listed"]

PAGE: Final = 12  # games a page asks for: with the header and keys it fits 24 lines


def listed(state: RaceState) -> list[dict[str, Any]]:
    games = (state.games or {}).get("games")
    return [g for g in games if isinstance(g, dict)] if isinstance(games, list) else []


def _whose(state: RaceState) -> str:
    name = (state.games or {}).get("name") or (state.profile or {}).get("name")
    return name if isinstance(name, str) else ""


def press(ui: UI, key: str, at: At) -> Keys:
    state = at.state
    games, name = listed(state), _whose(state)
    total = num((state.games or {}).get("total")) or 0
    if key in ("escape", "backspace", "h", "left"):
        return replace(ui, menu="profile", cursor=0, note=""), []
    moved = move_cursor(ui, key, len(games)) if games else None
    if moved is not None:
        return moved, []
    if key in ("n", "p", "right"):
        offset = ui.board_offset + (PAGE if key in ("n", "right") else -PAGE)
        if not 0 <= offset < max(total, 1):
            return replace(ui, note="no more games that way"), []
        return replace(ui, board_offset=offset, cursor=0, note=""), [Command("games", name, offset)]
    if key == "r":
        return ui, [Command("games", name, ui.board_offset)]
    if key in ("enter", "v", "g") and games:
        game = games[min(ui.cursor, len(games) - 1)]
        code = clean(game.get("code"), 16)
        if key == "g":
            return replace(ui, note=f"racing {clean(name, 24)}'s game {code} as a ghost"), \
                [Command("game_ghost", code, scope=name)]
        return replace(ui, menu="kept", note=""), [Command("game_replay", code, 0, scope=name)]
    if key == "q":
        return ui, [Command("quit")]
    return ui, []


def _when(at: Any) -> str:
    ms = num(at)
    if ms is None:
        return "-"
    return dt.datetime.fromtimestamp(ms / 1000, dt.UTC).strftime("%Y-%m-%d %H:%M")


def line(state: RaceState, game: dict[str, Any]) -> str:
    mode = clean(game.get("mode"), 6)
    listed_names = game.get("players")
    players = listed_names if isinstance(listed_names, list) else []
    place = num(game.get("place"))
    where = f"{place}/{len(players)}" if place is not None and len(players) > 1 else ""
    fc, total = num(game.get("foundation_cards")), num(game.get("total_cards"))
    time_ms = num(game.get("time_ms"))
    outcome = (f"won {mmss(time_ms)}" if time_ms is not None else "won") if game.get("won") else \
        f"{fc or 0}/{total or 0} {clean(game.get('status'), 9)}"
    before, after = game.get("rating_before"), game.get("rating_after")
    change = ""
    if isinstance(before, (int, float)) and isinstance(after, (int, float)):
        change = f"{after - before:+.2f}"
    variant = clean(variant_name(state.variants, str(game.get("variant"))), 16)
    return f"{_when(game.get('at'))} {variant:<16} {mode:<6}{where:>5} {outcome:<19}{change:>6}"


def draw(state: RaceState, ui: UI, out: Out, now: int) -> None:
    connected(state, out)
    name = clean(_whose(state), 24)
    total = num((state.games or {}).get("total"))
    head = f" Games \u00b7 {name}" if name else " Games"
    if total:
        head += f" \u00b7 {ui.board_offset + 1}-{min(ui.board_offset + PAGE, total)} of {total}"
    out.text(head, "class:title")
    games = listed(state)
    if state.games is None:
        out.text("  loading\u2026", "class:dim")
    elif not games:
        out.text("  no game kept", "class:dim")
    else:
        out.text(f"  {'ended (UTC)':<17}{'variant':<17}{'kind':<6}{'place':>5} {'outcome':<19}{'rating':>6}",
                 "class:dim")
        for i, game in enumerate(games[:PAGE]):
            out.text(("> " if i == ui.cursor else "  ") + line(state, game),
                     "class:cursorline" if i == ui.cursor else "")
    out.text()
    out.text(keys_line("up/down pick", "Enter or v replay", "g race as a ghost", "n/p page", "Esc profile"),
             "class:dim")
    notices(state, ui, out)
