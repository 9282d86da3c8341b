"""Cards as small integers, their text form and rank arithmetic.

A card is ``suit * 13 + rank0`` with PySolFC's suit order (clubs, spades,
hearts, diamonds) and ``rank0`` in 0..12 (ace..king). Two-deck games use the
same 52 values twice: copies of a card are interchangeable in play, so the
engine never needs to tell them apart. Ranks in rules are 1..13 (A=1, K=13).
"""

from __future__ import annotations

from typing import Final

RANK_LETTERS: Final = "A23456789TJQK"
SUIT_LETTERS: Final = "CSHD"  # PySolFC's suit numbering: 0 clubs, 1 spades, 2 hearts, 3 diamonds
SUIT_NAMES: Final = ("clubs", "spades", "hearts", "diamonds")
SUIT_GLYPHS: Final = ("\u2663", "\u2660", "\u2665", "\u2666")

Card = int

CLUBS, SPADES, HEARTS, DIAMONDS = 0, 1, 2, 3
ACE, KING = 1, 13


def make_card(rank: int, suit: int) -> Card:
    """The card of ``rank`` (1..13) and ``suit`` (0..3)."""
    return suit * 13 + rank - 1


def rank(card: Card) -> int:
    return card % 13 + 1


def suit(card: Card) -> int:
    return card // 13


def is_red(card: Card) -> bool:
    return card >= 26  # hearts and diamonds are suits 2 and 3


CARD_TEXT: Final = tuple(r + s for s in SUIT_LETTERS for r in RANK_LETTERS)


def card_text(card: Card) -> str:
    """``TD`` for the ten of diamonds: rank letter then suit letter."""
    return CARD_TEXT[card]


def parse_card(text: str) -> Card:
    """Inverse of :func:`card_text`; accepts ``10`` for ``T`` and lower case."""
    t = text.strip().upper()
    if t.startswith("10"):
        t = "T" + t[2:]
    if len(t) != 2 or t[0] not in RANK_LETTERS or t[1] not in SUIT_LETTERS:
        raise ValueError(f"not a card: {text!r} (expected rank A23456789TJQK + suit CDHS)")
    return SUIT_LETTERS.index(t[1]) * 13 + RANK_LETTERS.index(t[0])


def succ(r: int) -> int:
    """Next rank round the corner: K is followed by A."""
    return r % 13 + 1


def pred(r: int) -> int:
    """Previous rank round the corner: A is preceded by K."""
    return (r + 11) % 13 + 1


def step(r: int, k: int) -> int:
    """Rank ``k`` steps above ``r`` with wrap (Betsy Ross / Calculation)."""
    return (r - 1 + k) % 13 + 1


def rank_name(r: int) -> str:
    return RANK_LETTERS[r - 1]
