"""What a player may see, and nothing more.

The view lists every face-up card by pile, the stock's size (never its cards
or their order), passes left, the legal moves and the status. Opponents get
even less: :func:`progress` has counts only.
"""

from __future__ import annotations

import functools
from typing import Any

from .cards import CARD_TEXT, rank_name
from .engine import IN_PROGRESS, rules_of, status
from .moves import Move
from .safe import safe_foundation_moves
from .state import STOCK, WASTE, State

# Pile texts by pile: a move changes one or two piles, so nearly every pile of a
# view was turned into text before. Views are encoded and dropped, never changed
# in place, so the lists can be shared. Bounded like the view encoder's pile table
# (server/wire/viewcodec.py): full, the least recently used entry goes.
PILE_TEXTS_MAX = 8_192


def pile_texts(pile: tuple[int, ...]) -> list[str]:
    return [CARD_TEXT[c] for c in pile]


_pile_texts = functools.lru_cache(maxsize=PILE_TEXTS_MAX)(pile_texts)


def view(state: State, known_status: str | None = None,
         known_moves: list[Move] | None = None) -> dict[str, Any]:
    """``known_status`` and ``known_moves``: the caller's ``status(state)`` and
    ``legal_moves(state)``, when it has them already."""
    rules = rules_of(state)
    spec = rules.spec
    piles = dict(zip(rules.names[WASTE:], map(_pile_texts, state.piles[WASTE:]), strict=True))
    st = known_status or status(state)
    legal = [] if st != IN_PROGRESS else (rules.legal_moves(state) if known_moves is None else known_moves)
    out: dict[str, Any] = {
        "variant": spec.id,
        "piles": piles,
        "stock_count": len(state.piles[STOCK]),
        "waste_count": len(state.piles[WASTE]),
        "passes_left": spec.passes - state.redeals - 1,
        "foundation_cards": rules.foundation_cards(state),
        "total_cards": spec.total_cards,
        "status": st,
        "legal_moves": [str(m) for m in legal],
        # foundation moves of cards no other move could ever need (server/game/safe.py)
        "safe_moves": [str(m) for m in safe_foundation_moves(rules, state, legal)],
        "must_fill": rules.names[state.vacancy] if state.vacancy >= 0 else None,
        "base_rank": rank_name(state.base) if state.base else None,
    }
    out.update(rules.extra_view(state))
    return out


def progress(state: State, moves: int) -> dict[str, Any]:
    """An opponent's progress: counts and status, never a card."""
    rules = rules_of(state)
    return {
        "foundation_cards": rules.foundation_cards(state),
        "total_cards": rules.spec.total_cards,
        "moves": moves,
        "status": status(state),
    }
