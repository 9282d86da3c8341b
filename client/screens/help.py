"""The help screen (``?`` anywhere): every key, then the variant's rules card, scrollable (pure).

The rules cards are the text of the project's ``seeds/rules/<variant>.md``,
shipped with the client as package data (``client/rulecards/``; a test holds
the copies equal to the originals). Shipping them rather than asking the
server keeps ``?`` instant and working while the connection is down, and
needs no protocol message; the cards change only with a release, as the
rules do. The cards are Markdown, drawn as text: headings underlined, and no
``#``, ``**``, backticks or link syntax left in the words. Paragraphs are
reflowed to the terminal's width (the cards are hard-wrapped for a wider
editor); code blocks such as the layouts are drawn as they are. ``--ascii``
spells the few non-ASCII signs of the cards in ASCII.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import replace
from functools import cache
from importlib import resources
from typing import Final

from ..state import RaceState, mode
from ..text import Out, width_of, wrap
from ..ui import UI
from .base import At, Keys
from .chrome import clock, header

__all__ = ["HELP", "SCROLL_KEYS", "draw", "help_body", "max_top", "plain", "press", "rules_card", "scroll"]

SCROLL_KEYS: Final = {"down": 1, "j": 1, "up": -1, "k": -1, " ": 10, "pagedown": 10, "pageup": -10,
                      "b": -10, "g": -10**6, "G": 10**6}
_NEW_PARAGRAPH: Final = re.compile(r"\s*(#|\||[-*] |\d+\. |>|```)")
_ASCII_SIGNS: Final = str.maketrans({"\u2014": "-", "\u2013": "-", "\u2192": "->", "\u00b7": "-",
                                     "\u2026": "...", "\u00d7": "x", "\u2663": "C", "\u2660": "S",
                                     "\u2665": "H", "\u2666": "D", "\u2264": "<=", "\u2265": ">="})
_CHROME: Final = 3  # the header's two lines and the scroll line under the text


@cache
def rules_card(variant: str) -> str | None:
    """The rules card of ``variant`` (its id), or None for a variant this client does not know."""
    if not re.fullmatch(r"[a-z0-9-]{1,40}", variant):
        return None
    try:
        return (resources.files("client") / "rulecards" / f"{variant}.md").read_text(encoding="utf-8")
    except (FileNotFoundError, OSError):
        return None


def _ascii(text: str) -> str:
    text = unicodedata.normalize("NFKD", text.translate(_ASCII_SIGNS))
    return text.encode("ascii", "ignore").decode()


def _paragraphs(card: str) -> list[tuple[str, bool]]:
    """The card as (text, verbatim) blocks: reflowable paragraphs and code lines."""
    out: list[tuple[str, bool]] = []
    code = False
    current: list[str] = []

    def flush() -> None:
        if current:
            out.append((" ".join(current), False))
            current.clear()

    for raw in card.splitlines():
        line = raw.rstrip()
        if line.lstrip().startswith("```"):
            flush()
            code = not code
            continue
        if code:
            out.append((line, True))
        elif not line.strip():
            flush()
            out.append(("", False))
        elif _NEW_PARAGRAPH.match(line) or not current:
            flush()
            current.append(line)
        else:
            current.append(line.strip())
    flush()
    return out


_HEADING: Final = re.compile(r"\s*(#+)\s+(.*)")
_LINK: Final = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")
_STRONG: Final = re.compile(r"\*\*(.+?)\*\*|__(.+?)__")
_EMPHASIS: Final = re.compile(r"(?<![\w*])\*(?=\S)(.+?)(?<=\S)\*(?![\w*])")
_CODE: Final = re.compile(r"`([^`]+)`")


def plain(text: str) -> str:
    """A Markdown paragraph as it reads on a terminal: no ``#``, ``**``, backticks or
    link syntax (a link keeps its text); a heading is underlined by its caller."""
    text = _CODE.sub(r"\1", text)
    text = _LINK.sub(r"\1", text)
    text = _STRONG.sub(lambda m: m.group(1) or m.group(2), text)
    text = _EMPHASIS.sub(r"\1", text)
    item = re.match(r"(\s*)[*+] ", text)  # a bullet of either kind: one sign on screen
    return f"{item.group(1)}- {text[item.end():]}" if item else text


def _rendered(text: str, width: int, ascii_only: bool) -> list[str]:
    """One block of a card as terminal lines: a heading with a rule under it, or a paragraph."""
    heading = _HEADING.fullmatch(text)
    body = plain(heading.group(2) if heading else text)
    body = _ascii(body) if ascii_only else body
    lines = wrap(" " + body, width) or [""]
    if heading:
        rule = "=" if len(heading.group(1)) == 1 else "-"
        lines.append(" " + rule * min(max(width_of(body), 1), width - 2))
    return lines


def help_body(help_text: tuple[str, ...], state: RaceState, width: int, ascii_only: bool) -> list[str]:
    """Every line of the help screen for this width: the keys, then (in a room,
    a race or its results) the rules card of the room's variant."""
    lines: list[str] = []
    for line in help_text:
        lines += wrap(" " + line, width) or [""]
    variant = (state.room or {}).get("variant") or (state.results or {}).get("variant")
    card = rules_card(variant) if isinstance(variant, str) and mode(state) != "lobby" else None
    if card is not None:
        lines += ["", " " + "-" * min(width - 2, 40), ""]
        for text, verbatim in _paragraphs(card):
            if verbatim:
                lines.append(" " + (_ascii(text) if ascii_only else text))
            else:
                lines += _rendered(text, width, ascii_only)
    return lines


def max_top(total: int, height: int | None) -> int:
    """The last first-line that still fills the screen."""
    if height is None:
        return 0
    return max(total - max(height - _CHROME, 1), 0)


def scroll(top: int, key: str, total: int, height: int | None) -> int:
    return min(max(top + SCROLL_KEYS.get(key, 0), 0), max_top(total, height))


def _draw(help_text: tuple[str, ...], state: RaceState, top: int, out: Out) -> None:
    """The help from line ``top`` (kept in range), as much as the terminal shows."""
    lines = help_body(help_text, state, out.width, out.ascii)
    top = min(max(top, 0), max_top(len(lines), out.height))
    shown = lines if out.height is None else lines[top:top + max(out.height - _CHROME, 1)]
    for i, line in enumerate(shown):
        out.add(("class:title" if top + i == 0 else "", line or " "))
    # the same words on every terminal size (a screen test compares them)
    out.text(" up/down, space, b scroll \u00b7 any other key closes", "class:dim")


def press(ui: UI, key: str, at: At) -> Keys:
    """Up/down, space and ``b`` scroll; any other key closes the help."""
    if key in SCROLL_KEYS:
        total = len(help_body(HELP, at.state, at.size[0], False))
        return replace(ui, help_top=scroll(ui.help_top, key, total, at.size[1])), []
    return replace(ui, help=False), []


def draw(state: RaceState, ui: UI, out: Out, now: int) -> None:
    current = mode(state)
    header(state, out, clock(state, now) if current in ("race", "countdown") else [])
    _draw(HELP, state, ui.help_top, out)


HELP: Final = (
    "How to play",
    "",
    "  A move is two keys: the pile you take from, then the pile you put on. The keys "
    "are drawn on the board: 1..9, 0, -, = for the tableau piles t1..t12, w the waste, s the "
    "stock's top card, f for a foundation (f alone picks the one that fits, else f then its "
    "number). The first key lights up the legal targets; Esc cancels.",
    "  Or type the move: : (or Enter, or a letter that starts a move, such as t) then e.g. w-t3, "
    "t2-f1, t1-t4:3 "
    "(a run of 3), s-t3, draw, redeal, deal, deal:round, deal:all.",
    "",
    "  space  draw (or deal one card)       R      redeal (turns the waste over)",
    "  n / N  deal a round / everything     X      resign (asks first)",
    "  q      quit (your seat is kept)      ?      this help, the rules card",
    "  a      send every safe card home: cards no other move could ever need, one move each",
    "",
    "  A pile's top card (the one that moves) is underlined; foundations show the card they "
    "take next.",
    "  In a room: r when you are ready, l to leave. Done before the others (won, stuck or "
    "resigned)? l or Esc goes back to the lobby: your result stands and comes there when the race "
    "ends. After a race: m offers (or accepts) a "
    "rematch, n declines, s saves your game's record to a file (patience-server verify checks it).",
    "  Play alone (8 in the lobby): any variant on a deal number of your choice (PySolFC's) or a "
    "random one; u undoes a move, h asks for a hint. Never ranked.",
    "  Watch a race (w in the lobby): type its room code; every player's counts, status and "
    "connection and the clock, never a card; l stops watching.",
    "  Race a ghost (g in the lobby, or g on a results screen): a finished race's recorded run of "
    "the same deal, its progress at the times it was played. Type the room code, then a player's "
    "number if not its first place (its winner, if anyone won). A daily's ghosts come once the "
    "day is over; a private room's, to its own players.",
    "  Replay (v on a results screen): every player's game move by move. Left/right step, b/e "
    "the deal/the end, 1-8 or Tab another player, c the player to compare with, d jumps to "
    "where the two paths diverged, Esc back to the results.",
    "  Analyse (a on a results screen, or at the end of a solo game): for each player, the last "
    "position from which the game could still be won and the move that lost it, both proved by "
    "the server's solver, a winning line from there, where the paths parted and who stayed on a "
    "winning line longest; undecided when its budget runs out. A daily's once the day is over.",
    "  Arenas (a in the lobby, then a number): a timed event of one variant. You are paired "
    "with other players after each race's results have been on screen a while (10 s), everyone "
    "of a pairing round on the same deal; a win scores 2 points (4 after two wins in a row, "
    "marked *), the first by foundation cards when nobody won 1. The lobby shows the live "
    "standing; after a race's results Esc comes back to it. l leaves the arena, r refreshes; "
    "finished arenas show their final standing.",
    "  Lobby: 5 today's challenge (a claimed name's first attempt of the day is ranked), "
    "6 boards (n / p page; 4 a name's profile: g its kept games, Enter replays one, g races it as "
    "a ghost; p on a race's results opens your own), 7 claim your name (its key is kept on this "
    "computer; its recovery codes are shown once), d devices (a link code for a new device, "
    "revoke one, a new key, new recovery codes; as a guest: link this device to a name or "
    "recover one). After a daily: c copies the share line, b its board.",
    "  Friends (f in the lobby; claimed names only): the names you follow, online or not and "
    "in which room. f follows a name, u stops, c challenges one (a variant, then the name; it "
    "waits two minutes), a accepts the first challenge waiting and x declines it, b blocks a "
    "name (it can no longer follow or challenge you, and is never paired with you), n unblocks.",
)
