"""The difficulty grades against the bots: does a harder grade mean fewer wins?

    python -m bench.difficulty run [--variant four-seasons] [--deals 100] [--games 1]
    python -m bench.difficulty report     # the markdown table of docs/design/difficulty.md

Each deal of the list (``random.Random(2026).randrange(1, 10**12)``, the list
of tools/winrates.py and bench/bots.py) is graded
(:func:`server.game.solver.difficulty.grade_deal`, the server's budget) and
played by ``--games`` bots of every level (:func:`server.rooms.bots.par.bot_result`,
seeds fixed). The report gives, per grade, the bots' win rate and median
foundation count at each level, and the scores' quartiles over the won deals
(what :data:`~server.game.solver.difficulty.GRADE_BOUNDS` is set from).
Results go to a JSON-lines file, flushed after each deal; ``run`` skips the
deals already there.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from bench.bots import deal_numbers, read_lines
from server.game.solver.difficulty import GRADE_BUDGET, GRADE_NAMES, NO_WIN, grade_deal, grade_of
from server.rooms.bots.par import bot_result
from server.rooms.bots.policy import LEVELS

DEFAULT_OUT = Path("data/difficulty-runs.jsonl")  # git-ignored scratch


def measure(variant: str, deal: int, games: int, budget: int) -> dict[str, Any]:
    t0 = time.process_time()
    d = grade_deal(variant, deal, budget)
    graded = time.process_time() - t0
    bots = {str(level): [bot_result(variant, str(deal), level, seed=level * 1000 + g) for g in range(games)]
            for level in LEVELS}
    return {"variant": variant, "deal": deal, **d.to_json(), "grade_cpu": round(graded, 3), "bots": bots}


def cmd_run(args: argparse.Namespace) -> int:
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    done = {(r["variant"], r["deal"]) for r in read_lines(out)}
    todo = [d for d in deal_numbers(args.deals) if (args.variant, d) not in done]
    with out.open("a", encoding="utf-8") as fh:
        for i, deal in enumerate(todo, start=1):
            fh.write(json.dumps(measure(args.variant, deal, args.games, args.budget)) + "\n")
            fh.flush()
            sys.stderr.write(f"\r{i}/{len(todo)}")
    sys.stderr.write("\n")
    return 0


def report(rows: list[dict[str, Any]], total: int) -> str:
    lines = ["| grade | deals | " + " | ".join(f"L{lv} wins" for lv in LEVELS) + " | "
             + " | ".join(f"L{lv} median cards" for lv in LEVELS) + " | grading CPU median |",
             "|---|---:|" + "---:|" * (2 * len(LEVELS)) + "---:|"]
    for r in rows:  # graded again with today's bounds, so that moving them needs no new run
        r["grade"] = grade_of(r["score"]) if r["result"] == "won" else NO_WIN
    for grade in sorted(GRADE_NAMES):
        sel = [r for r in rows if r["grade"] == grade]
        if not sel:
            continue
        wins, cards = [], []
        for lv in LEVELS:
            results = [fc for r in sel for fc in r["bots"][str(lv)]]
            wins.append(f"{sum(fc == total for fc in results) / len(results):.0%}")
            cards.append(f"{statistics.median(results):g}")
        cpu = statistics.median(r["grade_cpu"] for r in sel)
        lines.append(f"| {grade} {GRADE_NAMES[grade]} | {len(sel)} | " + " | ".join(wins) + " | "
                     + " | ".join(cards) + f" | {cpu:.2f} s |")
    won = sorted(r["score"] for r in rows if r["result"] == "won")
    if len(won) >= 4:
        q = statistics.quantiles(won, n=4)
        lines.append("")
        lines.append(f"Scores of the {len(won)} won deals: quartiles {q[0]:.3f}, {q[1]:.3f}, {q[2]:.3f}.")
    return "\n".join(lines)


def cmd_report(args: argparse.Namespace) -> int:
    from server.game.variants import get_rules

    rows = [r for r in read_lines(Path(args.input)) if r["variant"] == args.variant]
    print(report(rows, get_rules(args.variant).spec.total_cards))
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.difficulty")
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--variant", default="four-seasons")
    r.add_argument("--deals", type=int, default=100)
    r.add_argument("--games", type=int, default=1, help="bot games per level and deal")
    r.add_argument("--budget", type=int, default=GRADE_BUDGET)
    r.add_argument("--out", default=str(DEFAULT_OUT))
    q = sub.add_parser("report")
    q.add_argument("--variant", default="four-seasons")
    q.add_argument("--input", default=str(DEFAULT_OUT))
    args = p.parse_args(argv)
    return cmd_run(args) if args.cmd == "run" else cmd_report(args)


if __name__ == "__main__":
    raise SystemExit(main())
