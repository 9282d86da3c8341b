"""Key presses -> move text and UI actions (pure: no terminal, no network).

On the board a move is two keys, the source pile then the target, using the
hotkeys drawn on the board: ``1``..``9``, ``0``, ``-``, ``=`` for ``t1``..``t12``,
``w`` the waste, ``s`` the stock top, and ``f`` for a foundation (``f`` alone
picks the one foundation the server lists as legal; otherwise a digit names
it). After the first key the legal targets from the view's ``legal_moves`` are
highlighted. A target that is not legal is still sent: the server says why.
The move text can be typed too: ``:`` (or Enter, or any letter that is not a
hotkey) opens the input line. Space draws (or deals, in Corner Stones);
``n``/``N`` deal a round or everything. A redeal spends one of the few passes
a game allows, so it has a key of its own, ``R``, and space on an empty stock
only says so. ``f`` with nothing selected asks which foundation to move from
only where a foundation's card can move at all.

The lobby also leads to today's challenge (pick a variant: its info screen,
then start it), the boards (a daily board, ratings, daily wins; ``n``/``p``
page) and claiming the player's name. After a daily, ``c`` copies the share
line and ``b`` opens today's board.

Keys are plain strings: a printable character, or ``enter``, ``escape``,
``backspace``, ``up``, ``down``, ``left``, ``right``, ``tab``, ``c-c``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Final, NamedTuple

from .state import BOARD_PAGE, RaceState, is_daily
from .variants import Variant, index_of

__all__ = [
    "BOARD_ITEMS",
    "BOARD_PAGE",
    "LOBBY_ITEMS",
    "TABLEAU_KEYS",
    "UI",
    "Command",
    "Context",
    "choose_move",
    "context_of",
    "draw_action",
    "pile_key",
    "press",
    "redeals_left",
    "settle",
    "targets",
]

TABLEAU_KEYS: Final = "1234567890-="  # t1..t12
LOBBY_ITEMS: Final = (
    ("1", "Quick race", "race whoever picks the same variant next"),
    ("2", "Create a private room", "get a code to share with friends"),
    ("3", "Join by code", "enter the code a friend gave you"),
    ("4", "Variants and rules", "a paragraph on each game"),
    ("5", "Today's challenge", "one deal a day, the same for everyone"),
    ("6", "Boards", "today's results, ratings, daily wins"),
    ("7", "Claim your name", "keep it yours: ranked dailies and ratings"),
    ("8", "Play alone", "any variant, any deal number; undo and hints"),  # client/solo.py
    ("w", "Watch a race", "a room's code: every player's counts, live"),  # client/spectate.py
    ("g", "Race a ghost", "a finished race's code: race its recorded run"),
    ("a", "Arenas", "timed events: a new race after each race"),  # client/arena.py
    ("q", "Quit", ""),
)
BOARD_ITEMS: Final = (
    ("1", "Today's daily board", "pick a variant"),
    ("2", "Ratings", "races between claimed names"),
    ("3", "Daily wins", "pick a variant"),
)
MAX_TEXT: Final = 32
MAX_NAME: Final = 24


class Command(NamedTuple):
    """Something for the session to do: ``move``, ``quick``, ``create``, ``join``,
    ``ready``, ``leave``, ``rematch``, ``resign``, ``quit``, ``claim`` (a name),
    ``daily_info`` / ``daily`` (a variant), ``board`` (``kind``, the variant in
    ``arg``, the offset in ``num``), ``unwatch`` (the board left the screen) or
    ``share`` (copy the line in ``arg``)."""

    name: str
    arg: str = ""
    num: int = 0
    kind: str = ""


class Context(NamedTuple):
    """What a key may depend on beyond the UI state (from :func:`context_of`)."""

    name: str = ""  # the player's name
    claimed: bool = False  # ... and whether it is claimed
    daily: bool = False  # the room (or its results) is a daily challenge
    variant: str = ""  # the room's variant
    share: str = ""  # the results' share line
    board_total: int | None = None  # entries of the board on screen
    variants: tuple[Variant, ...] = ()  # what the server offers (its welcome)


def context_of(state: RaceState) -> Context:
    room, results, board = state.room or {}, state.results or {}, state.board or {}
    total = board.get("total")
    variant = results.get("variant") or room.get("variant") or ""
    share = results.get("share")
    return Context(name=state.name, claimed=state.claimed, daily=is_daily(state),
                   variant=variant if isinstance(variant, str) else "",
                   share=share if isinstance(share, str) else "",
                   board_total=total if isinstance(total, int) and not isinstance(total, bool) else None,
                   variants=state.variants)


@dataclass(frozen=True)
class UI:
    """The client's own interface state (menus, selection, input line)."""

    menu: str = "main"  # lobby: main | pick | daily | boards | board
    purpose: str = ""  # pick: quick | create | browse | daily | board-daily | board-wins
    cursor: int = 0
    variant: str = ""  # the variant picked for create, the daily or a board
    board_kind: str = ""  # the board on screen: daily | rating | wins
    board_offset: int = 0
    pending: str | None = None  # the selected source pile
    want_foundation: bool = False  # after ``f``: a digit names the foundation
    text: str | None = None  # the input line, None when closed
    text_purpose: str = ""  # move | code | players | name
    help: bool = False
    help_top: int = 0  # the help's first line on screen (client/help_screen.py scrolls it)
    confirm: str = ""  # resign | quit: waiting for y
    note: str = ""  # a local hint


def settle(ui: UI, mode: str = "") -> UI:
    """The UI state for a new screen (lobby -> room -> race -> results): no stale selection.

    Back in the lobby, a board or daily screen asked for on the way out (``b``
    after a daily's results) is kept.
    """
    keep = mode == "lobby" and ui.menu in ("board", "daily", "arenas")
    return replace(ui, menu=ui.menu if keep else "main", cursor=0, pending=None, want_foundation=False,
                   confirm="", note="", text=None, text_purpose="")


# -- pile names and legal moves ---------------------------------------------------
def pile_key(pile: str) -> str:
    """The hotkey drawn for a pile (``t3`` -> ``3``, ``t11`` -> ``-``, ``f2`` -> ``f2``)."""
    if pile.startswith("t") and pile[1:].isdigit():
        n = int(pile[1:])
        if 1 <= n <= len(TABLEAU_KEYS):
            return TABLEAU_KEYS[n - 1]
    return pile


def _tableau_for_key(key: str, view: dict[str, Any]) -> str | None:
    if len(key) != 1 or key not in TABLEAU_KEYS:
        return None
    pile = f"t{TABLEAU_KEYS.index(key) + 1}"
    return pile if pile in _piles(view) else None


def _piles(view: dict[str, Any]) -> dict[str, Any]:
    piles = view.get("piles")
    return piles if isinstance(piles, dict) else {}


def _legal(view: dict[str, Any]) -> list[str]:
    moves = view.get("legal_moves")
    return [m for m in moves if isinstance(m, str)] if isinstance(moves, list) else []


def _split(move: str) -> tuple[str, str, int] | None:
    """``t1-t4:3`` -> (``t1``, ``t4``, 3); actions -> None."""
    src, sep, rest = move.partition("-")
    if not sep:
        return None
    dst, _, count = rest.partition(":")
    return src, dst, int(count) if count.isdigit() else 1


def targets(ui: UI, view: dict[str, Any] | None) -> frozenset[str]:
    """The piles to highlight: legal targets of the selected source."""
    if view is None or ui.pending is None:
        return frozenset()
    out = set()
    for move in _legal(view):
        parts = _split(move)
        if parts and parts[0] == ui.pending and (not ui.want_foundation or parts[1].startswith("f")):
            out.add(parts[1])
    return frozenset(out)


def choose_move(src: str, dst: str, legal: list[str]) -> str:
    """The move text for src -> dst: the legal one (the longest run if several), else plain."""
    best: tuple[int, str] | None = None
    for move in legal:
        parts = _split(move)
        if parts and parts[0] == src and parts[1] == dst and (best is None or parts[2] > best[0]):
            best = (parts[2], move)
    return best[1] if best else f"{src}-{dst}"


def draw_action(view: dict[str, Any]) -> str:
    """What space does: the legal one of draw and deal, else the one the variant has.

    Never ``redeal``: that spends a pass, and has its own key.
    """
    legal = _legal(view)
    for action in ("draw", "deal"):
        if action in legal:
            return action
    return "deal" if "phase" in view else "draw"  # Corner Stones deals instead of drawing


def redeals_left(view: dict[str, Any] | None) -> int | None:
    """Redeals the game still allows (the view's ``passes_left``), None when it does not say."""
    value = (view or {}).get("passes_left")
    return value if isinstance(value, int) and not isinstance(value, bool) else None


# -- the key handler ------------------------------------------------------------------
def press(ui: UI, key: str, *, mode: str, view: dict[str, Any] | None = None,
          ctx: Context | None = None) -> tuple[UI, list[Command]]:
    """Handle one key in ``mode`` (lobby, room, countdown, race, results)."""
    ctx = ctx or Context()
    if key == "c-c":
        return replace(ui, confirm="", text=None), [Command("quit")]
    if ui.text is not None:
        return _text_key(ui, key)
    if ui.help:
        return replace(ui, help=False), []
    if ui.confirm:
        if key in ("y", "Y"):
            command = Command(ui.confirm)
            return replace(ui, confirm="", note=""), [command]
        return replace(ui, confirm="", note=""), []
    if key == "?":
        return replace(ui, help=True, help_top=0), []
    if mode == "lobby":
        return _lobby_key(ui, key, ctx)
    if mode in ("room", "countdown"):
        if key == "r" and mode == "room":
            return replace(ui, note=""), [Command("ready")]
        if key == "l":
            return UI(), [Command("leave")]
        if key == "q":
            return ui, [Command("quit")]
        return ui, []
    if mode == "results":
        if key == "m":
            if ctx.daily:
                return replace(ui, note="a daily deal is played once a day: no rematch"), []
            return replace(ui, note="rematch accepted: it starts when everyone accepts"), [Command("rematch")]
        if key == "n" and not ctx.daily:
            return replace(ui, note="no rematch for you"), [Command("decline")]
        if key == "c" and ctx.share:
            note = "share line copied (if your terminal allows) and printed when you quit"
            return replace(ui, note=note), [Command("share", ctx.share)]
        if key == "b":  # today's board after a daily, else the ratings
            kind, variant = ("daily", ctx.variant) if ctx.daily and ctx.variant else ("rating", "")
            opened, commands = _open_board(UI(), kind, variant)
            return opened, [Command("leave"), *commands]
        if key in ("l", "escape"):
            return UI(), [Command("leave")]
        if key == "q":
            return ui, [Command("quit")]
        return ui, []
    return _race_key(ui, key, view or {})


def _open_text(ui: UI, purpose: str, text: str = "") -> UI:
    return replace(ui, text=text, text_purpose=purpose, pending=None, want_foundation=False, note="")


def _text_key(ui: UI, key: str) -> tuple[UI, list[Command]]:
    text = ui.text or ""
    if key == "escape":
        return replace(ui, text=None, text_purpose=""), []
    if key == "backspace":
        return replace(ui, text=text[:-1]), []
    if key == "enter":
        closed = replace(ui, text=None, text_purpose="")
        value = text.strip()
        if ui.text_purpose == "move":
            return closed, [Command("move", value.lower())] if value else []
        if ui.text_purpose == "code":
            if not value:
                return closed, []
            return replace(closed, menu="main"), [Command("join", value.upper())]
        if ui.text_purpose == "name":
            if not value:
                return closed, []
            if len(value) > MAX_NAME:
                return replace(ui, note=f"a name has 1 to {MAX_NAME} characters"), []
            return replace(closed, note=""), [Command("claim", value)]
        if ui.text_purpose == "players":
            value = value or "2"
            if not value.isdigit() or not 2 <= int(value) <= 8:
                return replace(ui, text="", note="a room takes 2 to 8 players"), []
            return replace(closed, menu="main", note=""), [Command("create", ui.variant, int(value))]
        return closed, []
    if len(key) == 1 and key.isprintable() and len(text) < MAX_TEXT:
        return replace(ui, text=text + key), []
    return ui, []


def _open_board(ui: UI, kind: str, variant: str = "", offset: int = 0) -> tuple[UI, list[Command]]:
    opened = replace(ui, menu="board", board_kind=kind, variant=variant, board_offset=max(offset, 0),
                     cursor=0, note="")
    return opened, [Command("board", variant, max(offset, 0), kind)]


def _move_cursor(ui: UI, key: str, count: int) -> UI | None:
    if key in ("up", "k"):
        return replace(ui, cursor=(ui.cursor - 1) % count)
    if key in ("down", "j", "tab"):
        return replace(ui, cursor=(ui.cursor + 1) % count)
    return None


def _lobby_key(ui: UI, key: str, ctx: Context) -> tuple[UI, list[Command]]:
    if ui.menu == "pick":
        return _pick_key(ui, key, ctx.variants)
    if ui.menu == "daily":
        return _daily_key(ui, key, ctx)
    if ui.menu == "boards":
        return _boards_key(ui, key)
    if ui.menu == "board":
        return _board_key(ui, key, ctx)
    # the main menu
    items = [item[0] for item in LOBBY_ITEMS]
    moved = _move_cursor(ui, key, len(items))
    if moved is not None:
        return moved, []
    if key == "enter":
        key = items[ui.cursor]
    if key == "q":
        return ui, [Command("quit")]
    if key == "escape":  # easy to hit by accident (it goes back everywhere else): ask first
        return replace(ui, confirm="quit", note="quit? y to quit, any other key stays"), []
    if key == "1":
        return replace(ui, menu="pick", purpose="quick", cursor=0, note=""), []
    if key == "2":
        return replace(ui, menu="pick", purpose="create", cursor=0, note=""), []
    if key == "3":
        return _open_text(ui, "code"), []
    if key == "4":
        return replace(ui, menu="pick", purpose="browse", cursor=0, note=""), []
    if key == "5":
        return replace(ui, menu="pick", purpose="daily", cursor=0, note=""), []
    if key == "6":
        return replace(ui, menu="boards", cursor=0, note=""), []
    if key == "7":
        if ctx.claimed:
            return replace(ui, note=f"the name {ctx.name} is already yours on this server"), []
        return _open_text(ui, "name", ctx.name[:MAX_NAME]), []
    return ui, []


def _pick_key(ui: UI, key: str, variants: tuple[Variant, ...]) -> tuple[UI, list[Command]]:
    count = len(variants)
    if key in ("escape", "backspace", "left", "h"):
        back = "boards" if ui.purpose.startswith("board-") else "main"
        return replace(ui, menu=back, cursor=0), []
    moved = _move_cursor(ui, key, count)
    if moved is not None:
        return moved, []
    chosen: int | None = None
    if key == "enter":
        chosen = ui.cursor
    elif len(key) == 1 and key.isdigit() and 1 <= int(key) <= count:
        chosen = int(key) - 1
    if chosen is None or not variants:
        return ui, []
    variant = variants[chosen % count].id
    if ui.purpose == "quick":
        return replace(ui, menu="main", cursor=0), [Command("quick", variant)]
    if ui.purpose == "create":
        return replace(_open_text(ui, "players"), variant=variant, cursor=chosen), []
    if ui.purpose == "daily":
        return replace(ui, menu="daily", variant=variant, cursor=0, note=""), [Command("daily_info", variant)]
    if ui.purpose in ("board-daily", "board-wins"):
        return _open_board(ui, ui.purpose.removeprefix("board-"), variant)
    return replace(ui, cursor=chosen), []  # browsing: move the cursor only


def _daily_key(ui: UI, key: str, ctx: Context) -> tuple[UI, list[Command]]:
    """Today's challenge of ``ui.variant``: its info on screen."""
    if key in ("escape", "backspace", "left", "h"):
        return replace(ui, menu="pick", purpose="daily", note="",
                       cursor=index_of(ctx.variants, ui.variant)), []
    if key in ("enter", "s"):
        note = "starting today's deal (the server may take a few seconds to pick it)"
        return replace(ui, note=note), [Command("daily", ui.variant)]
    if key == "b":
        return _open_board(ui, "daily", ui.variant)
    if key == "w":
        return _open_board(ui, "wins", ui.variant)
    if key == "r":
        return replace(ui, note=""), [Command("daily_info", ui.variant)]
    if key == "q":
        return ui, [Command("quit")]
    return ui, []


def _boards_key(ui: UI, key: str) -> tuple[UI, list[Command]]:
    items = [item[0] for item in BOARD_ITEMS]
    if key in ("escape", "backspace", "left", "h"):
        return replace(ui, menu="main", cursor=0), []
    moved = _move_cursor(ui, key, len(items))
    if moved is not None:
        return moved, []
    if key == "enter":
        key = items[ui.cursor]
    if key == "1":
        return replace(ui, menu="pick", purpose="board-daily", cursor=0), []
    if key == "2":
        return _open_board(ui, "rating")
    if key == "3":
        return replace(ui, menu="pick", purpose="board-wins", cursor=0), []
    if key == "q":
        return ui, [Command("quit")]
    return ui, []


def _board_key(ui: UI, key: str, ctx: Context) -> tuple[UI, list[Command]]:
    """A board page on screen: page through it, refresh it, leave it."""
    if key in ("escape", "backspace", "h"):
        back = replace(ui, menu="boards", cursor=0, note="", board_offset=0)
        return back, [Command("unwatch")]
    if key in ("n", "right", "down", "j", " "):
        offset = ui.board_offset + BOARD_PAGE
        if ctx.board_total is not None and offset >= ctx.board_total:
            return replace(ui, note="this is the last page"), []
        return _open_board(ui, ui.board_kind, ui.variant, offset)
    if key in ("p", "left", "up", "k"):
        if ui.board_offset <= 0:
            return replace(ui, note="this is the first page"), []
        return _open_board(ui, ui.board_kind, ui.variant, ui.board_offset - BOARD_PAGE)
    if key == "r":
        return _open_board(ui, ui.board_kind, ui.variant, ui.board_offset)
    if key == "q":
        return ui, [Command("quit")]
    return ui, []


def _race_key(ui: UI, key: str, view: dict[str, Any]) -> tuple[UI, list[Command]]:
    legal = _legal(view)
    piles = _piles(view)
    clear = replace(ui, pending=None, want_foundation=False, note="")
    if key == "escape":
        return clear, []
    if key in (":", "enter"):
        return _open_text(ui, "move"), []
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

    pile = _tableau_for_key(key, view)
    if pile is None and key in ("w", "s"):
        pile = key
    if pile is None:
        if ui.pending is not None and key == "-":  # typing w-t3 after the w hotkey
            return _open_text(ui, "move", f"{ui.pending}-"), []
        if len(key) == 1 and key.isalpha():
            return _open_text(ui, "move", key), []
        return ui, []
    if ui.pending is None:
        note = "" if any(m.startswith(pile + "-") for m in legal) else f"no legal move from {pile}"
        return replace(ui, pending=pile, want_foundation=False, note=note), []
    if ui.pending == pile:
        return clear, []
    return clear, [Command("move", choose_move(ui.pending, pile, legal))]
