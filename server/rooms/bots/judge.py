"""How good a position looks to a bot: a score from its face-up cards only.

The score is what a player weighs at a glance: cards on the foundations
first; then open spaces, tidy piles (each card one below the card it lies
on), and how deep the cards the foundations want next are buried. It reads
the tableau, the waste and the foundations of a position; the stock is
never read (in a sampled position it is a guess), only its size.
"""

from __future__ import annotations

from ...game.cards import rank
from ...game.state import WASTE, State
from ...game.variants.base import Rules

FOUNDATION = 100.0  # one card on a foundation
SPACE = 14.0  # an empty tableau pile that may be filled
BREAK = 6.0  # a card not one rank below the card under it
BURIED = 4.0  # per card on top of a card a foundation wants now
WASTE_BURIED = 2.0  # per card on top of a wanted card in the waste (one pass: maybe lost)
WASTE_CARD = 0.4  # every card in the waste is one fewer that can still be played in order


def wanted(rules: Rules, state: State) -> set[int]:
    """The cards some foundation would take now (wherever they lie)."""
    piles = state.piles
    family = rules.family
    out: set[int] = set()
    if family == "cross":
        for s in range(4):
            f = piles[rules.f0 + s]
            if not f:
                out.add(s * 13 + state.base - 1)
            elif len(f) < 13:
                out.add(s * 13 + (f[-1] + 1) % 13)
        return out
    if family == "betsy-ross":
        step = 1
        for b in rules.foundation_range:
            f = piles[b]
            if f and len(f) < 12:
                r = (rank(f[-1]) - 1 + step) % 13 + 1
                out.update(s * 13 + r - 1 for s in range(4))
            step += 1
        return out
    # corner-stones: the rules know which card each foundation takes
    want = getattr(rules, "_wanted", None)
    if want is not None:
        return set(want(piles))
    # any other family (Calculation, Fortune's Favor): the rules' own answer
    return set(rules.foundation_wants(state))


def _tidy(rules: Rules, below: int, above: int) -> bool:
    if rules.family == "corner-stones":
        return (above - below) % 13 in (1, 12)
    return (below - above) % 13 == 1


def score(rules: Rules, state: State) -> float:
    piles = state.piles
    value = FOUNDATION * rules.foundation_cards(state)
    want = wanted(rules, state)
    spec = rules.spec
    # in Corner Stones a space is never filled again, but it is one pile fewer to block
    space = SPACE if rules.family == "cross" and spec.build != "cells" else SPACE / 3
    for i in rules.tableau_range:
        pile = piles[i]
        if not pile:
            value += space
            continue
        for below, above in zip(pile, pile[1:], strict=False):
            if not _tidy(rules, below, above):
                value -= BREAK
        top = len(pile) - 1
        for depth, card in enumerate(pile):
            if card in want:
                value -= BURIED * (top - depth)
    waste = piles[WASTE]
    top = len(waste) - 1
    for depth, card in enumerate(waste):
        if card in want:
            value -= WASTE_BURIED * min(top - depth, 6)
    value -= WASTE_CARD * len(waste)
    return value
