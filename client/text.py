"""Text for the terminal: made safe, measured in cells, wrapped at word boundaries (pure).

Every text that came from the server (names, error messages, codes, card
texts) goes through :func:`clean` first, so no server can move the cursor,
retitle the window or spoof a line with escape codes.

The screen is a tuple of lines, each a tuple of (style, text) fragments.
:class:`Out` collects them for one terminal width: a line wider than the
terminal is wrapped at a space onto continuation lines (indented like the
line they continue), never cut, so a word is never broken in two; only a
single word wider than the whole terminal is cut, with an ellipsis. When the
screen is taller than the terminal, :meth:`Out.screen` drops blank spacer
lines, from the bottom up, before anything that says something.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any, Final

from wcwidth import wcwidth

__all__ = [
    "Fragment",
    "Line",
    "Out",
    "Screen",
    "clean",
    "keys_line",
    "pad",
    "player_name",
    "plural",
    "text_lines",
    "width_of",
    "wrap",
]

Fragment = tuple[str, str]
Line = tuple[Fragment, ...]
Screen = tuple[Line, ...]

# CSI, OSC, DCS/SOS/PM/APC strings, two-byte escapes and 8-bit CSI: removed whole.
_ESCAPES: Final = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]?"
    r"|\x1b\][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
    r"|\x1b[PX^_][^\x1b\x9c]*(?:\x1b\\|\x9c)?"
    r"|\x1b[ -/]*[0-~]?"
    r"|\x9b[0-?]*[ -/]*[@-~]?"
)
_DROP_CATEGORIES: Final = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
_TOKENS: Final = re.compile(r" +|[^ ]+")  # only a plain space breaks a line
NBSP: Final = "\u00a0"  # holds a key and what it does together; drawn as a space


def clean(value: object, limit: int | None = None) -> str:
    """Server text made safe to draw: no escape sequences, control or format characters.

    ``limit`` abbreviates the result to that many terminal cells (with an ellipsis).
    """
    text = value if isinstance(value, str) else str(value)
    text = _ESCAPES.sub("", unicodedata.normalize("NFC", text))
    text = "".join(
        " " if ch in "\t\n\r" else ch
        for ch in text
        if ch in "\t\n\r" or unicodedata.category(ch) not in _DROP_CATEGORIES
    )
    if limit is not None and width_of(text) > limit:
        text = _cut(text, limit)
    return text


_SEAT_NUMBER: Final = re.compile(r" #[0-9]+$")


def player_name(value: object, limit: int) -> str:
    """A player's name from the server, abbreviated to ``limit`` cells but never
    losing the `` #2`` the server adds to tell two players of one name apart."""
    text = clean(value)
    found = _SEAT_NUMBER.search(text)
    if found is None or width_of(text) <= limit:
        return clean(text, limit)
    return _cut(text[:found.start()], limit - len(found.group())) + found.group()


def _cut(text: str, limit: int) -> str:
    out, used = [], 0
    for ch in text:
        w = max(wcwidth(ch), 0)
        if used + w > limit - 1:
            break
        out.append(ch)
        used += w
    return "".join(out) + "\u2026"


def keys_line(*items: str) -> str:
    """`` space draw · q quit``: a line of keys that wraps between items, never inside one."""
    return " " + " \u00b7 ".join(item.replace(" ", NBSP) for item in items if item)


def width_of(text: str) -> int:
    return sum(max(wcwidth(ch), 0) for ch in text)


def plural(n: int, word: str, many: str | None = None) -> str:
    """``1 move``, ``2 moves``."""
    return f"{n} {word if n == 1 else (many or word + 's')}"


def pad(frags: list[Fragment], width: int, right: bool = False) -> list[Fragment]:
    used = sum(width_of(t) for _, t in frags)
    fill = ("", " " * max(width - used, 0))
    return [fill, *frags] if right else [*frags, fill]


def text_lines(screen: Screen) -> list[str]:
    """The screen as plain text lines (for tests and logs)."""
    return ["".join(text for _, text in line) for line in screen]


def wrap(text: str, width: int) -> list[str]:
    """Plain text in lines of at most ``width`` cells, broken at spaces."""
    return ["".join(t for _, t in line) for line in _wrap_line((("", text),), width)] if text else []


def _words(line: Line) -> list[list[Fragment]]:
    """The line as tokens: runs of spaces and words, a word possibly spanning fragments."""
    tokens: list[list[Fragment]] = []
    for style, text in line:
        for piece in _TOKENS.findall(text):
            space = piece[0] == " "
            if tokens and not space and tokens[-1][0][1][0] != " ":
                tokens[-1].append((style, piece))  # the word goes on in the next fragment
            else:
                tokens.append([(style, piece)])
    return tokens


def _wrap_line(line: Line, width: int) -> list[Line]:
    if sum(width_of(t) for _, t in line) <= width:
        return [line]
    tokens = _words(line)
    lead = tokens[0][0][1] if tokens and tokens[0][0][1][0] == " " else ""
    indent = " " * min(width_of(lead) + 2, width // 3)
    out: list[list[Fragment]] = []
    current: list[Fragment] = []
    used = 0
    for token in tokens:
        w = sum(width_of(t) for _, t in token)
        space = token[0][1][0] == " "
        if used + w <= width:
            current += token
            used += w
            continue
        if space:  # a break: the spaces go
            out.append(current)
            current, used = [("", indent)], len(indent)
            continue
        if used > len(indent):
            out.append(current)
            current, used = [("", indent)], len(indent)
        if used + w > width:  # one word wider than the terminal: abbreviated, the only cut
            token = [(token[0][0], _cut("".join(t for _, t in token), width - used))]
            w = width - used
        current += token
        used += w
    out.append(current)
    return [tuple(f for f in _rstrip(frags) if f[1]) for frags in out]


def _rstrip(frags: list[Fragment]) -> list[Fragment]:
    while frags and frags[-1][1].strip(" ") == "":
        frags = frags[:-1]
    return frags


class Out:
    """The lines of one screen, for a terminal ``width`` cells wide and ``height`` lines tall."""

    def __init__(self, width: int = 80, height: int | None = None, ascii_only: bool = False) -> None:
        self.width = width
        self.height = height
        self.ascii = ascii_only
        self.lines: list[Line] = []

    def add(self, *frags: Fragment | list[Fragment]) -> None:
        line: list[Fragment] = []
        for f in frags:
            if isinstance(f, list):
                line.extend(f)
            else:
                line.append(f)
        self.lines += _wrap_line(tuple(x for x in line if x[1]), self.width)

    def text(self, text: str = "", style: str = "") -> None:
        self.add((style, text))

    def screen(self) -> Screen:
        lines = [tuple((s, t.replace(NBSP, " ")) for s, t in line) for line in self.lines]
        while lines and not "".join(t for _, t in lines[-1]).strip():
            lines.pop()  # trailing blank lines say nothing
        if self.height is not None:
            blank = [i for i, line in enumerate(lines) if not "".join(t for _, t in line).strip()]
            for i in reversed(blank):  # from the bottom: indices above stay valid
                if len(lines) <= self.height:
                    break
                del lines[i]
        return tuple(lines)


def bot_tag(player: dict[str, Any]) -> str:
    """" [bot 3]" after a bot's name (the server marks each player's ``bot`` level; 0 is a
    person), " [bot]" after a bot account's (a program from outside: ``bot_account``): in
    plain text, so it reads the same with --ascii and lines stay aligned."""
    level = player.get("bot")
    if isinstance(level, int) and not isinstance(level, bool) and 1 <= level <= 9:
        return f" [bot {level}]"
    if player.get("bot_account") is True:
        return " [bot]"
    return ""
