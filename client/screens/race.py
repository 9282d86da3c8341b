"""The race screen: the board, every player's progress, and the keys of a race (pure).

On the board a move is two keys, the source pile then the target, using the
hotkeys drawn on the board: ``1``..``9``, ``0``, ``-``, ``=`` for ``t1``..``t12``,
``w`` the waste, ``s`` the stock top, and ``f`` for a foundation (``f`` alone
picks the one foundation the server lists as legal; otherwise a digit names
it). After the first key the legal targets from the view's ``legal_moves`` are
highlighted. A target that is not legal is still sent: the server says why.
The move text can be typed too: ``:`` (or Enter, or a letter that is not a
hotkey but starts a legal move, such as ``t`` or ``d``) opens the input line;
any other letter only says it is not a key. Space draws (or deals, in Corner Stones);
``n``/``N`` deal a round or everything. A redeal spends one of the few passes
a game allows, so it has a key of its own, ``R``, and space on an empty stock
only says so. ``f`` with nothing selected asks which foundation to move from
only where a foundation's card can move at all.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..board import Board, draw_board
from ..keys import choose_move, draw_action, legal_moves, piles_of, redeals_left, tableau_for_key, targets
from ..state import RaceState, players_of
from ..text import Fragment, Out, bot_tag, clean, keys_line, player_name, plural
from ..ui import UI, Command, open_text
from .base import At, Keys
from .chrome import STATUS_TEXT, clock, header, notices, num, offline

__all__ = ["draw", "press"]


def press(ui: UI, key: str, at: At) -> Keys:
    view = at.view or {}
    legal = legal_moves(view)
    piles = piles_of(view)
    clear = replace(ui, pending=None, want_foundation=False, note="")
    over = _game_over(view)
    if over and (key == "l" or (key == "escape" and ui.pending is None and not ui.want_foundation)):
        return UI(), [Command("leave")]  # done: the result stands, and comes when the race ends
    if key == "escape":
        return clear, []
    if key in (":", "enter"):
        return open_text(ui, "move"), []
    if key == " ":
        if "redeal" in legal and not any(m in legal for m in ("draw", "deal")):
            left = redeals_left(view)
            note = "the stock is empty: R turns the waste over" + (f" ({left} left)" if left else "")
            return replace(clear, note=note), []
        return clear, [Command("move", draw_action(view))]
    if key == "R":
        return clear, [Command("move", "redeal")]
    if key == "a":  # send every safe card home (client/home.py)
        if not view.get("safe_moves"):
            return replace(clear, note="no card is safe to send home yet"), []
        return clear, [Command("home")]
    if key == "n":
        return clear, [Command("move", "deal:round")]
    if key == "N":
        return clear, [Command("move", "deal:all")]
    if key == "X":
        return replace(clear, confirm="resign", note="resign this game? y to confirm"), []
    if key == "q":
        note = "quit? your seat is kept: run patience again to resume. y to quit"
        return replace(clear, confirm="quit", note=note), []

    if ui.want_foundation:
        if len(key) == 1 and key.isdigit() and f"f{key}" in piles:
            if ui.pending is None:
                if not any(m.startswith(f"f{key}-") for m in legal):  # foundation cards stay put
                    return replace(clear, note=f"no card can move from f{key}: pick a pile first"), []
                return replace(ui, pending=f"f{key}", want_foundation=False, note=""), []
            return clear, [Command("move", choose_move(ui.pending, f"f{key}", legal))]
        return replace(ui, want_foundation=False, note="press a foundation's number"), []
    if key == "f":
        if ui.pending is not None:
            options = sorted(t for t in targets(ui, view) if t.startswith("f"))
            if len(options) == 1:
                return clear, [Command("move", choose_move(ui.pending, options[0], legal))]
        return replace(ui, want_foundation=True, note="which foundation? press its number"), []

    pile = tableau_for_key(key, view)
    if pile is None and key in ("w", "s"):
        pile = key
    if pile is None:
        if ui.pending is not None and key == "-":  # typing w-t3 after the w hotkey
            return open_text(ui, "move", f"{ui.pending}-"), []
        if len(key) == 1 and key.isalpha():
            if key.lower() in _move_letters(legal):  # typing a move: t3-f1, draw
                return open_text(ui, "move", key), []
            return replace(clear, note=f"{clean(key, 1)} is not a key here: ? lists them, : types a move"), []
        return ui, []
    if ui.pending is None:
        note = "" if any(m.startswith(pile + "-") for m in legal) else f"no legal move from {pile}"
        return replace(ui, pending=pile, want_foundation=False, note=note), []
    if ui.pending == pile:
        return clear, []
    return clear, [Command("move", choose_move(ui.pending, pile, legal))]


def _move_letters(legal: list[str]) -> set[str]:
    """The letters a typed move may start with: those of the legal moves, and ``t`` (a tableau)."""
    return {"t"} | {m[0] for m in legal if m[:1].isalpha()}


def _game_over(view: dict[str, Any]) -> bool:
    """The player's own game has ended (won, stuck or resigned): the others may race on."""
    status = view.get("status")
    return isinstance(status, str) and status != "in_progress"


def _bar(done: int, total: int, width: int, ascii_only: bool) -> list[Fragment]:
    filled = 0 if total <= 0 else min(width, max(0, done) * width // total)
    full, empty = ("#", "-") if ascii_only else ("\u2588", "\u2591")
    return [("class:bar.done", full * filled), ("class:bar.todo", empty * (width - filled))]


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
        done = num(info.get("foundation_cards")) or 0
        total = num(info.get("total_cards")) or num((state.room or {}).get("total_cards")) or 0
        status = info.get("status")
        if info.get("left"):
            status = "left"
        elif offline(info):
            status = "disconnected"
        name = player_name(seat.get("name", f"player {n}"), 16 - len(bot_tag(seat))) + bot_tag(seat)
        me = n == state.me
        row: list[Fragment] = [("class:me" if me else "", f"  {name:<16}"[:18])]
        bar = max(10, min(40, width - 60))  # a wider terminal, a longer bar
        row += [("", " "), *_bar(done, total, bar, ascii_only), ("", f" {done:>3}/{total:<3} ")]
        row.append(("class:dim", STATUS_TEXT.get(str(status), clean(status or "", 14))))
        moves = num(info.get("moves"))
        if moves is not None:
            row.append(("class:dim", f"  {plural(moves, 'move')}"))
        if me:
            row.append(("class:me", "  (you)"))
        rows.append(row)
    return rows


def draw(state: RaceState, ui: UI, out: Out, now: int) -> None:
    header(state, out, clock(state, now))
    _race(state, ui, out)


def _race(state: RaceState, ui: UI, out: Out) -> None:
    ascii_only = out.ascii
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
    if _game_over(view):
        out.text(keys_line("l back to the lobby (your result comes when the race ends)",
                           "or stay and watch", "? help and rules", "q quit"), "class:dim")
        return
    draw = "deal" if "phase" in view else "draw"
    redeal = "R redeal" if (redeals_left(view) or 0) > 0 else ""
    solo = ("u undo", "h hint") if (state.room or {}).get("solo") else ("", "")
    home = "a safe cards home" if view.get("safe_moves") else ""
    out.text(keys_line(f"space {draw}", redeal, home, *solo, "pile key then target", ": type a move",
                       "X resign", "? help and rules", "q quit"), "class:dim")
