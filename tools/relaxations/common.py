"""What the experiments share: which variants they model, and the lost positions one
search hands on to the next."""

from __future__ import annotations

from collections.abc import Hashable

from server.game.solver.capacity import capacity_lost
from server.game.solver.cross import CrossModel
from server.game.variants import RULES

# the cross variants whose piles build down in any suit one card at a time, fill a space
# with any card by choice, draw without conditions and have one pass: the tableau then is
# five runs and nothing else
MODELLED = frozenset({"four-seasons", "four-seasons-pysol"})


def check_modelled(model: CrossModel) -> None:
    """Refuse a position the experiments do not model exactly."""
    variant = model.spec.id
    if variant not in MODELLED or RULES[variant].spec.build != "down-any" or not model.capacity:
        raise ValueError(f"{variant}: only {sorted(MODELLED)} with piles that are runs")


def fc_bits(fc: list[int]) -> int:
    return fc[0] | fc[1] << 4 | fc[2] << 8 | fc[3] << 12


class Capacity:
    """The solver's capacity test, remembered per waste, stock and foundations."""

    def __init__(self, model: CrossModel) -> None:
        self.rel = model.rel
        self.tn = model.tn
        self.wrap = model.wrap_runs
        self.seen: dict[tuple[int, int, int], bool] = {}

    def lost(self, removed: int, waste: list[int], stock: list[int], fc: list[int]) -> bool:
        if not waste:
            return False
        k = (removed, len(stock), fc_bits(fc))
        hit = self.seen.get(k)
        if hit is None:
            hit = self.seen[k] = capacity_lost(waste, stock, fc, self.rel, self.tn, self.wrap)
        return hit


class RelaxedContent:
    """What the relaxations' positions share: the exact waste, stock and foundations,
    the content part of a key, and the loss tests (lost before, or short of capacity)."""

    removed: int
    waste: list[int]
    stock: list[int]
    fc: list[int]
    memo: LostKeys
    capacity: Capacity

    def content(self) -> int:
        return self.removed | len(self.stock) << 52 | fc_bits(self.fc) << 58

    def key(self) -> Hashable:
        raise NotImplementedError

    def won(self) -> bool:
        return sum(self.fc) == 52

    def progress(self) -> int:
        return sum(self.fc)

    def dead(self) -> bool:
        return (self.key() in self.memo.lost
                or self.capacity.lost(self.removed, self.waste, self.stock, self.fc))


class LostKeys:
    """Keys proved lost by earlier searches of one game, and the keys of the current one.

    Every position reachable from a lost one is lost too, so once a search comes back
    *lost*, every key it computed (its positions and the children it cut) joins the set
    that later searches treat as dead."""

    def __init__(self) -> None:
        self.lost: set[Hashable] = set()
        self.current: set[Hashable] = set()

    def note(self, key: Hashable) -> Hashable:
        self.current.add(key)
        return key

    def settle(self, lost: bool) -> None:
        if lost:
            self.lost |= self.current
        self.current = set()
