"""Run the experiments of docs/design/solver-research.md.

    python -m tools.relaxations root --game skeleton --deals 1-20 --budget 300000
    python -m tools.relaxations inside --game skeleton --deals 8-9 --budget 300000
    python -m tools.relaxations profile --deal 9 --budget 300000

``root`` searches a game from each Four Seasons deal; ``inside`` runs the solver's complete
depth-first search on the real game (optionally keyed by classes, ``--quotient``) with the
relaxation as a loss test at positions with at most ``--stock-at-most`` stock cards;
``profile`` counts where the plain search's nodes go. Node counts are deterministic.
"""

from __future__ import annotations

import argparse
import collections
import sys
import time
from collections.abc import Hashable, Sequence
from typing import Any

from server.game.engine import new_game
from server.game.solver.cross import _NO_LAST, CrossModel
from server.game.solver.search import LOST, Model, dfs

from .common import Capacity, LostKeys
from .freetableau import FreeTableauGame
from .quotient import QuotientGame
from .skeleton import SkeletonGame

VARIANT = "four-seasons"
GAMES = ("free", "skeleton", "tracked1", "tracked2", "tracked3", "quotient")


def deals(text: str) -> range:
    low, _, high = text.partition("-")
    return range(int(low), int(high or low) + 1)


def relaxed(game: str, model: CrossModel, memo: LostKeys, capacity: Capacity) -> Model:
    if game == "free":
        return FreeTableauGame(model, memo, capacity)
    return SkeletonGame(model, int(game[len("tracked"):] or 0) if game.startswith("tracked") else 0,
                        memo, capacity)


def cmd_root(args: argparse.Namespace) -> None:
    for deal in deals(args.deals):
        model = CrossModel(new_game(VARIANT, deal))
        t0 = time.process_time()
        extra = ""
        if args.game == "quotient":
            q = QuotientGame(model)
            out = dfs(q, args.budget)
            extra = f" walked={q.walked}"
        else:
            out = dfs(relaxed(args.game, model, LostKeys(), Capacity(model)), args.budget)
        print(f"{deal} {args.game} {out.result} nodes={out.nodes} best={out.best_progress}"
              f"{extra} cpu={time.process_time() - t0:.1f}s", flush=True)


class Inside:
    """The real search's model with a relaxation as one more loss test."""

    def __init__(self, inner: Any, model: CrossModel, args: argparse.Namespace) -> None:
        self.inner, self.model, self.args = inner, model, args
        self.memo, self.capacity = LostKeys(), Capacity(model)
        self.answers: dict[Hashable, bool] = {}
        self.calls, self.proved, self.nodes = 0, 0, 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def dead(self) -> bool:
        m = self.model
        if m.dead():  # the real game's own tests first
            return True
        if m.last != _NO_LAST or len(m.stock) > self.args.stock_at_most:
            return False
        game = relaxed(self.args.game, m, self.memo, self.capacity)
        k = game.key()
        answer = self.answers.get(k)
        if answer is None:
            self.calls += 1
            self.memo.current = set()
            out = dfs(game, self.args.relaxed_budget)
            self.nodes += out.nodes
            answer = self.answers[k] = out.result == LOST
            self.memo.settle(answer)
            self.proved += answer
        return answer


def cmd_inside(args: argparse.Namespace) -> None:
    for deal in deals(args.deals):
        model = CrossModel(new_game(VARIANT, deal))
        inner: Any = QuotientGame(model) if args.quotient else model
        wrapped = Inside(inner, model, args)
        if args.quotient:
            inner.dead = wrapped.dead  # the quotient asks the model's test through its own
            search: Any = inner
        else:
            search = wrapped
        t0 = time.process_time()
        out = dfs(search, args.budget)
        print(f"{deal} {args.game} {out.result} nodes={out.nodes} best={out.best_progress} "
              f"calls={wrapped.calls} proved={wrapped.proved} relaxed_nodes={wrapped.nodes}"
              f" cpu={time.process_time() - t0:.1f}s", flush=True)


def cmd_profile(args: argparse.Namespace) -> None:
    model = CrossModel(new_game(VARIANT, args.deal))
    contents: dict[int, set[Hashable]] = collections.defaultdict(set)
    arrangements: set[Hashable] = set()
    keyed: collections.Counter[int] = collections.Counter()

    class Counted:
        def __getattr__(self, name: str) -> Any:
            return getattr(model, name)

        def key(self) -> Hashable:
            k = model.key()
            assert isinstance(k, tuple)
            contents[len(model.stock)].add(k[0])
            arrangements.add(k[1:])
            keyed[len(model.stock)] += 1
            return k

    out = dfs(Counted(), args.budget)
    total = sum(keyed.values())
    print(f"{args.deal} {out.result} nodes={out.nodes} best={out.best_progress} "
          f"contents={sum(len(v) for v in contents.values())} arrangements={len(arrangements)}")
    for left in sorted(keyed):
        print(f"  stock {left:2}: {len(contents[left]):6} contents, "
              f"{keyed[left] / total:6.1%} of the positions keyed")


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tools.relaxations", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("root", help="search a game from each deal")
    r.add_argument("--game", choices=GAMES, required=True)
    r.add_argument("--deals", default="1-20")
    r.add_argument("--budget", type=int, default=200_000)
    i = sub.add_parser("inside", help="the real search with a relaxation as a loss test")
    i.add_argument("--game", choices=GAMES[:-1], default="skeleton")
    i.add_argument("--deals", default="8-9")
    i.add_argument("--budget", type=int, default=300_000)
    i.add_argument("--relaxed-budget", type=int, default=5_000)
    i.add_argument("--stock-at-most", type=int, default=0)
    i.add_argument("--quotient", action="store_true")
    p = sub.add_parser("profile", help="where the plain search's nodes go")
    p.add_argument("--deal", type=int, default=9)
    p.add_argument("--budget", type=int, default=300_000)
    args = ap.parse_args(argv)
    {"root": cmd_root, "inside": cmd_inside, "profile": cmd_profile}[args.cmd](args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
