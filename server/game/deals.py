"""PySolFC deal numbers: the same number gives the same card order (``deal_v1``).

The procedure, reimplemented from its published description:

* ``1 <= N < 32000`` and ``"ms<N>"`` use the Microsoft-compatible linear
  congruential generator; every other number seeds a Mersenne Twister exactly
  as CPython's ``random.Random(N)`` does (PySolFC's own generator).
* The unshuffled deck is PySolFC's: for each deck, suits C S H D, ranks A..K;
  on the LC path a single deck is first rearranged rank-major (AC AD AH AS 2C…).
* The shuffle walks from the last index down, swapping with ``randint(0, i)``.
* The last element of the shuffled array is the top of the talon, dealt first.

Games may rearrange the shuffled array before dealing (PySolFC's shuffle
hooks); :func:`shuffled_array` exposes it for them, :func:`deal_order` gives
the plain top-first order.
"""

from __future__ import annotations

import random
import re
from typing import Final

from .cards import Card

DEAL_VERSION: Final = "deal_v1"
LC_LIMIT: Final = 32000
MS_MAX: Final = 2**33 - 1
MAX_DEAL: Final = 10**20 - 1  # PySolFC shows its random game numbers as 20 digits

_STRIP = re.compile(r"[\s#\-_.,]")


class BadDealNumber(ValueError):
    """The text is not a deal number this generator can use."""


def deal_input(value: object) -> int | str:
    """``value`` itself if it has a deal number's type (an int or text), else
    :class:`BadDealNumber`. Boundary functions take ``object`` and narrow with
    this: compiled by mypyc, a parameter typed ``int | str`` would reject a
    float with a bare ``TypeError`` before our own check could explain it."""
    if isinstance(value, bool):
        raise BadDealNumber("a deal number must be an integer, not a boolean")
    if isinstance(value, int | str):
        return value
    raise BadDealNumber(f"a deal number must be an integer or text, not {type(value).__name__}")


def parse_deal_number(value: object) -> tuple[int, bool]:
    """Return ``(number, ms)`` where ``ms`` selects the LC generator.

    Accepts ints and PySolFC's text forms (``"24"``, ``"ms24"``, ``"#1_000"``,
    a trailing ``L``), and rejects anything else with :class:`BadDealNumber`.
    """
    value = deal_input(value)
    if isinstance(value, int):
        if value < 0:  # str(-5) is "-5", and the '-' separator would be stripped
            raise BadDealNumber(f"deal numbers run from 1 to {MAX_DEAL}: {value!r}")
        text = str(value)
    else:
        text = value
        if text.strip().lower().removeprefix("ms").lstrip().startswith("-"):
            # '-' also separates digit groups ("1-000") and is stripped below: a leading
            # one is a minus sign, refused like a negative int, not taken as its absolute value
            raise BadDealNumber(f"deal numbers run from 1 to {MAX_DEAL}: {value!r}")
    t = _STRIP.sub("", text.strip().lower())
    if t.endswith("l"):
        t = t[:-1]
    ms = t.startswith("ms")
    digits = t[2:] if ms else t
    if not digits.isdigit() or not digits.isascii():
        raise BadDealNumber(f"not a deal number: {value!r}")
    n = int(digits)
    if ms:
        if not 1 <= n <= MS_MAX:
            raise BadDealNumber(f"ms deal numbers run from 1 to {MS_MAX}: {value!r}")
        return n, True
    if n < 1 or n > MAX_DEAL:
        raise BadDealNumber(f"deal numbers run from 1 to {MAX_DEAL}: {value!r}")
    return n, n < LC_LIMIT


def canonical_deal_text(value: object) -> str:
    """``ms<N>`` for an explicit ms number above the LC range, else the digits."""
    n, ms = parse_deal_number(value)
    return f"ms{n}" if ms and n >= LC_LIMIT else str(n)


class _LCRandom:
    """The Microsoft-compatible generator, including its >= 2**31 quirks."""

    def __init__(self, seed: int) -> None:
        if seed >= 2**32:
            self._state = seed - 2**32
            self._mode = 2
        else:
            self._state = seed
            self._mode = 1 if seed >= 2**31 else 0

    def randint_to(self, i: int) -> int:
        self._state = (self._state * 214013 + 2531011) % 2**33
        if self._mode == 2:
            out = ((self._state >> 16) & 0xFFFF) + 1
        else:
            out = (self._state >> 16) & 0x7FFF
            if self._mode == 1:
                out |= 0x8000
        return out % (i + 1)


class _MTRandom:
    """PySolFC's Mersenne Twister path: CPython's MT seeded with the number."""

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)

    def randint_to(self, i: int) -> int:
        # int(random() * (i+1)), not randrange: this is what PySolFC does.
        return int(self._rng.random() * (i + 1))


def unshuffled(decks: int, ms: bool) -> list[Card]:
    cards = [suit * 13 + r for _ in range(decks) for suit in range(4) for r in range(13)]
    if ms and decks == 1:
        # rank-major with suits C D H S, as the MS FreeCell deals expect
        order = [0, 3, 2, 1]  # clubs, diamonds, hearts, spades in PySolFC suit numbers
        cards = [s * 13 + r for r in range(13) for s in order]
    return cards


def shuffled_array(number: int | str, decks: int = 1) -> list[Card]:
    """The shuffled array, bottom of the talon first (PySolFC's own order)."""
    n, ms = parse_deal_number(number)
    rng: _LCRandom | _MTRandom = _LCRandom(n) if ms else _MTRandom(n)
    cards = unshuffled(decks, ms)
    for i in range(len(cards) - 1, 0, -1):
        j = rng.randint_to(i)
        cards[i], cards[j] = cards[j], cards[i]
    return cards


def deal_order(number: int | str, decks: int = 1) -> list[Card]:
    """Cards in the order they are dealt: the first element is dealt first."""
    return shuffled_array(number, decks)[::-1]
