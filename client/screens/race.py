"""State -> screen model: the lines to draw, as (style, text) fragments (pure).

Nothing here touches a terminal; the app draws the model, and only when it
differs from the last one. Server text goes through :func:`client.text.clean`
before it is drawn. The model fits the terminal it is drawn for: lines wrap
at spaces (a word is never cut), and on a short terminal blank spacer lines
go first. This module draws the header and the screens around a race (the
room, the countdown, the race, the results, the help); the board itself is
:mod:`client.board`, the lobby's screens :mod:`client.lobby_screen`.

Races between claimed names show each rating's change; the results of a
daily show the share line and streaks.
"""

from __future__ import annotations

from typing import Any, Final

from .board import Board, card, draw_board
from .help_screen import draw as draw_help
from .keys import UI, redeals_left
from .lobby_screen import lobby, notices, practice_reason, ranked
from .offers import rematch_offer
from .state import RaceState, is_daily, mode, players_of
from .text import (
    Fragment,
    Line,
    Out,
    Screen,
    bot_tag,
    clean,
    keys_line,
    player_name,
    plural,
    text_lines,
    width_of,
)
from .variants import variant_name

__all__ = [
    "HELP",
    "Fragment",
    "Line",
    "Screen",
    "card",
    "clean",
    "render",
    "text_lines",
    "width_of",
]

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



# -- clocks, progress ---------------------------------------------------------------------
def _mmss(ms: int) -> str:
    s = max(ms, 0) // 1000
    return f"{s // 60:02d}:{s % 60:02d}"


def _bar(done: int, total: int, width: int, ascii_only: bool) -> list[Fragment]:
    filled = 0 if total <= 0 else min(width, max(0, done) * width // total)
    full, empty = ("#", "-") if ascii_only else ("\u2588", "\u2591")
    return [("class:bar.done", full * filled), ("class:bar.todo", empty * (width - filled))]


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _offline(info: dict[str, Any]) -> bool:
    """The server says this player is not connected (``connected`` false or 0)."""
    for key in ("connected", "online"):
        value = info.get(key)
        if value is not None and not value:
            return True
    return False


def _clock(state: RaceState, now: int) -> list[str]:
    """The race clock, most important part first: time left (or the race's length before the start)."""
    room = state.room or {}
    starts, ends = _int(room.get("starts_at")), _int(room.get("ends_at"))
    if starts is not None and now < starts:  # the countdown: the clock has not started
        return [f"{_mmss(ends - starts)} race"] if ends is not None else []
    parts = [f"{_mmss(ends - now)} left"] if ends is not None else []
    if starts is not None:
        parts.append(f"{_mmss(now - starts)} elapsed")
    return parts


def _progress_rows(state: RaceState, ascii_only: bool, width: int = 80) -> list[list[Fragment]]:
    rows: list[list[Fragment]] = []
    seats = {p["player"]: p for p in players_of(state)}
    numbers = sorted(set(seats) | set(state.progress) | ({state.me} if state.me else set()))
    for n in numbers:
        seat = seats.get(n, {})
        info: dict[str, Any] = dict(seat)
        info.update(state.progress.get(n, {}))
        if n == state.me and state.view is not None:
            info.update({k: state.view.get(k) for k in ("foundation_cards", "total_cards", "status")})
            info["moves"] = state.v
        done = _int(info.get("foundation_cards")) or 0
        total = _int(info.get("total_cards")) or _int((state.room or {}).get("total_cards")) or 0
        status = info.get("status")
        if info.get("left"):
            status = "left"
        elif _offline(info):
            status = "disconnected"
        name = player_name(seat.get("name", f"player {n}"), 16 - len(bot_tag(seat))) + bot_tag(seat)
        me = n == state.me
        row: list[Fragment] = [("class:me" if me else "", f"  {name:<16}"[:18])]
        bar = max(10, min(40, width - 60))  # a wider terminal, a longer bar
        row += [("", " "), *_bar(done, total, bar, ascii_only), ("", f" {done:>3}/{total:<3} ")]
        row.append(("class:dim", STATUS_TEXT.get(str(status), clean(status or "", 14))))
        moves = _int(info.get("moves"))
        if moves is not None:
            row.append(("class:dim", f"  {plural(moves, 'move')}"))
        if me:
            row.append(("class:me", "  (you)"))
        rows.append(row)
    return rows


# -- screens ------------------------------------------------------------------------------------
def _header(state: RaceState, out: Out, clock: list[str], ascii_only: bool) -> None:
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
    left, right = " \u00b7 ".join(parts), " \u00b7 ".join(clock)
    if width_of(left) + width_of(right) + 3 > width and len(parts) > 1:
        left = " \u00b7 ".join(parts[1:])  # the program's name is the first to go
    if width_of(left) + width_of(right) + 3 > width:
        right = clock[0] if clock else ""  # time left before time elapsed
    gap = max(width - width_of(left) - width_of(right) - 2, 2)
    out.add(("class:title", " " + left), ("", " " * gap), ("class:clock", right))
    if state.conn == "reconnecting":
        dots = "..." if ascii_only else "\u2026"
        out.text(f" reconnecting{dots} (attempt {state.attempt}); your seat is kept", "class:warn")
    elif state.conn == "closed":
        out.text(" disconnected from the server", "class:error")
    else:
        out.text(" " + ("-" if ascii_only else "\u2500") * max(out.width - 2, 0), "class:rule")


def _daily_room(state: RaceState, out: Out, now: int, countdown: bool) -> None:
    room = state.room or {}
    variant = clean(variant_name(state.variants, str(room.get("variant", ""))), 30)
    info = state.daily_info.get(str(room.get("variant")), {})
    day = _int(info.get("day")) if info.get("date") == room.get("daily") else None
    out.text(f" Today's challenge \u00b7 {variant}" + (f" \u00b7 day #{day}" if day else "")
             + f" \u00b7 {clean(room.get('daily', ''), 10)}", "class:title")
    if ranked(state):
        out.text(" Ranked attempt: your result goes on today's board.", "class:info")
    else:
        out.text(f" Practice: {practice_reason(state)}.", "class:warn")
    out.text()
    if countdown:
        starts = _int(room.get("starts_at"))
        left = (starts - now + 999) // 1000 if starts is not None else None
        text = f"   Starting in {left}\u2026" if left is not None and left > 0 else "   Go!"
        out.text(text, "class:countdown")
        out.text()
        return
    out.text(" You play alone, against the clock and everyone else's result.")
    out.text()
    out.text(" r start \u00b7 l leave \u00b7 q quit \u00b7 ? help", "class:dim")


def _room(state: RaceState, out: Out, now: int, countdown: bool) -> None:
    room = state.room or {}
    if room.get("daily"):
        _daily_room(state, out, now, countdown)
        return
    if countdown:
        starts = _int(room.get("starts_at"))
        left = (starts - now + 999) // 1000 if starts is not None else None
        out.text()
        if left is not None and left > 0:
            out.text(f"   Starting in {left}\u2026", "class:countdown")
        else:
            out.text("   Go!", "class:countdown")
        out.text()
    else:
        private = room.get("private")
        if state.code:
            if private is False:
                out.text(f" Public room {clean(state.code, 16)}: waiting for players", "class:title")
            else:
                out.add(("", " Share this code: "), ("class:code", f" {clean(state.code, 16)} "))
        out.text()
    maximum = _int(room.get("players_max"))
    seats = players_of(state)
    out.text(f" Players ({len(seats)}" + (f" of {maximum})" if maximum else ")"), "class:title")
    for p in seats:
        n = p["player"]
        ready = p.get("ready")
        flag = "ready" if ready else ("not ready" if ready is False else "")
        if p.get("left"):
            flag = "left"
        elif _offline(p):
            flag = "disconnected"
        me = " (you)" if n == state.me else ""
        who = player_name(p.get("name"), 24) + bot_tag(p) + me
        out.add(("", f"   {n}  "), ("class:me" if me else "", who + " " * max(30 - width_of(who), 1)),
                ("class:dim", flag))
    out.text()
    if not countdown:
        out.text(" r ready \u00b7 l leave \u00b7 q quit \u00b7 ? help", "class:dim")


def _race(state: RaceState, ui: UI, out: Out, ascii_only: bool) -> None:
    view = state.view or {}
    b = Board(view, ui, ascii_only, (state.room or {}).get("layout"))
    status = view.get("status")
    if status and status != "in_progress":
        word = {"won": "You won! Waiting for the others\u2026", "dead": "No moves left: your game is over.",
                "resigned": "You resigned."}.get(str(status), clean(status, 30))
        out.text(" " + word, "class:info")
    out.text()
    rows = _progress_rows(state, ascii_only, out.width)
    # what the board may take: the terminal less the header, the stock, the players, hints and keys
    room = None if out.height is None else out.height - 11 - len(rows)
    draw_board(b, out, room)
    out.text()
    for row in rows:
        out.add(row)
    out.text()
    if ui.pending is not None:
        hint = "f then a number for a foundation" if ui.want_foundation else "press a target (highlighted)"
        out.text(f" {ui.pending} selected: {hint} \u00b7 Esc cancels", "class:hint")
    elif ui.want_foundation:
        out.text(" which foundation? press its number", "class:hint")
    notices(state, ui, out)
    draw = "deal" if "phase" in view else "draw"
    redeal = "R redeal" if (redeals_left(view) or 0) > 0 else ""
    solo = ("u undo", "h hint") if (state.room or {}).get("solo") else ("", "")
    home = "a safe cards home" if view.get("safe_moves") else ""
    out.text(keys_line(f"space {draw}", redeal, home, *solo, "pile key then target", ": type a move",
                       "X resign", "? help and rules", "q quit"), "class:dim")


def _results(state: RaceState, out: Out) -> None:
    res = state.results or {}
    deal = res.get("deal")
    title = " Results" + (f" \u00b7 deal #{clean(deal, 20)}" if deal is not None else "")
    daily = is_daily(state)
    if daily:
        info = state.daily_info.get(str(res.get("variant")), {})
        day = _int(info.get("day")) if info.get("date") == res.get("daily") else None
        title += " \u00b7 today's challenge" + (f" #{day}" if day else "")
        title += " \u00b7 " + ("ranked" if ranked(state) else "practice")
    out.text(title, "class:title")
    out.text()
    out.text(f"  {'place':<6}{'player':<20}{'time':>7}{'moves':>7}  foundation", "class:dim")
    seats = {p["player"]: p for p in players_of(state)}
    starts = _int((state.room or {}).get("starts_at"))
    ranking = res.get("ranking")
    for i, entry in enumerate(ranking if isinstance(ranking, list) else []):
        if not isinstance(entry, dict):
            continue
        n = _int(entry.get("player"))
        name = entry.get("name") or seats.get(n or 0, {}).get("name") or f"player {n}"
        place = _int(entry.get("place")) or i + 1
        ms = next((v for k in ("ms", "time_ms", "elapsed_ms") if (v := _int(entry.get(k))) is not None), None)
        finished = _int(entry.get("finished_at"))
        if ms is None and finished is not None and starts is not None:
            ms = finished - starts
        moves = _int(entry.get("moves"))
        done, total = _int(entry.get("foundation_cards")), _int(entry.get("total_cards"))
        status = STATUS_TEXT.get(str(entry.get("status")), clean(entry.get("status") or "", 14))
        me = n is not None and n == state.me
        tag = bot_tag(entry) or bot_tag(seats.get(n or 0, {}))
        found = f"{done if done is not None else '?'}" + (f"/{total}" if total else "")
        out.add(("class:me" if me else "",
                 f"  {place:<6}{player_name(name, 18 - len(tag)) + tag + (' *' if me else ''):<20}"
                 f"{_mmss(ms) if ms is not None else '  --':>7}{moves if moves is not None else '--':>7}"
                 f"  {found:<8}"),
                ("class:dim", status))
    out.text()
    if daily:
        _daily_results(state, res, out)
        return
    if state.rating_changes:
        _rating_changes(state, out)
    rematch_offer(state, out)
    solo = bool((state.room or {}).get("solo"))
    rematch = () if solo else ("m rematch", "n no rematch")
    out.text(keys_line(*rematch, "b ratings", "s save the record", "v replay", "g race the winner's ghost",
                       "l back to the lobby", "q quit"), "class:dim")


def _daily_results(state: RaceState, res: dict[str, Any], out: Out) -> None:
    if not ranked(state):
        out.text(f" Not on today's board: {practice_reason(state)}.", "class:warn")
    share = res.get("share")
    if isinstance(share, str) and share:
        out.add(("", " Share: "), ("class:code", f" {clean(share, 400)} "))
    streaks = res.get("streaks")
    if isinstance(streaks, dict):
        days, wins = _int(streaks.get("streak_days")), _int(streaks.get("win_streak"))
        parts = []
        if days is not None:
            parts.append(f"{days} day{'s' if days != 1 else ''} in a row with a ranked attempt")
        if wins is not None:
            parts.append(f"{wins} day{'s' if wins != 1 else ''} in a row with a win")
        if parts:
            out.text(" Streaks: " + " \u00b7 ".join(parts), "class:info")
    out.text()
    copy = "c copy the share line" if isinstance(share, str) and share else ""
    out.text(keys_line(copy, "b today's board", "l back to the lobby", "q quit"), "class:dim")


def _rating_changes(state: RaceState, out: Out) -> None:
    out.text(" Ratings (OpenSkill ordinal)", "class:title")
    me = state.name.casefold()
    for change in state.rating_changes:
        mine = change.name.casefold() == me
        who = clean(change.name, 18) + (" *" if mine else "")
        if change.before is None:
            delta = "(no earlier rating seen here)"
        else:
            delta = f"({change.value - change.before:+.2f})"
        out.add(("class:me" if mine else "", f"   {who:<20}{change.value:>8.2f}  "), ("class:dim", delta))
    out.text()


HELP: Final = (
    "How to play",
    "",
    "  A move is two keys: the pile you take from, then the pile you put on. The keys "
    "are drawn on the board: 1..9, 0, -, = for the tableau piles t1..t12, w the waste, s the "
    "stock's top card, f for a foundation (f alone picks the one that fits, else f then its "
    "number). The first key lights up the legal targets; Esc cancels.",
    "  Or type the move: : (or Enter, or just start typing) then e.g. w-t3, t2-f1, t1-t4:3 "
    "(a run of 3), s-t3, draw, redeal, deal, deal:round, deal:all.",
    "",
    "  space  draw (or deal one card)       R      redeal (turns the waste over)",
    "  n / N  deal a round / everything     X      resign (asks first)",
    "  q      quit (your seat is kept)      ?      this help, the rules card",
    "  a      send every safe card home: cards no other move could ever need, one move each",
    "",
    "  A pile's top card (the one that moves) is underlined; foundations show the card they "
    "take next.",
    "  In a room: r when you are ready, l to leave. After a race: m offers (or accepts) a "
    "rematch, n declines, s saves your game's record to a file (patience-server verify checks it).",
    "  Play alone (8 in the lobby): any variant on a deal number of your choice (PySolFC's) or a "
    "random one; u undoes a move, h asks for a hint. Never ranked.",
    "  Watch a race (w in the lobby): type its room code; every player's counts, status and "
    "connection and the clock, never a card; l stops watching.",
    "  Race a ghost (g in the lobby, or g on a results screen): a finished race's recorded run of "
    "the same deal, its progress at the times it was played. Type the room code, then a player's "
    "number if not its winner. A daily's ghosts come once the day is over; a private room's, to "
    "its own players.",
    "  Replay (v on a results screen): every player's game move by move. Left/right step, b/e "
    "the deal/the end, 1-8 or Tab another player, c the player to compare with, d jumps to "
    "where the two paths diverged, Esc back to the results.",
    "  Arenas (a in the lobby, then a number): a timed event of one variant. You are paired "
    "with other players as soon as you are not racing, everyone of a pairing round on the same "
    "deal; a win scores 2 points (4 after two wins in a row, marked *), the first by foundation "
    "cards when nobody won 1. The lobby shows the live standing; after a race's results Esc "
    "comes back to it. l leaves the arena, r refreshes; finished arenas show their final standing.",
    "  Lobby: 5 today's challenge (a claimed name's first attempt of the day is ranked), "
    "6 boards (n / p page), 7 claim your name (its key is kept on this computer). After a "
    "daily: c copies the share line, b its board.",
)


_ASCII: Final = str.maketrans({"\u00b7": "-", "\u2026": "...", "\u2500": "-", "\u00d7": "x",
                               "\u2588": "#", "\u2591": "-"})


def render(state: RaceState, ui: UI, *, now_ms: int, width: int = 80, height: int | None = None,
           ascii_only: bool = False) -> Screen:
    """The whole screen for this state (``now_ms`` is the local clock), at most ``width`` cells wide.

    With ``height``, spacer lines give way so that the screen fits.
    """
    screen = _render(state, ui, now_ms, Out(max(width, 40), height, ascii_only))
    if not ascii_only:
        return screen
    return tuple(tuple((style, text.translate(_ASCII)) for style, text in line) for line in screen)


def _render(state: RaceState, ui: UI, now_ms: int, out: Out) -> Screen:
    ascii_only = out.ascii
    now = state.server_now(now_ms)
    current = mode(state)
    _header(state, out, _clock(state, now) if current in ("race", "countdown") else [], ascii_only)
    if ui.help:
        draw_help(HELP, state, ui.help_top, out)
        return out.screen()
    if current == "lobby":
        lobby(state, ui, out, now)
        if ui.menu not in ("daily", "board"):  # those draw the notices above their key line
            notices(state, ui, out)
    elif current in ("room", "countdown"):
        _room(state, out, now, current == "countdown")
        notices(state, ui, out)
    elif current == "race":
        _race(state, ui, out, ascii_only)
    else:
        _results(state, out)
        notices(state, ui, out)
    return out.screen()
