"""Depth-first search over a mutable game model, with a transposition table.

A *model* is one variant family's fast, mutable view of a position (see
:class:`Model`). The search plays moves in place and undoes them, keys every
position it reaches, and never expands a key twice. It is complete: when it
runs out of positions without reaching a win, no win exists from the root,
*provided* the model only leaves out moves it has proved unnecessary (its
``moves`` contract) and its ``dead`` test is sound. The budget counts
expanded positions ("nodes"), so results are the same on every machine.

Two switches make the same loop an incomplete win-finder (the first stage of
the portfolio): a model may be put in a *streamlined* mode whose move lists
are pruned by heuristics, and then only a win counts as an answer.
"""

from __future__ import annotations

import heapq
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..moves import Move

WON, LOST, UNKNOWN = "won", "lost", "unknown"


class Model(Protocol):
    """What the search needs from a variant family.

    ``moves`` lists the moves worth trying, best first. It may leave a legal
    move out only when some listed move is provably at least as good (a
    forced or safe move may be returned alone, a move that only permutes
    interchangeable piles may be dropped). ``dead`` must answer True only for
    positions from which no win exists. ``key`` must be equal for positions
    whose futures are the same up to renaming interchangeable piles.
    """

    def moves(self) -> Sequence[Any]: ...

    def do(self, move: Any) -> Any: ...

    def undo(self, move: Any, token: Any) -> None: ...

    def key(self) -> Hashable: ...

    def won(self) -> bool: ...

    def dead(self) -> bool: ...

    def as_move(self, move: Any) -> Move: ...

    def progress(self) -> int: ...


@dataclass
class SearchOutcome:
    """What one search stage found. ``result`` is won, lost or unknown."""

    result: str
    moves: list[Move] = field(default_factory=list)
    nodes: int = 0
    dead_hits: int = 0  # positions cut by the model's loss detectors
    best_progress: int = 0  # most cards on the foundations in any position seen


def dfs(model: Model, budget: int, complete: bool = True) -> SearchOutcome:
    """Search from the model's current position for at most ``budget`` nodes.

    Returns ``won`` with the line, ``lost`` only when ``complete`` and the
    whole reachable space was exhausted, else ``unknown``. The model is left
    in its starting position.
    """
    seen: set[Hashable] = set()
    out = SearchOutcome(UNKNOWN)
    best = model.progress()
    if model.won():
        out.result, out.best_progress = WON, best
        return out
    seen.add(model.key())
    out.nodes = 1
    if model.dead():
        out.dead_hits = 1
        out.result = LOST if complete else UNKNOWN
        out.best_progress = best
        return out
    # frames: [moves, next index]; path: (move, undo token) that led to each frame but the first
    frames: list[list[Any]] = [[model.moves(), 0]]
    path: list[tuple[Any, Any]] = []
    nodes, dead_hits = 1, 0
    do, undo, key, won, dead, gen = model.do, model.undo, model.key, model.won, model.dead, model.moves
    progress = model.progress
    add = seen.add
    while frames:
        frame = frames[-1]
        moves, i = frame
        if i >= len(moves):
            frames.pop()
            if path:
                m, tok = path.pop()
                undo(m, tok)
            continue
        frame[1] = i + 1
        m = moves[i]
        tok = do(m)
        k = key()
        if k in seen:
            undo(m, tok)
            continue
        add(k)
        nodes += 1
        p = progress()
        if p > best:
            best = p
        if won():
            path.append((m, tok))
            out.result = WON
            out.moves = [model.as_move(pm) for pm, _ in path]
            # path[::-1], not reversed(path): mypyc 2.4 crashes compiling
            # reversed() over a list of Any pairs
            for pm, ptok in path[::-1]:
                undo(pm, ptok)
            break
        if dead():
            dead_hits += 1
            undo(m, tok)
            if nodes >= budget:
                break
            continue
        if nodes >= budget:
            undo(m, tok)
            break
        path.append((m, tok))
        frames.append([gen(), 0])
    else:
        # the loop ran dry: every reachable position was expanded without a win
        out.result = LOST if complete else UNKNOWN
    if out.result == UNKNOWN:
        for pm, ptok in path[::-1]:
            undo(pm, ptok)
    out.nodes, out.dead_hits, out.best_progress = nodes, dead_hits, best
    return out


class Snapshotting(Model, Protocol):
    """A model that can also save and restore its whole position and score it."""

    def snapshot(self) -> Any: ...

    def restore(self, snap: Any) -> None: ...

    def score(self) -> int: ...


def best_first(model: Snapshotting, budget: int) -> SearchOutcome:
    """Greedy best-first search on ``model.score()`` (lower is better): an
    incomplete win-finder that goes where the heuristic points and can jump
    back to any earlier position, instead of DFS's last-in-first-out order.
    Only ``won`` or ``unknown``; the model is left in its starting position."""
    start = model.snapshot()
    out = SearchOutcome(UNKNOWN)
    k0 = model.key()
    parent: dict[Hashable, tuple[Hashable, Any]] = {}
    seen = {k0}
    heap: list[tuple[int, int, Any, Hashable]] = [(model.score(), 0, start, k0)]
    counter, nodes, best = 1, 1, model.progress()
    won_key: Hashable = None
    while heap and nodes < budget and won_key is None:
        _, _, snap, k = heapq.heappop(heap)
        model.restore(snap)
        if model.dead():
            out.dead_hits += 1
            continue
        for m in model.moves():
            tok = model.do(m)
            ck = model.key()
            if ck not in seen:
                seen.add(ck)
                nodes += 1
                parent[ck] = (k, m)
                best = max(best, model.progress())
                if model.won():
                    won_key = ck
                    break
                heapq.heappush(heap, (model.score(), counter, model.snapshot(), ck))
                counter += 1
            model.undo(m, tok)
        if nodes >= budget:
            break
    model.restore(start)
    if won_key is not None:
        line = []
        k = won_key
        while k != k0:
            k, m = parent[k]
            line.append(m)
        out.result = WON
        out.moves = [model.as_move(m) for m in line[::-1]]
    out.nodes, out.best_progress = nodes, best
    return out
