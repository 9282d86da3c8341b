"""The five levels: how a bot picks its next move from what its seat has seen.

All levels decide from :class:`~.knowledge.Knowledge` alone (the views), so
a stronger bot is a better *player*, never a better-informed one.

1. **Beginner**: plays at random among the legal moves, with a pull towards
   the foundations, and overlooks a foundation move one time in three.
2. **Casual**: plays what goes to a foundation (overlooking one in seven),
   sometimes shuffles a tableau card, otherwise turns a card.
3. **Club**: weighs every move by the look of the position after it
   (:mod:`.judge`), with some noise; rarely overlooks a foundation move.
4. **Strong**: searches every position reachable with the face-up cards
   alone (no card turned) and heads for the best-looking one, then turns.
5. **Expert**: as 4, but picks the position to turn from by the average
   over possible next cards (sampled from the unseen ones), and once the
   stock's order is known (after a redeal, or an empty stock) solves the
   rest exactly.

A decision is a generator: it yields every :data:`SLICE` positions it looks
at, so a server runs it in slices with other work in between, and never
looks at more than its level's node budget.
"""

from __future__ import annotations

import random
from collections.abc import Generator
from dataclasses import dataclass, field
from typing import TypeVar

from ...game import engine
from ...game.moves import Move, parse
from ...game.solver import WON, solve_state
from ...game.state import STOCK, State
from . import judge
from .knowledge import Knowledge

SLICE = 24  # positions a decision looks at before it lets other work run
LEVELS = (1, 2, 3, 4, 5)
REVEALS = ("draw", "deal", "redeal")
Key = tuple[tuple[int, ...], ...]  # a position's face-up piles


@dataclass(frozen=True)
class Level:
    number: int
    name: str
    overlook: float  # chance of not seeing a given foundation move
    shuffle: float  # levels 1-2: chance of a tableau move when one is open
    noise: float  # level 3: spread of its misjudgement
    closure: int  # levels 4-5: positions searched without turning a card
    samples: int  # level 5: possible next cards weighed per candidate
    solve: int  # level 5: solver nodes once the stock is known
    stall: int  # moves with nothing gained before the bot gives up
    weigh: int = 0  # levels 4-5: candidate positions weighed by their possible next cards


LEVEL: dict[int, Level] = {
    1: Level(1, "beginner", overlook=0.35, shuffle=0.35, noise=0, closure=0, samples=0, solve=0, stall=30),
    2: Level(2, "casual", overlook=0.12, shuffle=0, noise=20.0, closure=0, samples=0, solve=500, stall=40),
    3: Level(3, "club", overlook=0.03, shuffle=0, noise=0, closure=30, samples=0, solve=1000, stall=50),
    4: Level(4, "strong", overlook=0, shuffle=0, noise=0, closure=160, samples=2, solve=2000, stall=60,
             weigh=2),
    5: Level(5, "expert", overlook=0, shuffle=0, noise=0, closure=220, samples=5, solve=3000, stall=60,
             weigh=3),
}


@dataclass(frozen=True)
class SolveJob:
    """A request from a decision to its caller: solve this position, known in full."""

    state: State
    budget: int


T = TypeVar("T")
# A decision in the making: yields None between slices, or a SolveJob whose
# answer (the winning line, or []) is sent back in.
Thinking = Generator[SolveJob | None, list[str] | None, T]


@dataclass
class Decision:
    move: str
    options: int  # the real choices it had: pacing thinks longer over more
    planned: bool = False  # a step of a plan made earlier (quick to play)


@dataclass
class Mind:
    """A bot's memory between its decisions within one game."""

    level: Level
    know: Knowledge
    rng: random.Random
    plan: list[str] = field(default_factory=list)
    visited: set[tuple[tuple[int, ...], ...]] = field(default_factory=set)
    last_fc: int = -1
    last_stock: int = -1
    stall: int = 0
    nodes: int = 0  # positions looked at in all (for the measurements)
    unsolved: tuple[int, int] | None = None  # the stock (size, pass) the solver gave up on

    def think(self) -> Thinking[Decision]:
        """The next move, from the newest view (at least one legal move)."""
        view = self.know.view
        assert view is not None
        self._track(view)
        if self.stall > self.level.stall or not view["legal_moves"]:
            # (a game the server could not prove dead may leave no move at all)
            return Decision("resign", 1)
        if self.plan and self.plan[0] in view["legal_moves"]:
            return Decision(self.plan.pop(0), 1, planned=True)
        self.plan = []
        know = self.know
        if self.level.solve and know.stock_known() and self.unsolved != know.view_key():
            plan = yield from self._solve()
            if not plan:  # not within budget: the moves from here will not do better
                self.unsolved = know.view_key()
            else:
                self.plan = plan[1:]
                return Decision(plan[0], 2)
        lvl = self.level.number
        if lvl == 1:
            return self._casual()
        if lvl == 2:
            return (yield from self._greedy())
        return (yield from self._search())

    def _track(self, view: dict[str, object]) -> None:
        fc, stock = int(view["foundation_cards"]), int(view["stock_count"])  # type: ignore[call-overload]
        if fc > self.last_fc or stock != self.last_stock:
            self.stall, self.visited = 0, set()
        else:
            self.stall += 1
        self.last_fc, self.last_stock = fc, stock
        self.visited.add(self.know.piles)

    # -- levels 1 and 2 ------------------------------------------------------------
    def _casual(self) -> Decision:
        lv, rng = self.level, self.rng
        moves = self.know.moves
        seen = [m for m in moves if not (_to_foundation(m) and rng.random() < lv.overlook)]
        found = [m for m in seen if _to_foundation(m)]
        reveal = [m for m in seen if m in REVEALS]
        other = [m for m in seen if m not in found and m not in reveal]
        options = len(found) + len(other) + (1 if reveal else 0)
        if found and (lv.number == 2 or rng.random() < 0.7):
            return Decision(rng.choice(found), options)
        if other and (not reveal or rng.random() < lv.shuffle):
            return Decision(rng.choice(other), options)
        if reveal:
            return Decision(reveal[0] if lv.number == 2 else rng.choice(reveal), options)
        return Decision(rng.choice(moves), options)

    # -- level 3 -------------------------------------------------------------------
    def _greedy(self) -> Thinking[Decision]:
        lv, rng, know = self.level, self.rng, self.know
        state = know.sample(rng)
        rules = know.rules
        best, best_value, options = "", float("-inf"), 0
        for text in know.moves:
            if _to_foundation(text) and rng.random() < lv.overlook:
                continue
            after = engine.apply(state, parse(text))
            self.nodes += 1
            if self.nodes % SLICE == 0:
                yield None
            if text not in REVEALS and after.piles[STOCK] == state.piles[STOCK] \
                    and after.piles[1:] in self._visited_tails():
                continue  # back to a position of this turn: going round in circles
            value = judge.score(rules, after) + rng.gauss(0, lv.noise)
            if text in REVEALS:
                value = judge.score(rules, state) + 1.0 + rng.gauss(0, lv.noise)
            options += 1
            if value > best_value:
                best, best_value = text, value
        return Decision(best or rng.choice(know.moves), options)

    def _visited_tails(self) -> set[tuple[tuple[int, ...], ...]]:
        return {p[1:] for p in self.visited}

    # -- levels 4 and 5 ------------------------------------------------------------
    def _search(self) -> Thinking[Decision]:
        lv, rng, know = self.level, self.rng, self.know
        root = know.sample(rng)
        found = yield from self._closure(root, lv.closure)
        rules = know.rules
        # (level 3 misjudges a little: noise on each position's score)
        # and never heads back to a position it has been in since it last gained something
        tails = self._visited_tails()
        ranked = sorted(((k, v) for k, v in found.items() if not v[1] or k not in tails),
                        key=lambda kv: -(kv[1][0] + rng.gauss(0, lv.noise)))
        options = len(found)
        if lv.samples:
            # weigh the best few places to turn a card from by what may come next
            best_path, best_value = None, float("-inf")
            for _, (value, path, state) in ranked[: lv.weigh]:
                expect = yield from self._expect(state, value)
                if expect > best_value:
                    best_path, best_value = path, expect
            assert best_path is not None
            path = best_path
        else:
            path = ranked[0][1][1]
        if path:
            self.plan = path[1:]
            return Decision(path[0], options)
        # nothing better without turning a card: turn the best one there is
        state = root
        reveals = [m for m in rules.legal_moves(state) if _reveals(state, m)]
        if not reveals and state.piles[STOCK]:
            # a rule holds the stock back (a space to fill first): the best place from which a
            # card can be turned again, even a worse-looking one
            onward = sorted((v for v in found.values() if v[1] and any(
                _reveals(v[2], m) for m in rules.legal_moves(v[2]))), key=lambda v: -v[0])
            if onward:
                self.plan = onward[0][1][1:]
                return Decision(onward[0][1][0], options)
        if not reveals:
            return Decision("resign", 1)  # the face-up cards can do no more
        best, best_value = reveals[0], float("-inf")
        for m in reveals:
            value = judge.score(rules, engine.apply(state, m))
            if m.kind in REVEALS:
                value = judge.score(rules, state) + 1.0
            if value > best_value:
                best, best_value = m, value
        return Decision(str(best), options)

    def _closure(self, root: State, cap: int) -> Thinking[dict[Key, tuple[float, list[str], State]]]:
        """Every position reachable from ``root`` without turning a card (up to
        ``cap``), with its score and the moves that reach it."""
        rules = self.know.rules
        found: dict[Key, tuple[float, list[str], State]] = {
            root.piles[1:]: (judge.score(rules, root), [], root)}
        frontier = [root]
        while frontier and len(found) < cap:
            state = frontier.pop(0)
            path = found[state.piles[1:]][1]
            for m in rules.legal_moves(state):
                if _reveals(state, m):
                    continue
                after = rules.apply(state, m)
                key = after.piles[1:]
                if key in found:
                    continue
                self.nodes += 1
                if self.nodes % SLICE == 0:
                    yield None
                found[key] = (judge.score(rules, after), [*path, str(m)], after)
                frontier.append(after)
                if len(found) >= cap:
                    break
        return found

    def _expect(self, state: State, value: float) -> Thinking[float]:
        """The average best score after turning the next card from ``state``,
        over possible next cards; a place with no card to turn keeps its score."""
        rules = self.know.rules
        reveals = [m for m in rules.legal_moves(state) if m.kind in REVEALS]
        if not reveals:
            return value
        total = 0.0
        unseen = self.know.unseen()
        for _ in range(self.level.samples):
            self.rng.shuffle(unseen)
            guess = state._replace(piles=(tuple(unseen[: len(state.piles[STOCK])]), *state.piles[1:]))
            after = rules.apply(guess, reveals[0])
            found = yield from self._closure(after, 24)
            total += max(v for v, _, _ in found.values())
        return total / self.level.samples

    def _solve(self) -> Thinking[list[str]]:
        """Every card's place is known: solve the rest exactly (within budget).
        The solver does not run in slices, so this is handed to the caller as a
        job (a server runs it in a worker process)."""
        moves = yield SolveJob(self.know.sample(self.rng), self.level.solve)
        self.nodes += self.level.solve
        return moves or []


def _to_foundation(text: str) -> bool:
    return "-f" in text


def _reveals(state: State, move: Move) -> bool:
    """Whether a move turns a card from the stock (a draw, a deal, or an
    automatic refill): what comes then is not known in advance."""
    if move.kind in REVEALS or move.src == "s":  # (the 1883 rules fill a space from the stock)
        return True
    return move.kind == "move" and _refills(state, move)


def _refills(state: State, move: Move) -> bool:
    """Whether the move sets off a fill from the stock (Czarina's and Corners'
    spaces, Fortune's Favor's waste, Florentine's centre): the stock shrinks."""
    if not state.piles[STOCK]:
        return False
    return len(engine.apply(state, move).piles[STOCK]) < len(state.piles[STOCK])


def solve_job(job: SolveJob) -> list[str]:
    """Run a solve request: the winning line found, or none. (A seat on a server
    runs this in a worker process; the measurements run it in line.)"""
    out = solve_state(job.state, job.budget, quick=True)
    return out.moves if out.result == WON else []


def decide(mind: Mind) -> Decision:
    """A whole decision at once (no slices): for the measurements and tests."""
    gen = mind.think()
    answer: list[str] | None = None
    while True:
        try:
            step = gen.send(answer)
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]
        answer = solve_job(step) if step is not None else None
