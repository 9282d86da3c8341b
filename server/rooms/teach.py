"""Why a hint's move is good: one sentence read off the solver's winning line.

A hint (server/rooms/solo.py) is the first move of a line the solver replayed
to a won game. The rest of that line says what the move is for: the card it
uncovers goes home a few moves later, the pile it empties is filled next, the
card it plays was the last of its suit. :func:`why` looks a few moves ahead
along the line (:data:`LOOK_AHEAD`) for the first such reason and says it;
where none is plain (a move that only shuffles cards for a plan further
away), it says nothing rather than something vague.

**Never a hidden card.** The sentence names only cards the player sees now:
the look-ahead stops at the first move that brings a card out of the stock or
puts one back into it (a draw, a deal, a redeal), so every card it can name
was face up when the hint was asked (every pile but the stock is face up in
every variant: server/game/views.py). Counting what is left of a suit is no
leak either: which cards the stock holds (not their order) follows from the
cards on the table.
"""

from __future__ import annotations

from typing import Final

from ..game import engine
from ..game.cards import SUIT_NAMES, card_text, suit
from ..game.moves import Move, parse
from ..game.safe import safe_foundation_moves
from ..game.state import STOCK, State
from ..game.variants import RULES

LOOK_AHEAD: Final = 6  # moves of the line read after the hinted one


def _suit_word(card: int) -> str:
    return SUIT_NAMES[suit(card)][:-1]  # "spades" -> "spade"


def _is_pile_move(m: Move) -> bool:
    return m.kind == "move"


def _ahead(state: State, line: tuple[str, ...]) -> list[tuple[State, Move]]:
    """The positions and moves of the line after its first move, up to the
    look-ahead or the first move that touches the stock."""
    out: list[tuple[State, Move]] = []
    for text in line[1:LOOK_AHEAD + 1]:
        m = parse(text)
        if not _is_pile_move(m):
            break
        out.append((state, m))
        state = engine.play(state, m, engine.IN_PROGRESS)
    return out


def _when(j: int) -> str:
    return "next" if j == 0 else f"{j + 1} moves later"


def why(state: State, line: tuple[str, ...]) -> str | None:
    """The reason for ``line[0]`` (a winning line from ``state``), or None."""
    if not line:
        return None
    rules = RULES[state.variant]
    names, index = rules.names, rules.index
    first = parse(line[0])
    if first.kind in ("draw", "deal"):
        return "nothing on the table helps yet: the winning line goes on from the stock"
    if first.kind == "redeal":
        return "the winning line needs cards of the waste again"
    if first.kind != "move" or first.src not in index or first.dst not in index:
        return None
    src = index[first.src]
    if src == STOCK:
        return None
    pile = state.piles[src]
    moved = pile[-first.n:]
    after = engine.play(state, first, engine.IN_PROGRESS)
    ahead = _ahead(after, line)
    if first.dst.startswith("f"):
        card = moved[-1]
        left = sum(1 for i, p in enumerate(after.piles) if not names[i].startswith("f")
                   for c in p if suit(c) == suit(card))
        if left == 0 and rules.spec.decks == 1:
            return f"{card_text(card)} is the last {_suit_word(card)}: the {SUIT_NAMES[suit(card)]} are done"
    reason = _uncovers(pile, first, ahead)
    if reason is not None:
        return reason
    if first.dst.startswith("f") and first in safe_foundation_moves(rules, state, [first]):
        return f"{card_text(moved[-1])} goes home: no other card will ever need it"
    if not after.piles[src] and first.src.startswith("t"):
        for j, (at, m) in enumerate(ahead):
            if m.dst == first.src and at.piles[index[m.src]]:
                filler = at.piles[index[m.src]][-m.n]
                return f"this empties {first.src} for {card_text(filler)}, which goes there {_when(j)}"
        if any(parse(text).dst == first.src for text in line[1:]):
            return f"this empties {first.src}: a space the line fills later"
    return None


def _uncovers(pile: tuple[int, ...], first: Move, ahead: list[tuple[State, Move]]) -> str | None:
    """The card under the moved ones, if the line moves it soon (it is face up
    now: it is in a pile other than the stock)."""
    if len(pile) <= first.n:
        return None
    under = pile[-first.n - 1]
    for j, (at, m) in enumerate(ahead):
        if m.src != first.src:
            continue
        rules = RULES[at.variant]
        top = at.piles[rules.index[m.src]]
        if not top or top[-m.n] != under:
            return None  # something else was put there first: not what the move was for
        if m.dst.startswith("f"):
            return f"this uncovers {card_text(under)}, which goes home {_when(j)}"
        return f"this frees {card_text(under)}, which goes to {m.dst} {_when(j)}"
    return None
