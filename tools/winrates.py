"""Batch runs of the solver and the tables of seeds/winrates.md.

    python tools/winrates.py run     # solve, appending one JSON line per deal
    python tools/winrates.py report  # print the markdown tables from the lines

Deal numbers are ``random.Random(SEED).randrange(1, 10**12)``, the same list
for every variant; ``list`` prints them. ``--runs COUNT:BUDGET,...`` solves the
first COUNT deals of the list (with ``--first-numbers``: deals 1 to COUNT) at
BUDGET nodes, for each pair: the default
``1000:10000,30:200000,5:2000000`` is every deal at 10,000 nodes, the first 30
at 200,000 and the first 5 at 2,000,000. The report reads each budget from its
own runs.

Results go to a JSON-lines file, flushed after every deal; ``run`` skips the
(variant, deal, budget, tag) entries already there, so an interrupted batch
resumes where it stopped. One process, one core.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, TextIO

from server.game.engine import new_game
from server.game.solver import solve
from server.game.solver.reference import exhaustive
from server.game.variants import SPECS

SEED = 2026
DEFAULT_OUT = Path("data/solver-runs.jsonl")  # git-ignored scratch; the command rebuilds it
SEED_VARIANTS = [s.id for s in SPECS]
PUBLISHED = {
    "four-seasons": "1 in 10 (Morehead & Mott-Smith; human play, stock unseen)",
    "betsy-ross": "about 20% (Goodsol, 'Hard (20%)'; human play, stock unseen)",
}


def deal_numbers(n: int, seed: int = SEED) -> list[int]:
    rng = random.Random(seed)
    return [rng.randrange(1, 10**12) for _ in range(n)]


def parse_runs(text: str) -> list[tuple[int, int]]:
    """``"1000:10000,30:200000"`` -> [(1000, 10000), (30, 200000)]: (deals, budget)."""
    out = []
    for part in text.split(","):
        count, budget = part.split(":")
        out.append((int(count), int(budget)))
    return out


# -- progress bar -------------------------------------------------------------
class Progress:
    """A one-line progress bar on stderr (no dependency)."""

    def __init__(self, total: int, stream: TextIO = sys.stderr, width: int = 30) -> None:
        self.total, self.done, self.stream, self.width = total, 0, stream, width
        self.t0 = time.monotonic()

    def update(self, label: str) -> None:
        self.done += 1
        frac = self.done / self.total if self.total else 1.0
        filled = int(frac * self.width)
        elapsed = time.monotonic() - self.t0
        eta = elapsed / frac - elapsed if frac else 0.0
        bar = "#" * filled + "." * (self.width - filled)
        self.stream.write(f"\r[{bar}] {self.done}/{self.total} {elapsed:6.0f}s eta {eta:5.0f}s {label:<40}")
        self.stream.flush()

    def close(self) -> None:
        self.stream.write("\n")


# -- running ------------------------------------------------------------------
def read_lines(path: Path) -> Iterator[dict[str, Any]]:
    if not path.exists():
        return
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            line = line.strip()
            if line:
                yield json.loads(line)


def cmd_run(args: argparse.Namespace) -> int:
    runs = parse_runs(args.runs)
    count = max(c for c, _ in runs)
    deals = list(range(1, count + 1)) if args.first_numbers else deal_numbers(count, args.seed)
    variants = args.variants.split(",") if args.variants else SEED_VARIANTS
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    done = {(r["variant"], r["deal"], r["budget"], r.get("tag", "")) for r in read_lines(out)}
    todo = [(v, i, d, b) for count, b in runs for v in variants for i, d in enumerate(deals[:count])
            if (v, d, b, args.tag) not in done]
    det = {"default": None, "on": True, "off": False}[args.detectors]
    bar = Progress(len(todo))
    with out.open("a", encoding="utf-8") as fh:
        for v, i, d, b in todo:
            r = solve(v, d, b, detectors=det, safe_moves=not args.no_safe, quick=not args.no_quick,
                      capacity=not args.no_capacity, abstract=args.abstract,
                      best_first_stage=not args.no_best_first)
            rec = {"variant": v, "index": i, "deal": d, "budget": b, "tag": args.tag,
                   "result": r.result, "nodes": r.nodes, "seconds": round(r.seconds, 4),
                   "best": r.best_progress, "moves": len(r.moves),
                   "stages": [[s.name, s.result, s.nodes, s.dead_hits] for s in r.stages]}
            fh.write(json.dumps(rec) + "\n")
            fh.flush()
            bar.update(f"{v} #{d} {r.result} {r.nodes}")
    bar.close()
    return 0


# -- reporting ----------------------------------------------------------------
def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval for k successes in n trials."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z / denom * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def quantile(xs: Sequence[float], q: float) -> float:
    if not xs:
        return float("nan")
    xs = sorted(xs)
    k = min(len(xs) - 1, max(0, math.ceil(q * len(xs)) - 1))
    return xs[k]


def summary(recs: Iterable[dict[str, Any]]) -> dict[str, Any]:
    rows = [(r["result"], r["nodes"], r["seconds"]) for r in recs]
    n = len(rows)
    won = sum(1 for a, _, _ in rows if a == "won")
    lost = sum(1 for a, _, _ in rows if a == "lost")
    unk = n - won - lost
    nodes = [x for _, x, _ in rows]
    secs = [t for _, _, t in rows]
    wnodes = [x for a, x, _ in rows if a == "won"]
    wsecs = [t for a, _, t in rows if a == "won"]
    lo, _ = wilson(won, n)
    _, hi = wilson(won + unk, n)
    return {"n": n, "won": won, "lost": lost, "unknown": unk, "low": lo, "high": hi,
            "nodes_med": statistics.median(nodes) if nodes else 0, "nodes_p95": quantile(nodes, 0.95),
            "secs_med": statistics.median(secs) if secs else 0.0, "secs_p95": quantile(secs, 0.95),
            "win_nodes_med": statistics.median(wnodes) if wnodes else None,
            "win_nodes_p95": quantile(wnodes, 0.95) if wnodes else None,
            "win_secs_med": statistics.median(wsecs) if wsecs else None,
            "secs_total": sum(secs)}


def cmd_report(args: argparse.Namespace) -> int:
    recs = [r for r in read_lines(Path(args.input)) if r.get("tag", "") == args.tag]
    variants = [v for v in SEED_VARIANTS if any(r["variant"] == v for r in recs)]
    budgets = sorted({r["budget"] for r in recs})
    print("### Win rates (each variant's largest run)\n")
    print("| variant | deals | budget (nodes) | won | proved lost | undecided | "
          "win rate, 95% Wilson (undecided as lost … as won) | published |")
    print("|---|---:|---:|---:|---:|---:|---|---|")
    for v in variants:
        mine = [r for r in recs if r["variant"] == v]
        b = max(budgets, key=lambda x: (sum(1 for r in mine if r["budget"] == x), -x))
        s = summary(r for r in mine if r["budget"] == b)
        print(f"| `{v}` | {s['n']} | {b:,} | {s['won']} | {s['lost']} | {s['unknown']} | "
              f"{pct(s['low'])} … {pct(s['high'])} | {PUBLISHED.get(v, '—')} |")
    print()
    for b in budgets:
        print(f"### At {b:,} nodes\n")
        print("| variant | deals | won | proved lost | undecided | nodes median / p95 | "
              "time median / p95 | wins: nodes median / p95 | time in all |")
        print("|---|---:|---:|---:|---:|---|---|---|---:|")
        for v in variants:
            rs = [r for r in recs if r["variant"] == v and r["budget"] == b]
            if not rs:
                continue
            s = summary(rs)
            n = s["n"]
            wins = (f"{s['win_nodes_med']:,.0f} / {s['win_nodes_p95']:,.0f}"
                    if s["win_nodes_med"] is not None else "—")
            print(f"| `{v}` | {n} | {s['won']} ({pct(s['won'] / n)}) | "
                  f"{s['lost']} ({pct(s['lost'] / n)}) | {s['unknown']} ({pct(s['unknown'] / n)}) | "
                  f"{s['nodes_med']:,.0f} / {s['nodes_p95']:,.0f} | "
                  f"{s['secs_med']:.3f} s / {s['secs_p95']:.2f} s | {wins} | {s['secs_total']:,.0f} s |")
        print()
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    """Re-prove every *lost* answer with the plain exhaustive engine search
    (no pruning, no safe moves, no detectors), up to ``--cap`` states each."""
    recs = [r for r in read_lines(Path(args.input)) if r["result"] == "lost"]
    seen: set[tuple[str, int]] = set()
    tally = {"lost": 0, "unknown": 0, "won": 0}
    bar = Progress(len(recs))
    for r in recs:
        key = (r["variant"], r["deal"])
        if key in seen:
            bar.update("")
            continue
        seen.add(key)
        verdict, states = exhaustive(new_game(r["variant"], r["deal"]), cap=args.cap)
        tally[verdict] += 1
        if verdict == "won":
            print(f"\nCONTRADICTED: {r['variant']} #{r['deal']} is winnable", file=sys.stderr)
        bar.update(f"{r['variant']} #{r['deal']} {verdict} ({states} states)")
    bar.close()
    print(f"lost answers re-proved by exhaustive search: {tally['lost']}; "
          f"beyond the cap of {args.cap:,} states: {tally['unknown']}; contradicted: {tally['won']}")
    return 1 if tally["won"] else 0


def cmd_list(args: argparse.Namespace) -> int:
    for i, d in enumerate(deal_numbers(args.deals, args.seed), 1):
        print(i, d)
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="solve deals, appending results")
    r.add_argument("--variants", default="", help="comma-separated ids (default: every variant)")
    r.add_argument("--seed", type=int, default=SEED)
    r.add_argument("--runs", default="1000:10000,30:200000,5:2000000",
                   help="COUNT:BUDGET,...: the first COUNT deals at BUDGET nodes, for each pair")
    r.add_argument("--out", default=str(DEFAULT_OUT))
    r.add_argument("--tag", default="", help="label for an ablation run")
    r.add_argument("--detectors", choices=["default", "on", "off"], default="default",
                   help="loss detectors: each variant's default, all on, or all off")
    r.add_argument("--no-safe", action="store_true", help="no safe moves, no pruned moves")
    r.add_argument("--no-quick", action="store_true", help="skip the incomplete first stage")
    r.add_argument("--no-capacity", action="store_true",
                   help="without the cross family's capacity test (solver/capacity.py)")
    r.add_argument("--abstract", action="store_true",
                   help="with the cross family's abstract game (solver/stockbound.py)")
    r.add_argument("--no-best-first", action="store_true",
                   help="without the cross family's best-first stage (solver/portfolio.py)")
    r.add_argument("--first-numbers", action="store_true",
                   help="deal numbers 1, 2, 3, ... instead of the seeded list")
    r.set_defaults(func=cmd_run)
    q = sub.add_parser("report", help="markdown tables from the results")
    q.add_argument("--input", default=str(DEFAULT_OUT))
    q.add_argument("--tag", default="")
    q.set_defaults(func=cmd_report)
    c = sub.add_parser("check", help="re-prove every lost answer by plain exhaustive search")
    c.add_argument("--input", default=str(DEFAULT_OUT))
    c.add_argument("--cap", type=int, default=2_000_000)
    c.set_defaults(func=cmd_check)
    ls = sub.add_parser("list", help="print the deal numbers")
    ls.add_argument("--deals", type=int, default=1000)
    ls.add_argument("--seed", type=int, default=SEED)
    ls.set_defaults(func=cmd_list)
    args = p.parse_args(argv)
    code: int = args.func(args)
    return code


if __name__ == "__main__":
    raise SystemExit(main())
