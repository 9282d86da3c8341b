"""The move notation: one compact text form for every action.

``w-t3`` moves the waste top to tableau pile 3, ``t1-t4:3`` a run of three,
``s-t3`` the stock top straight into a vacancy; ``draw``, ``redeal``,
``deal``, ``deal:round``, ``deal:all`` and ``resign`` are actions.
``parse(str(m)) == m`` for every move; see docs/reference/moves.md.
"""

from __future__ import annotations

import re
from typing import Final, NamedTuple

MAX_MOVE_TEXT: Final = 32
_PILE = r"(?:s|w|[ft][1-9][0-9]?|i[1-4])"
_MOVE_RE: Final = re.compile(rf"({_PILE})-({_PILE})(?::([1-9][0-9]?))?")
DEAL_AMOUNTS: Final = ("", "round", "all")
ACTIONS: Final = ("draw", "redeal", "resign")


class BadMove(ValueError):
    """The text is not a move in the notation at all."""


class IllegalMove(ValueError):
    """A well-formed move that the rules do not allow in this position."""


class GameOver(ValueError):
    """The game has ended: nothing more can be played."""


class Move(NamedTuple):
    """One player action. ``kind`` is ``move`` or one of the action words."""

    kind: str
    src: str = ""
    dst: str = ""
    n: int = 1  # cards moved (a run of n where the variant allows runs)
    amount: str = ""  # for ``deal``: "" (one card), "round" or "all"

    def __str__(self) -> str:
        # every view lists its legal moves as text: remember the texts made
        text = _TEXTS.get(self)
        if text is None:
            text = self._format()
            if len(_TEXTS) < _TEXTS_MAX:
                _TEXTS[self] = text
        return text

    def _format(self) -> str:
        if self.kind == "move":
            run = f":{self.n}" if self.n != 1 else ""
            return f"{self.src}-{self.dst}{run}"
        if self.kind == "deal" and self.amount:
            return f"deal:{self.amount}"
        return self.kind


_TEXTS: dict[Move, str] = {}
_TEXTS_MAX: Final = 50_000  # far above every move of every variant; parsed junk cannot grow it


DRAW: Final = Move("draw")
REDEAL: Final = Move("redeal")
RESIGN: Final = Move("resign")
DEAL_ONE: Final = Move("deal")
DEAL_ROUND: Final = Move("deal", amount="round")
DEAL_ALL: Final = Move("deal", amount="all")
_ACTION_MOVES: Final = {
    "draw": DRAW,
    "redeal": REDEAL,
    "resign": RESIGN,
    "deal": DEAL_ONE,
    "deal:round": DEAL_ROUND,
    "deal:all": DEAL_ALL,
}


def move(src: str, dst: str, count: int = 1) -> Move:
    return Move("move", src, dst, count)


class MoveParser:
    """Parses move texts and remembers the ones it parsed: a race sends the same
    few hundred texts over and over. At most ``limit`` are kept (cleared when
    full), and junk is never kept. The limit is a parameter, not a module
    constant a test could patch: compiled by mypyc, a constant is baked in."""

    def __init__(self, limit: int = _TEXTS_MAX) -> None:
        self.limit = limit
        self.known: dict[str, Move] = {}

    def parse(self, text: object) -> Move:
        if not isinstance(text, str):
            raise BadMove(f"a move must be text, not {type(text).__name__}")
        known = self.known.get(text)
        if known is None:
            known = _parse(text)  # junk raises here, so only moves are remembered
            if len(self.known) >= self.limit:
                self.known.clear()
            self.known[text] = known
        return known


_PARSER: Final = MoveParser()


def parse(text: object) -> Move:
    """Parse move text; raise :class:`BadMove` with the reason if it is not one."""
    return _PARSER.parse(text)


def _parse(text: str) -> Move:
    if len(text) > MAX_MOVE_TEXT:
        raise BadMove(f"move text longer than {MAX_MOVE_TEXT} characters")
    t = text.strip().lower()
    action = _ACTION_MOVES.get(t)
    if action is not None:
        return action
    m = _MOVE_RE.fullmatch(t)
    if m is None:
        raise BadMove(
            f"not a move: {text!r} (expected e.g. w-t3, t2-f1, t1-t4:3, draw, redeal, deal, resign)"
        )
    src, dst, count = m.group(1), m.group(2), m.group(3)
    if src == dst:
        raise BadMove(f"a move needs two different piles: {text!r}")
    return Move("move", src, dst, int(count) if count else 1)
