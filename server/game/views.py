"""What a player may see, and nothing more.

The view lists every face-up card by pile, the stock's size (never its cards
or their order), passes left, the legal moves and the status. Opponents get
even less: :func:`progress` has counts only.
"""

from __future__ import annotations

from typing import Any

from .cards import rank_name
from .engine import IN_PROGRESS, rules_of, status
from .state import STOCK, WASTE, State


def view(state: State, known_status: str | None = None) -> dict[str, Any]:
    """``known_status``: the caller's ``status(state)``, when it has it already."""
    rules = rules_of(state)
    spec = rules.spec
    piles = {name: rules.pile_text(state, i)
             for i, name in enumerate(rules.names) if i != STOCK}
    st = known_status or status(state)
    out: dict[str, Any] = {
        "variant": spec.id,
        "piles": piles,
        "stock_count": len(state.piles[STOCK]),
        "waste_count": len(state.piles[WASTE]),
        "passes_left": spec.passes - state.redeals - 1,
        "foundation_cards": rules.foundation_cards(state),
        "total_cards": spec.total_cards,
        "status": st,
        "legal_moves": [str(m) for m in rules.legal_moves(state)] if st == IN_PROGRESS else [],
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
