"""The Four Seasons family: a cross of five piles (or Simplicity's twelve)
with four corner foundations keyed by suit (f1 clubs, f2 spades, f3 hearts,
f4 diamonds), a stock and a waste.

Parameters cover most differences; the rest are small named methods:
``_deal_1883`` and the vacancy obligation (four-seasons-1883),
``_auto_fill`` (czarina, corners), Florentine's centre cell
(``_centre_moves``, ``_why_not_centre``, ``_refill_centre``), and for PySolFC's own games
``_deal_corners_pysol`` (its shuffle hook) and ``_refill_from_waste`` (its
``fillStack``: czarina-pysol, corners-pysol).
"""

from __future__ import annotations

from typing import Any

from ..cards import SUIT_NAMES, card_text, rank, rank_name, suit
from ..deals import deal_order, shuffled_array
from ..moves import DRAW, Move
from ..state import STOCK, WASTE, Pile, State
from . import layouts
from .base import ClassMoves, MovableMoves, Rules


class CrossRules(Rules):
    family = "cross"

    # -- the screen --------------------------------------------------------
    def family_layout(self) -> dict[str, Any]:
        spec = self.spec
        hints = self.foundation_hints()
        if spec.tableau == 5:
            roles = {f"t{k}": "cell" for k in range(1, 6)} if spec.build == "cells" else {}
            if spec.centre_cell:
                roles["t3"] = "cell"
            return layouts.build(layouts.CROSS_GRID, roles=roles, foundations=hints)
        # Simplicity: the corners in a row above two rows of columns
        tableau = tuple(f"t{k}" for k in range(1, spec.tableau + 1))
        grid = (("f1", "f2", "f3", "f4"), *layouts.rows_grid(tableau, 6))
        return layouts.build(grid, fans=dict.fromkeys(tableau, "down"), foundations=hints)

    def foundation_hints(self) -> dict[str, dict[str, Any]]:
        return layouts.suit_foundations(4, None)

    # -- the deal ----------------------------------------------------------
    def initial(self, deal: int | str) -> State:
        if self.spec.deal_style == "corners-pysol":
            return self._deal_corners_pysol(deal)
        order = deal_order(deal, 1)
        piles: list[Pile] = [()] * len(self.names)
        base_card = order[0]
        piles[self.f0 + suit(base_card)] = (base_card,)
        if self.spec.deal_style == "cross-1883":
            rest = self._deal_1883(order[1:], piles, rank(base_card))
        else:
            for k in range(self.spec.tableau):
                piles[self.t0 + k] = (order[1 + k],)
            rest = order[1 + self.spec.tableau:]
        if self.spec.deal_waste and rest:
            # PySolFC turns the next card face up at the deal: its game numbers then match ours
            piles[WASTE] = (rest[0],)
            rest = rest[1:]
        piles[STOCK] = tuple(reversed(rest))  # the stock's last card is drawn next
        return State(self.spec.id, tuple(piles), base=rank(base_card))

    def _deal_corners_pysol(self, deal: int | str) -> State:
        """PySolFC 417's shuffle hook, bias kept: scanning the shuffled array from
        the bottom of the talon, the first card of each suit is taken out and put on
        top, clubs topmost; they are dealt to their foundations (clubs, spades,
        hearts, diamonds), then one card to each cell, then one to the waste."""
        array = shuffled_array(deal, 1)
        first: dict[int, int] = {}
        for c in array:
            if suit(c) not in first:
                first[suit(c)] = c
                if len(first) == 4:
                    break
        taken = set(first.values())
        order = [first[s] for s in range(4)] + [c for c in reversed(array) if c not in taken]
        piles: list[Pile] = [()] * len(self.names)
        for s in range(4):
            piles[self.f0 + s] = (order[s],)
        for k in range(self.spec.tableau):
            piles[self.t0 + k] = (order[4 + k],)
        rest = order[4 + self.spec.tableau:]
        piles[WASTE] = tuple(rest[:1])
        piles[STOCK] = tuple(reversed(rest[1:]))
        return State(self.spec.id, tuple(piles), base=0)  # each foundation starts where it was dealt

    def _deal_1883(self, order: list[int], piles: list[Pile], base: int) -> list[int]:
        """Dick's procedure: a dealt card that fits a foundation is built at
        once, any other card goes to the next empty cell of the cross, until
        the cross is full. Returns the undealt cards in deal order."""
        nxt = 0
        for used, c in enumerate(order):
            if self._fits_foundation(piles, base, c):
                piles[self.f0 + suit(c)] += (c,)
            else:
                piles[self.t0 + nxt] = (c,)
                nxt += 1
                if nxt == self.spec.tableau:
                    return order[used + 1:]
        return []

    # -- card relations ----------------------------------------------------
    def _fits_foundation(self, piles: list[Pile] | tuple[Pile, ...], base: int, c: int) -> bool:
        f = piles[self.f0 + c // 13]
        if not f:
            return c % 13 + 1 == base
        return len(f) < 13 and c % 13 == (f[-1] + 1) % 13

    def _builds_on(self, c: int, t: int, base: int) -> bool:
        """Whether ``c`` may be placed on tableau card ``t``."""
        if (t - c) % 13 != 1:
            return False
        if t % 13 == 0 and self.spec.wrap == "unless-ace-base" and base == 1:
            return False  # a King goes on an Ace only when the Aces are not the base
        return self.spec.build != "down-alt" or (c >= 26) != (t >= 26)

    def may_build_on(self, card: int, target: int, base: int) -> bool:
        # Corners' tableau piles are cells: nothing is ever built on them
        return self.spec.build != "cells" and self._builds_on(card, target, base)

    def _run_length(self, pile: Pile, base: int) -> int:
        n = 1
        while n < len(pile) and self._builds_on(pile[-n], pile[-n - 1], base):
            n += 1
        return n

    def builds_by_colour(self) -> bool:
        return self.spec.build == "down-alt"

    def foundation_wants(self, state: State) -> frozenset[int]:
        return frozenset(c for c in range(52) if self._fits_foundation(state.piles, state.base, c))

    # -- move generation ---------------------------------------------------
    def legal_moves(self, state: State) -> list[Move]:
        if state.vacancy >= 0:
            return self._fill_moves(state, state.vacancy)
        if self.spec.centre_cell:
            return self._centre_moves(state)
        piles, base = state.piles, state.base
        spec = self.spec
        cells = spec.build == "cells"
        out: list[Move] = []
        sources = [i for i in self.tableau_range if piles[i]]
        if piles[WASTE]:
            sources.append(WASTE)
        # each tableau pile's top card once per position (-1: empty)
        slots = [(b, piles[b][-1] if piles[b] else -1) for b in self.tableau_range]
        any_fill = spec.space_fill != "waste"
        for a in sources:
            c = piles[a][-1]
            step = self.steps[a]  # the Move objects are made once, not per position
            if self._fits_foundation(piles, base, c):
                out.append(step[self.f0 + c // 13])
            if cells:
                if spec.cell_fill:  # PySolFC's cells take any one card while empty
                    out.extend(step[b] for b, t in slots if t < 0 and b != a)
                continue
            above = (c + 1) % 13  # the rank a card needs under it
            fill = any_fill or a == WASTE
            for b, t in slots:
                if t < 0:
                    if fill and b != a:
                        out.append(step[b])
                # the rank test inline first: it rules out most piles without a call
                elif t % 13 == above and b != a and self._builds_on(c, t, base):
                    out.append(step[b])
        if spec.runs:
            out.extend(self._run_moves(state))
        if spec.foundation_moves:
            out.extend(self._foundation_to_tableau(state, slots))
        if piles[STOCK] and not self._draw_blocked(state):
            out.append(DRAW)
        elif self.redeal_allowed(state):
            out.extend(self.draw_moves(state))
        return out

    def _centre_moves(self, state: State) -> list[Move]:
        """Florentine: the centre card goes to a foundation or into an empty
        outer pile, never onto a card, and nothing goes onto the centre; an
        empty outer pile takes the waste top or the centre card."""
        piles, base = state.piles, state.base
        centre = self.t0 + 2
        outer = [i for i in self.tableau_range if i != centre]
        spaces = [b for b in outer if not piles[b]]
        out: list[Move] = []
        sources = [i for i in outer if piles[i]]
        if piles[WASTE]:
            sources.append(WASTE)
        if piles[centre]:
            sources.append(centre)
        for a in sources:
            c = piles[a][-1]
            step = self.steps[a]
            if self._fits_foundation(piles, base, c):
                out.append(step[self.f0 + c // 13])
            if a in (WASTE, centre):
                out.extend(step[b] for b in spaces)
            if a != centre:
                out.extend(step[b] for b in outer
                           if b != a and piles[b] and self._builds_on(c, piles[b][-1], base))
        out.extend(self.draw_moves(state))
        return out

    def _why_not_centre(self, state: State, a: int, b: int) -> str | None:
        """Florentine's centre rules, before the family's; '' when they have nothing to say."""
        centre = self.t0 + 2
        if b == centre:
            return "nothing may be moved onto the centre card: the stock refills the centre by itself"
        if a == centre and b in self.tableau_range and state.piles[b]:
            return "the centre card cannot be built onto the cross: it goes to a foundation or into a space"
        if b in self.tableau_range and not state.piles[b] and a not in (WASTE, centre):
            return f"in {self.spec.name} a space is filled only from the waste or with the centre card"
        return ""

    def _refill_centre(self, piles: list[Pile]) -> None:
        """Florentine: an emptied centre takes the stock's top card, or the waste
        top once the stock is gone; it stays empty only when both are."""
        centre = self.t0 + 2
        if not piles[centre]:
            if piles[STOCK]:
                piles[centre] = piles[STOCK][-1:]
                piles[STOCK] = piles[STOCK][:-1]
            elif piles[WASTE]:
                piles[centre] = piles[WASTE][-1:]
                piles[WASTE] = piles[WASTE][:-1]

    def class_moves(self) -> ClassMoves | None:
        spec = self.spec
        if spec.centre_cell or spec.foundation_moves:
            return None  # Florentine's centre, cards back off a foundation
        if spec.build == "cells":  # nothing builds on a cell; PySolFC's empty cells take any card
            return ClassMoves(spec.cell_fill, spec.cell_fill, self._refill_kind())
        return ClassMoves(spec.space_fill != "waste", True, self._refill_kind(), spec.runs,
                          spec.space_fill == "must-fill")

    def movable_moves(self, base: int) -> MovableMoves | None:
        spec = self.spec
        if (not spec.foundation_moves or spec.runs or spec.centre_cell or spec.build == "cells"
                or spec.space_fill != "any" or spec.deal_style == "corners-pysol"):
            return None
        # f1..f4 are clubs, spades, hearts, diamonds, each up from the base rank round the corner
        return MovableMoves(tuple(bytes(s * 13 + (base - 1 + i) % 13 for i in range(13))
                                  for s in range(4)), True)

    def _refill_kind(self) -> str:
        return {"auto": "every", "waste-auto": "source"}.get(self.spec.space_fill, "")

    def dead_places(self) -> tuple[list[int], list[int]]:
        if self.spec.centre_cell:  # the centre is no ordinary pile: keep it apart
            centre = self.t0 + 2
            return [WASTE, centre], [i for i in self.tableau_range if i != centre]
        return super().dead_places()

    def _foundation_to_tableau(self, state: State, slots: list[tuple[int, int]]) -> list[Move]:
        """simplicity-pysol: a foundation's top card back onto a pile it fits, or a space."""
        out: list[Move] = []
        for a in self.foundation_range:
            if state.piles[a]:
                c, step = state.piles[a][-1], self.steps[a]
                out.extend(step[b] for b, t in slots if t < 0 or self._builds_on(c, t, state.base))
        return out

    def _run_moves(self, state: State) -> list[Move]:
        piles, base, out = state.piles, state.base, []
        for a in self.tableau_range:
            src = piles[a]
            for n in range(2, self._run_length(src, base) + 1 if src else 0):
                bottom = src[-n]
                for b in self.tableau_range:
                    if b != a and piles[b] and self._builds_on(bottom, piles[b][-1], base):
                        out.append(Move("move", self.names[a], self.names[b], n))
        return out

    def _fill_moves(self, state: State, hole: int) -> list[Move]:
        """The only moves while the 1883 vacancy obligation is open."""
        piles, names = state.piles, self.names
        out = [Move("move", names[a], names[hole]) for a in self.tableau_range
               if a != hole and piles[a]]
        if piles[WASTE]:
            out.append(Move("move", "w", names[hole]))
        elif piles[STOCK]:
            out.append(Move("move", "s", names[hole]))
        return out

    def _draw_blocked(self, state: State) -> bool:
        if state.vacancy >= 0:
            return True
        return (self.spec.draw_needs_full_cross and bool(state.piles[WASTE])
                and any(not state.piles[i] for i in self.tableau_range))

    # -- the checked path --------------------------------------------------
    def why_illegal(self, state: State, move: Move) -> str | None:
        spec, piles = self.spec, state.piles
        if move.kind == "deal":
            return f"{spec.name} has no deal action: draw turns the next stock card"
        if move.kind == "draw":
            if not piles[STOCK]:
                return "the stock is empty" + (": redeal first" if self.redeal_allowed(state) else "")
            if state.vacancy >= 0:
                return f"{self.names[state.vacancy]} is empty and must be filled first"
            if self._draw_blocked(state):
                return f"{spec.name} keeps the cross filled: fill the empty pile before drawing"
            return None
        if move.kind == "redeal":
            return self.why_not_redeal(state)
        if move.kind != "move":
            return f"{move.kind} is not an action of {spec.name}"
        return self._why_not_move(state, move)

    def _why_not_move(self, state: State, move: Move) -> str | None:
        spec, piles, base = self.spec, state.piles, state.base
        a, b = self.index.get(move.src), self.index.get(move.dst)
        if a is None or b is None:
            return f"{spec.name} has no pile {move.src if a is None else move.dst}"
        if b in (STOCK, WASTE):
            return f"nothing may be moved to the {'stock' if b == STOCK else 'waste'}"
        if a in self.foundation_range and not (spec.foundation_moves and b in self.tableau_range):
            return "cards on a foundation stay there" + (
                "" if not spec.foundation_moves else ", unless they go back to the tableau")
        if a == STOCK:
            if state.vacancy != b or piles[WASTE]:
                return ("the stock's top card goes straight into a space only under the 1883 "
                        "rules, while a space must be filled and the waste is empty")
            if not piles[STOCK]:
                return "the stock is empty"
        elif not piles[a]:
            return f"{move.src} is empty"
        if state.vacancy >= 0 and b != state.vacancy:
            return f"{self.names[state.vacancy]} is empty and must be filled first"
        if spec.centre_cell and b not in self.foundation_range:
            why = self._why_not_centre(state, a, b)
            if why:
                return why
        n = move.n
        src = piles[a]
        if n > 1:
            if not spec.runs:
                return f"{spec.name} moves one card at a time"
            if a not in self.tableau_range or b not in self.tableau_range:
                return "only a tableau pile's run can move onto another tableau pile"
            if n > len(src) or n > self._run_length(src, base):
                return f"the top {n} cards of {move.src} are not a descending run"
            if not piles[b]:
                return "a space takes a single card"
        c = src[-n]
        if b in self.foundation_range:
            return self._why_not_foundation(piles, base, c, b)
        if spec.build == "cells":
            if spec.cell_fill:
                return None if not piles[b] else f"a cell holds one card: {move.dst} is taken"
            return f"{spec.name}'s cells take no cards from you: they refill from the stock"
        dst = piles[b]
        if dst:
            if self._builds_on(c, dst[-1], base):
                return None
            return f"{card_text(c)} does not go on {card_text(dst[-1])}: {self._build_rule(base)}"
        if spec.space_fill == "waste" and a != WASTE:
            return f"in {spec.name} a space can be filled only from the waste"
        return None

    def _why_not_foundation(self, piles: tuple[Pile, ...], base: int, c: int, b: int) -> str | None:
        want = self.f0 + c // 13
        if b != want:
            return f"{card_text(c)} goes to the {SUIT_NAMES[c // 13]} foundation ({self.names[want]})"
        f = piles[b]
        if not f:
            if rank(c) == base:
                return None
            return f"an empty foundation takes only a {rank_name(base)}, the base rank of this deal"
        if len(f) == 13:
            return f"the {SUIT_NAMES[c // 13]} foundation is complete"
        if c % 13 == (f[-1] + 1) % 13:
            return None
        return f"{card_text(c)} does not go on {card_text(f[-1])}: foundations build up by one in suit"

    def _build_rule(self, base: int) -> str:
        colours = " in alternating colours" if self.spec.build == "down-alt" else ""
        wrap = "" if self.spec.wrap == "always" or base != 1 else " (no King on an Ace: Aces are the base)"
        return f"the tableau builds down by one{colours}{wrap}"

    # -- the fast path -----------------------------------------------------
    def apply(self, state: State, move: Move) -> State:
        kind = move.kind
        if kind == "move":
            a, b, n = self.index[move.src], self.index[move.dst], move.n
            piles = list(state.piles)
            src = piles[a]
            piles[a] = src[:-n]
            piles[b] = piles[b] + src[-n:]
            vacancy = -1
            if self.spec.space_fill == "must-fill" and not piles[a] and a >= self.t0:
                vacancy = a if self._has_fill_source(piles, a) else -1
            elif self.spec.space_fill == "auto":
                self._auto_fill(piles)
            elif self.spec.space_fill == "waste-auto":
                self._refill_from_waste(piles, a)
            if self.spec.centre_cell:
                self._refill_centre(piles)
            return State(state.variant, tuple(piles), state.base, state.redeals, vacancy)
        if kind == "draw":
            return State(state.variant, tuple(self.do_draw(state)), state.base, state.redeals)
        if kind == "redeal":
            return self.do_redeal(state)
        raise ValueError(f"cannot apply {move}")

    def _has_fill_source(self, piles: list[Pile], hole: int) -> bool:
        # Once the stock and waste are gone, filling from a one-card pile only
        # moves the hole, forever: the obligation then lapses (seeds/rules card).
        return bool(piles[WASTE] or piles[STOCK]
                    or any(len(piles[i]) > 1 for i in self.tableau_range if i != hole))

    def _auto_fill(self, piles: list[Pile]) -> None:
        """Czarina and Corners: a space takes the stock's top card at once, or
        the waste top once the stock is gone; it stays empty only when both are."""
        for i in self.tableau_range:
            if not piles[i]:
                if piles[STOCK]:
                    piles[i] = piles[STOCK][-1:]
                    piles[STOCK] = piles[STOCK][:-1]
                elif piles[WASTE]:
                    piles[i] = piles[WASTE][-1:]
                    piles[WASTE] = piles[WASTE][:-1]

    def _refill_from_waste(self, piles: list[Pile], src: int) -> None:
        """PySolFC's Corners.fillStack, run on the pile a move came from: an emptied
        cross pile (or cell) takes the waste top; an emptied waste takes the next
        stock card. A draw or a redeal fills nothing, so after a redeal the waste
        stays empty until the player draws, and a pile emptied then stays empty."""
        if src >= self.t0 and not piles[src] and piles[WASTE]:
            piles[src] = piles[WASTE][-1:]
            piles[WASTE] = piles[WASTE][:-1]
            src = WASTE
        if src == WASTE and not piles[WASTE] and piles[STOCK]:
            piles[WASTE] = piles[STOCK][-1:]
            piles[STOCK] = piles[STOCK][:-1]
