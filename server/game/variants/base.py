"""What every variant shares: its spec (data) and the rules interface.

A variant is a :class:`VariantSpec` (parameters only) bound to a rules class
of its family. Behaviour that parameters cannot express lives in small named
methods of the family module, never in a copy of another variant.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, NamedTuple

from ..cards import CARD_TEXT, Card
from ..moves import DRAW, REDEAL, Move
from ..state import FIRST_FOUNDATION, STOCK, WASTE, State
from . import layouts


@dataclass(frozen=True)
class VariantSpec:
    id: str
    name: str
    family: str
    aliases: tuple[str, ...] = ()
    decks: int = 1
    foundations: int = 4
    tableau: int = 5
    indicators: int = 0
    passes: int = 1
    summary: str = ""
    # cross family parameters (ignored by the other families)
    build: str = "down-any"  # down-any | down-alt | cells
    wrap: str = "unless-ace-base"  # unless-ace-base | always
    space_fill: str = "any"  # any | waste | auto | must-fill | waste-auto (PySolFC's Corners.fillStack)
    runs: bool = False  # descending runs move as a unit (1883)
    draw_needs_full_cross: bool = False  # no draw while a space is open and the waste is not empty
    deal_style: str = "cross"  # cross | cross-1883 | corners-pysol | quatre-coins-pysol
    deal_waste: bool = False  # one card turned onto the waste at the deal (PySolFC's games)
    centre_cell: bool = False  # Florentine: the centre (t3) is a one-card cell the stock refills
    # a foundation's top card may leave it again (PySolFC's default max_move=1): to the
    # tableau (simplicity-pysol), or also to a same-suit foundation (les-quatre-coins-pysol)
    foundation_moves: bool = False
    cell_fill: bool = False  # an empty cell takes any one card from the player (PySolFC's ReserveStack)
    sources: tuple[str, ...] = field(default=())
    # A paragraph for players (the lobby shows it; the server sends it in ``welcome``).
    blurb: str = ""
    # An own screen layout (rows of cells, a cell's piles joined by spaces); empty:
    # the family's. Lets a new variant of a family place its piles as data alone.
    grid: tuple[tuple[str, ...], ...] = ()
    fans: tuple[tuple[str, str], ...] = ()  # (pile, fan) where a pile fans otherwise

    def listing(self) -> dict[str, Any]:
        """What the ``welcome`` message says of this variant."""
        return {"id": self.id, "name": self.name, "family": self.family, "blurb": self.blurb or self.summary}

    @property
    def total_cards(self) -> int:
        """Cards that must reach the foundations for a win."""
        return 52 * self.decks - self.indicators

    @property
    def pile_names(self) -> tuple[str, ...]:
        return (
            ("s", "w")
            + tuple(f"f{k}" for k in range(1, self.foundations + 1))
            + tuple(f"t{k}" for k in range(1, self.tableau + 1))
            + tuple(f"i{k}" for k in range(1, self.indicators + 1))
        )


class ClassMoves(NamedTuple):
    """How a variant plays once its stock is spent and before the next
    foundation move, in the terms of the class-level dead search
    (:mod:`..deadsearch`): a top card goes onto a tableau top where
    ``Rules.may_build_on`` allows, or into an empty tableau pile from a tableau
    pile (``space_from_tableau``) or the waste (``space_from_waste``); and after
    a move an emptied tableau pile takes the waste top (``refill``: "" never,
    "source" only the pile the move emptied, "every" every empty pile); and the
    1883 rules' runs and vacancy obligation."""

    space_from_tableau: bool
    space_from_waste: bool
    refill: str
    runs: bool = False  # descending runs of two or more move onto a tableau top (1883)
    must_fill: bool = False  # an emptied pile must be filled next while a source lasts (1883)


class MovableMoves(NamedTuple):
    """How a variant whose foundation cards move (``VariantSpec.foundation_moves``)
    plays once its stock is spent, in the terms of the movable dead search
    (:mod:`..deadmovable`): each foundation holds a fixed sequence of cards, so its
    height fixes its cards (``sequences[j]``: foundation j's cards bottom first);
    a card goes onto a foundation where it is the next of its sequence, a
    foundation's top card onto a tableau top it may be built on
    (``Rules.may_build_on``), or onto another foundation where it is the next; a
    top card of the waste or the tableau onto a tableau top it may be built on;
    and, with ``spaces``, any of these cards into an empty tableau pile."""

    sequences: tuple[bytes, ...]
    spaces: bool


class Rules:
    """The rules of one variant. Subclasses implement the family's behaviour.

    ``legal_moves`` is the fast generator; ``why_illegal`` is the checked path
    that explains a refusal; ``apply`` plays a move without checking it.
    Tests hold the generator and the checker to the same answers.
    """

    family: ClassVar[str] = ""

    def __init__(self, spec: VariantSpec) -> None:
        self.spec = spec
        names = spec.pile_names
        self.names = names
        self.index = {name: i for i, name in enumerate(names)}
        self.f0 = FIRST_FOUNDATION
        self.t0 = FIRST_FOUNDATION + spec.foundations
        self.i0 = self.t0 + spec.tableau
        self.foundation_range = range(self.f0, self.t0)
        self.tableau_range = range(self.t0, self.i0)
        # steps[a][b]: the one-card move from pile a to pile b
        self.steps = [[Move("move", src, dst) for dst in self.names] for src in self.names]
        self._layout: dict[str, Any] | None = None

    # -- to be provided by each family -------------------------------------
    def initial(self, deal: int | str) -> State:
        raise NotImplementedError

    def legal_moves(self, state: State) -> list[Move]:
        raise NotImplementedError

    def why_illegal(self, state: State, move: Move) -> str | None:
        raise NotImplementedError

    def apply(self, state: State, move: Move) -> State:
        raise NotImplementedError

    def foundation_wants(self, state: State) -> frozenset[Card]:
        """Every card some foundation would take now, wherever it lies. A dead
        search never plays to a foundation, so this set stays fixed while it runs:
        the position is alive exactly when one of these cards can be uncovered.
        (Where foundation cards move, ``spec.foundation_moves``, the search keys
        the foundations too and uses this set only to order its work: see dead.py.)"""
        raise NotImplementedError

    # -- shared helpers ----------------------------------------------------
    def foundation_cards(self, state: State) -> int:
        # indexed, not sum(map(len, a slice)): compiled, a loop of lengths costs a
        # tenth of the slice, map and sum (three or four calls per move)
        piles = state.piles
        n = 0
        for i in range(self.f0, self.t0):
            n += len(piles[i])
        return n

    def is_won(self, state: State) -> bool:
        return self.foundation_cards(state) == self.spec.total_cards

    def may_build_on(self, card: Card, target: Card, base: int) -> bool:
        """Whether ``card`` could ever be placed on ``target`` in the tableau (the
        family's building rule, whatever the piles hold now). Families without
        tableau building keep this default."""
        return False

    def can_draw_or_redeal(self, state: State) -> bool:
        """Whether the stock can still bring a new card into play."""
        return bool(state.piles[STOCK]) or self.redeal_allowed(state)

    def redeal_allowed(self, state: State) -> bool:
        return (
            not state.piles[STOCK]
            and bool(state.piles[WASTE])
            and state.redeals < self.spec.passes - 1
        )

    def move_piles(self, state: State, move: Move) -> tuple[int, int] | str:
        """The common front of ``why_illegal`` once a variant has dealt with
        ``draw``: a redeal's verdict, an action the variant lacks, a pile it
        does not have. The (source, target) pile indices of a move, or why not
        (an empty string: a redeal that is allowed)."""
        if move.kind == "redeal":
            return self.why_not_redeal(state) or ""
        if move.kind != "move":
            return f"{move.kind} is not an action of {self.spec.name}"
        a, b = self.index.get(move.src), self.index.get(move.dst)
        if a is None or b is None:
            return f"{self.spec.name} has no pile {move.src if a is None else move.dst}"
        return a, b

    def why_not_redeal(self, state: State) -> str | None:
        if self.spec.passes == 1:
            return f"{self.spec.name} has no redeal"
        if state.piles[STOCK]:
            return "the stock is not empty yet"
        if not state.piles[WASTE]:
            return "the waste is empty: there is nothing to redeal"
        if state.redeals >= self.spec.passes - 1:
            return f"no redeals left ({self.spec.passes - 1} allowed)"
        return None

    def draw_moves(self, state: State) -> list[Move]:
        """``draw`` and ``redeal`` where the plain stock rules allow them."""
        out: list[Move] = []
        if state.piles[STOCK]:
            out.append(DRAW)
        elif self.redeal_allowed(state):
            out.append(REDEAL)
        return out

    @staticmethod
    def do_draw(state: State) -> list[tuple[Card, ...]]:
        piles = list(state.piles)
        stock = piles[STOCK]
        piles[STOCK] = stock[:-1]
        piles[WASTE] = piles[WASTE] + stock[-1:]
        return piles

    @staticmethod
    def do_redeal(state: State) -> State:
        # Turning the waste over keeps the order: the first card drawn in the
        # last pass is drawn first again.
        piles = list(state.piles)
        piles[STOCK] = piles[WASTE][::-1]
        piles[WASTE] = ()
        return State(state.variant, tuple(piles), state.base, state.redeals + 1,
                     state.vacancy, state.resigned)

    def pile_text(self, state: State, index: int) -> list[str]:
        return [CARD_TEXT[c] for c in state.piles[index]]

    def card_classes(self, wanted: frozenset[Card]) -> bytes:
        """A translation table (for ``bytes.translate``) from card to its class
        in a dead-position search: cards of one class are interchangeable there.

        Sound because the search runs only once the stock can bring nothing new
        and stops at the first foundation move, so the foundations stay fixed
        and a card matters only by (a) whether a foundation wants it now and
        (b) what it may be packed on, which in every family is decided by its
        rank (and its colour where the tableau builds in alternating colours).
        Classes are 1..58; 0 and 254/255 are free for separators."""
        table = bytearray(range(256))
        colour = self.builds_by_colour()
        for c in range(52):
            table[c] = 1 + c % 13 + (13 if colour and c >= 26 else 0) + (32 if c in wanted else 0)
        return bytes(table)

    def builds_by_colour(self) -> bool:
        return False

    def class_moves(self) -> ClassMoves | None:
        """The variant's play with the stock spent, for the class-level dead
        search; None where its rules say more than :class:`ClassMoves` can (the
        search then plays the engine's own moves)."""
        return None

    def movable_moves(self, base: int) -> MovableMoves | None:
        """The variant's play with the stock spent where foundation cards move,
        for the movable dead search; None where its rules say more than
        :class:`MovableMoves` can (the search then plays the engine's own moves)."""
        return None

    def dead_places(self) -> tuple[list[int], list[int]]:
        """The piles a dead-position search keys: those kept in place (the waste,
        and any pile with a rule of its own, such as Florentine's centre), and
        the interchangeable tableau piles, which its key sorts."""
        return [WASTE], list(self.tableau_range)

    def layout(self) -> dict[str, Any]:
        """Where the piles sit on a screen (see :mod:`.layouts`); made once."""
        if self._layout is None:
            spec = self.spec
            if spec.grid:
                self._layout = layouts.build(spec.grid, fans=dict(spec.fans),
                                             foundations=self.foundation_hints())
            else:
                self._layout = self.family_layout()
        return self._layout

    def family_layout(self) -> dict[str, Any]:
        """The family's layout: indicators, then foundations, then tableau rows of six."""
        names = self.names[2:]
        grid = (layouts.rows_grid(tuple(n for n in names if n[0] == "i"), 4)
                + layouts.rows_grid(tuple(n for n in names if n[0] == "f"), 4)
                + layouts.rows_grid(tuple(n for n in names if n[0] == "t"), 6))
        return layouts.build(grid, fans=dict(self.spec.fans), foundations=self.foundation_hints())

    def foundation_hints(self) -> dict[str, dict[str, Any]]:
        """What each foundation takes next, for the layout (none: the client says nothing)."""
        return {}

    def extra_view(self, state: State) -> dict[str, Any]:
        """Variant-specific facts for the player's view (e.g. a deal phase)."""
        return {}
