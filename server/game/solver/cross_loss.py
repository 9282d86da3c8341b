"""The cross family's sound loss tests: each answers True only for positions
that cannot be won. :meth:`.cross.CrossModel.dead` calls them; they live
apart from the model only to keep cross.py short, and read it through
:class:`CrossPosition` so that this module imports no model (the solver's
modules import one another without a cycle, type-only imports included).

Every card has to reach a foundation in the end, so a position is lost as
soon as one card provably can never leave the place where it lies. The
mobility test proves that with a least fixpoint; Corners' endgame is decided
exactly by a greedy pass.

**Mobility (cross family, last pass).** Start with no card known to move
(cards still in the stock excepted: each will be turned). Repeatedly add a
card if it has an exit *assuming only the cards already added ever move*:

* it can be uncovered: every card above it in its pile or in the waste is
  already known to move (in the 1883 rules, a run lying on it may also move
  with it);
* and it has somewhere to go: its foundation (every lower card of its suit
  off the foundations is known to move and none lies under it), or a card
  it may be packed on that is not home, not under it, and either moves or
  can be uncovered where it lies outside the waste, or a pile that could be
  emptied (empty now, or holding only cards known to move).

Each card in the real game moves for the first time only when such an exit
exists with the cards moved before it, so by induction every card that ever
moves is added: what is never added can never move, and the position is
lost. The waste is a stack only once no redeal is left, hence "last pass".
"""

from __future__ import annotations

from typing import Protocol


class CrossPosition(Protocol):
    """What the loss tests read of a :class:`.cross.CrossModel` (see there)."""

    piles: list[bytes]
    waste: list[int]
    fcount: list[int]
    rel: list[int]
    on: list[list[bool]]
    parents: list[list[int]]
    lower: list[list[int]]
    cells: bool
    runs: bool
    redeals: int
    max_redeals: int


def cross_frozen(m: CrossPosition) -> list[int]:
    """Cards of the cross-family position ``m`` that can never move again."""
    if m.redeals < m.max_redeals:
        return []
    piles, waste, rel, fcount = m.piles, m.waste, m.rel, m.fcount
    cells = m.cells
    if not cells and not all(piles):
        return []  # an empty pile takes any uncovered card: everything can move, top down
    nt = len(piles)
    stack_of = [-2] * 52  # -2: home or still in the stock
    depth_of = [0] * 52
    pending: list[int] = []
    for si, pile in enumerate(piles):
        for d, c in enumerate(pile):
            stack_of[c] = si
            depth_of[c] = d
    for d, c in enumerate(waste):
        stack_of[c] = nt
        depth_of[c] = d
    stacks = [*piles, waste]
    # tops first, so that one sweep usually settles everything
    top = max((len(p) for p in stacks), default=0)
    for d in range(top - 1, -1, -1):
        for st in stacks:
            if d < len(st):
                pending.append(st[d])
    if not pending:
        return []
    mobile = [stack_of[c] == -2 for c in range(52)]  # stock cards will be turned
    runs = m.runs
    on, parents, lower = m.on, m.parents, m.lower
    changed = True
    while changed and pending:
        changed = False
        nxt: list[int] = []
        gap = any(all(mobile[c] for c in p) for p in piles)
        for x in pending:
            si, d = stack_of[x], depth_of[x]
            stack = stacks[si]
            above_move = True
            for c in stack[d + 1:]:
                if not mobile[c]:
                    above_move = False
                    break
            # a run lying on x could carry x along (1883)
            if not above_move and not (
                    runs and si < nt
                    and all(on[stack[k + 1]][stack[k]] for k in range(d, len(stack) - 1))):
                nxt.append(x)
                continue
            # 1883: a card inside a run reaching the top may leave with a run
            # based lower down; count it as able to move (an over-estimate)
            ok = runs and si < nt
            if not ok and above_move:
                ok = True
                for y in lower[x][fcount[x // 13]:]:
                    if not mobile[y] or (stack_of[y] == si and depth_of[y] < d):
                        ok = False
                        break
            if not ok:
                if cells:
                    ok = si == nt and gap  # Corners: the waste top refills an emptied cell
                elif gap:
                    ok = True
                else:
                    for p in parents[x]:
                        if fcount[p // 13] > rel[p]:
                            continue  # home already
                        sp = stack_of[p]
                        if sp == si and depth_of[p] < d:
                            continue  # under x
                        if mobile[p]:
                            ok = True
                            break
                        if sp == nt:
                            continue  # stays in the waste for good: takes nothing
                        for c in stacks[sp][depth_of[p] + 1:]:
                            if not mobile[c]:
                                break
                        else:
                            ok = True
                            break
            if ok:
                mobile[x] = True
                changed = True
            else:
                nxt.append(x)
        pending = nxt
    return pending


def cross_dead(m: CrossPosition) -> bool:
    return bool(cross_frozen(m))


def corners_endgame_dead(m: CrossPosition) -> bool:
    """Corners with the stock gone: exact.

    The playable cards are the cells and the waste top; playing any of them
    brings the next waste card into that set (a cell refills from the waste
    top), so every order of play leads to the same sets and playing whatever
    fits is optimal: the position is won exactly when that greedy pass
    clears the table. (A position with an empty cell beside a waste card is
    never reached in play; it is left undecided.)"""
    if m.waste and not all(m.piles):
        return False
    fcount = list(m.fcount)
    rel = m.rel
    avail = [p[-1] for p in m.piles if p]
    waste = list(m.waste)
    if waste:
        avail.append(waste.pop())
    progress = True
    while progress:
        progress = False
        for c in avail:
            if fcount[c // 13] == rel[c]:
                fcount[c // 13] += 1
                avail.remove(c)
                if waste:
                    avail.append(waste.pop())
                progress = True
                break
    return bool(avail)
