"""A finished room's post-game analysis (the server's ``analysis`` answer) as
lines of text for the results screen (pure).

Each player gets one line: won, lost by which move after which position
(``v`` on the results screen replays the game to see it), a deal no line
wins, still winnable at the end, or undecided within the server's budget. A
race adds where the paths parted and who stayed on a winning line longest.
The winning line itself is shown for the player's own game only, its first
moves (the screen is 80 columns): the whole is in the answer.
"""

from __future__ import annotations

from typing import Any, Final

from .text import clean, player_name, plural

LINE_MOVES: Final = 12  # moves of a winning line shown


def _num(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _line(moves: Any) -> str:
    if not isinstance(moves, list) or not moves:
        return ""
    shown = " ".join(clean(m, 12) for m in moves[:LINE_MOVES])
    more = f" \u2026 ({len(moves)} moves)" if len(moves) > LINE_MOVES else ""
    return shown + more


def game_line(game: dict[str, Any], budget: int | None) -> str:
    """What one player's analysis says, in a sentence."""
    result = game.get("result")
    if result == "won":
        return "won: no move lost it"
    if result == "lost_at":
        index, move = _num(game.get("index")), clean(game.get("move") or "?", 16)
        return (f"winnable until after entry {index}; {move} (entry {_num(game.get('losing_entry'))}) "
                f"lost it, proved")
    if result == "deal_lost":
        return "no line of play wins this deal: no move lost it (proved)"
    if result == "winnable_at_end":
        return "still winnable when the game ended"
    nodes = _num(game.get("nodes"))
    searched = f"after {nodes:,} positions" if nodes is not None else "in the time it had"
    where = []
    if _num(game.get("winnable_through")) is not None:
        where.append(f"winnable through entry {game['winnable_through']}")
    if _num(game.get("lost_from")) is not None:
        where.append(f"lost from entry {game['lost_from']}")
    per_game = f" (budget {budget:,} a game)" if budget else ""
    return f"undecided {searched}{per_game}" + (": " + ", ".join(where) if where else "")


def title(msg: dict[str, Any]) -> str:
    budget = _num(msg.get("budget"))
    return "Where it was lost" + (f" (the solver's budget: {budget:,} positions a game)" if budget else "")


def analysis_lines(msg: dict[str, Any], me: int | None, names: dict[int, str]) -> list[str]:
    """The lines to show, the player's own game first."""
    games = [g for g in msg.get("players") or [] if isinstance(g, dict)]
    games.sort(key=lambda g: g.get("player") != me)
    budget = _num(msg.get("budget"))
    out: list[str] = []
    solo = len(games) == 1
    for game in games:
        n = _num(game.get("player")) or 0
        who = "" if solo else player_name(names.get(n, f"player {n}"), 16) + (" *" if n == me else "") + ": "
        out.append(who + game_line(game, budget if solo else None))
        line = _line(game.get("line"))
        if line and (n == me or solo):
            out.append("  a winning line from there: " + line)
    longest = [n for n in msg.get("longest") or [] if _num(n) is not None]
    if longest:
        top = next((g for g in games if g.get("player") == longest[0]), {})
        moves = _num(top.get("on_line")) or 0
        who = ", ".join(player_name(names.get(n, f"player {n}"), 16) for n in longest)
        out.append(f"longest on a winning line: {who} ({plural(moves, 'move')})")
    parts = []
    for pair in msg.get("parted") or []:
        if not isinstance(pair, dict):
            continue
        a, b, after = _num(pair.get("a")), _num(pair.get("b")), _num(pair.get("after"))
        if me in (a, b) or len(games) == 2:
            other = b if a == me else a
            parts.append((player_name(names.get(other or 0, f"player {other}"), 16), after or 0))
    if parts:
        whose = "your path" if me in {g.get("player") for g in games} else "the paths"
        out.append(f"{whose} parted from " + ", ".join(f"{n}'s after {a}" for n, a in parts[:-1])
                   + (", " if len(parts) > 1 else "") + f"{parts[-1][0]}'s after "
                   + plural(parts[-1][1], "entry", "entries"))
    return out
