"""The terminal client's interface state and the commands a key press asks
for (pure: no terminal, no network), with the helpers every screen's keys share."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Final, NamedTuple

from .state import RaceState, is_daily
from .variants import Variant

# the main menu, in its order; what each key does is client/screens/lobby.py's MENU
LOBBY_ITEMS: Final = (
    ("1", "Quick race", "race whoever picks the same variant next"),
    ("2", "Create a private room", "get a code to share with friends"),
    ("3", "Join by code", "enter the code a friend gave you"),
    ("4", "Variants and rules", "a paragraph on each game"),
    ("5", "Today's challenge", "one deal a day, the same for everyone"),
    ("6", "Boards", "today's results, ratings, daily wins"),
    ("7", "Claim your name", "keep it yours: ranked dailies and ratings"),
    ("8", "Play alone", "any variant, any deal number; undo and hints"),
    ("w", "Watch a race", "a room's code: every player's counts, live"),
    ("g", "Race a ghost", "a finished race's code: race its recorded run"),
    ("a", "Arenas", "timed events: a new race after each race"),
    ("d", "Devices", "link a new device, revoke one, recovery codes"),
    ("f", "Friends", "follow names, see who is online, challenge one"),
    ("q", "Quit", ""),
)
BOARD_ITEMS: Final = (
    ("1", "Today's daily board", "pick a variant"),
    ("2", "Ratings", "pick a variant: races between claimed names"),
    ("3", "Daily wins", "pick a variant"),
    ("4", "Profile", "a name's ratings per variant and its streaks"),
)
MAX_NAME: Final = 24


class Command(NamedTuple):
    """Something for the session to do: a name in client/commands.py's ``COMMANDS``
    (e.g. ``move``, ``join``, ``board`` with ``kind``, the variant in ``arg``, the
    offset in ``num``), or ``quit`` and ``share`` (copy the line in ``arg``), which
    the app carries out itself."""

    name: str
    arg: str = ""
    num: int = 0
    kind: str = ""
    scope: str = ""  # a board's: "" all time, or "season" and/or "near" (comma-separated)


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

    menu: str = "main"  # lobby: main | pick | daily | boards | board | profile | arenas | devices | friends
    purpose: str = ""  # pick: quick | create | browse | daily | board-daily | board-rating | board-wins
    cursor: int = 0
    variant: str = ""  # the variant picked for create, the daily or a board
    board_kind: str = ""  # the board on screen: daily | rating | wins
    board_offset: int = 0
    board_scope: str = ""  # a rating or wins board: "" all time, "season"; "near" may follow
    pending: str | None = None  # the selected source pile
    want_foundation: bool = False  # after ``f``: a digit names the foundation
    text: str | None = None  # the input line, None when closed
    text_purpose: str = ""  # move | code | players | name
    help: bool = False
    help_top: int = 0  # the help's first line on screen (client/screens/help.py scrolls it)
    confirm: str = ""  # resign | quit: waiting for y
    note: str = ""  # a local hint
    digits: str = ""  # a number being typed in the variant picker (``1`` of ``12``)
    target: str = ""  # the name a link or recovery code is for, while the code is typed


def settle(ui: UI, mode: str = "") -> UI:
    """The UI state for a new screen (lobby -> room -> race -> results): no stale selection.

    Back in the lobby, a board or daily screen asked for on the way out (``b``
    after a daily's results) is kept.
    """
    keep = mode == "lobby" and ui.menu in ("board", "daily", "arenas", "profile")
    return replace(ui, menu=ui.menu if keep else "main", cursor=0, pending=None, want_foundation=False,
                   confirm="", note="", text=None, text_purpose="", digits="")


def open_text(ui: UI, purpose: str, text: str = "") -> UI:
    return replace(ui, text=text, text_purpose=purpose, pending=None, want_foundation=False, note="")


def open_board(ui: UI, kind: str, variant: str = "", offset: int = 0,
               scope: str = "") -> tuple[UI, list[Command]]:
    """A board on screen: ``scope`` says this season's (``season``) rather than all time's,
    and around the player's own rank (``near``) rather than a page (rating and wins boards)."""
    scope = scope if kind in ("rating", "wins") else ""
    opened = replace(ui, menu="board", board_kind=kind, variant=variant, board_offset=max(offset, 0),
                     board_scope=scope, cursor=0, note="")
    return opened, [Command("board", variant, max(offset, 0), kind, scope)]


def move_cursor(ui: UI, key: str, count: int) -> UI | None:
    if key in ("up", "k"):
        return replace(ui, cursor=(ui.cursor - 1) % count)
    if key in ("down", "j", "tab"):
        return replace(ui, cursor=(ui.cursor + 1) % count)
    return None
