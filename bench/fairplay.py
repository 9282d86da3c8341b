"""The fair-play experiment: simulated careers of ranked games, scored as the server scores them.

    nice -n 19 .venv/bin/python -m bench.fairplay [--deals 16] [--careers 200] [--length 30]
        [--variant four-seasons] [--seed 2026] [--jobs 1] [--pool FILE]

Games are played on real deals with the project's engine (bench/fairplay_games.py):
the bots' policies of levels 1 to 5 and the solver-assisted player, each on the
same ``--deals`` deals (``random.Random(seed).randrange(1, 10**12)``). A career is
``--length`` ranked games drawn from its kind's games (with replacement, by a
random generator seeded from ``--seed``) and given think times by its kind's
pace:

* ``bot L``: the bot of level L at its own pace (server/rooms/bots/pace.py);
* ``person S``: a person of strength S (the level-S policy's moves) at a
  person-like pace drawn for the career (bench/fairplay_games.py, ``PersonPace``);
  half of them send safe cards home with the client's key (at once, one by one);
* ``assisted``: the solver-assisted player at a person-like pace, playing its own
  move (the strong bot's) instead of the solver's one time in ten; ``assisted, 30%
  own moves`` three times in ten;
* ``instant`` and ``metronome``: the club bot's moves at a machine's pace (a few
  tens of milliseconds; a fixed 1.2 s to the millisecond), which the pace
  signals, not the agreement, must catch.

Each game's signals go through :func:`server.race.fairplay_signals.combine` and
:func:`server.race.fairplay_signals.pace`, and each career, after each game, through
:func:`server.race.fairplay_score.score`, the server's own code: a career is flagged
at its first game with a score at or over the flag threshold. The table gives,
per kind, the careers flagged (a 95% Wilson interval) and the games it took.
``--pool FILE`` keeps the played games (JSON lines) and reuses them, so a
second run with other careers costs no play.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from bench.bots import rate
from bench.fairplay_games import PersonPace, person_pace, play
from server.race.fairplay_score import FLAG_AT, agreement_llr, score
from server.race.fairplay_signals import combine, pace
from server.rooms.bots.pace import think_time
from server.rooms.bots.policy import Decision

SEED = 2026
PLAYERS = ("L1", "L2", "L3", "L4", "L5", "assisted", "assisted-30")
# kind -> (the games it plays, its pace, whether it should be flagged)
KINDS: dict[str, tuple[str, str, bool]] = {
    **{f"bot L{n}": (f"L{n}", "bot", False) for n in range(1, 6)},
    **{f"person {n}": (f"L{n}", "person", False) for n in range(1, 6)},
    "assisted": ("assisted", "person", True),
    "assisted, 30% own moves": ("assisted-30", "person", True),
    "instant": ("L3", "instant", True),
    "metronome": ("L3", "metronome", True),
}
WITHIN = (5, 10, 20)


def deal_numbers(n: int, seed: int) -> list[int]:
    rng = random.Random(seed)
    return [rng.randrange(1, 10**12) for _ in range(n)]


def _play(job: tuple[str, int, str, int]) -> dict[str, Any]:
    variant, deal, who, seed = job
    return play(variant, deal, who, seed)


def play_pool(variant: str, deals: list[int], seed: int, jobs: int,
              path: Path | None) -> list[dict[str, Any]]:
    have: list[dict[str, Any]] = []
    if path is not None and path.exists():
        have = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    done = {(g["variant"], g["deal"], g["who"]) for g in have}
    todo = [(variant, d, who, seed * 7919 + d * 13 + i) for i, who in enumerate(PLAYERS) for d in deals
            if (variant, d, who) not in done]
    out = [g for g in have if g["variant"] == variant and g["deal"] in set(deals)]
    fh = path.open("a") if path is not None else None
    try:
        if jobs > 1:
            with ProcessPoolExecutor(jobs) as pool:
                played = pool.map(_play, todo, chunksize=1)
                for g in played:
                    out.append(g)
                    if fh:
                        fh.write(json.dumps(g) + "\n")
        else:
            for i, job in enumerate(todo, 1):
                g = _play(job)
                out.append(g)
                if fh:
                    fh.write(json.dumps(g) + "\n")
                sys.stderr.write(f"\rplayed {i}/{len(todo)}")
        sys.stderr.write("\n")
    finally:
        if fh:
            fh.close()
    return out


def think_times(game: dict[str, Any], kind_pace: str, level: int, person: PersonPace | None,
                safe_key: bool, rng: random.Random) -> list[int]:
    """The race clock's millisecond of each move of ``game`` at this pace."""
    clock = rng.uniform(1.5, 6.0)
    out = []
    for opts, easy, dec, planned in zip(game["options"], game["easy"], game["dec_options"], game["planned"],
                                        strict=True):
        if kind_pace == "bot":
            seconds = think_time(level, Decision("", dec, planned), rng)
        elif kind_pace == "instant":
            seconds = rng.uniform(0.02, 0.09)
        elif kind_pace == "metronome":
            seconds = 1.2 + rng.choice((0.0, 0.0, 0.0, 0.001, 0.002))
        elif safe_key and easy:
            seconds = rng.uniform(0.02, 0.08)  # the client's key plays them in a row
        else:
            assert person is not None
            seconds = person_pace(person, opts, easy, planned, rng)
        clock += seconds
        out.append(int(clock * 1000))
    return out


def career(games: list[dict[str, Any]], kind: str, length: int,
           rng: random.Random) -> tuple[int | None, dict[str, float]]:
    """The game (1-based) at which this career is first flagged (or None), and the
    highest value each part of its score reached."""
    who, kind_pace, _ = KINDS[kind]
    level = 4 if who.startswith("assisted") else int(who[1:])
    person = PersonPace.draw(level, rng) if kind_pace == "person" else None
    safe_key = rng.random() < 0.5
    history: list[dict[str, Any]] = []
    first: int | None = None
    peak = {"agreement": 0.0, "speed": 0.0, "machine_pace": 0.0}
    for i in range(1, length + 1):
        g = rng.choice(games)
        ms = think_times(g, kind_pace, level, person, safe_key, rng)
        history.insert(0, combine(g["variant"], g["won"], tuple(g["agreement"]),
                                  pace(ms, g["options"], g["easy"])))
        total, why = score(history)
        for part, value in why["parts"].items():
            peak[part] = max(peak[part], value)
        if first is None and total >= FLAG_AT:
            first = i
    return first, peak


def by_game(firsts: list[int | None], share: float) -> int | None:
    """The game by which ``share`` of the careers were flagged, or None (not within them)."""
    hit = sorted(f for f in firsts if f is not None)
    need = max(1, -(-int(share * 1000) * len(firsts) // 1000))
    return hit[need - 1] if len(hit) >= need else None


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def peaks_table(peaks: dict[str, list[dict[str, float]]]) -> str:
    """Each part's highest value in a career (1.0 flags): the margins the thresholds leave."""
    parts = ("agreement", "speed", "machine_pace")
    lines = ["| career | " + " | ".join(f"{p}: median, 99th pct, max" for p in parts) + " |",
             "|---|" + "---:|" * len(parts)]
    for kind, rows in peaks.items():
        cells = []
        for p in parts:
            values = [r[p] for r in rows]
            cells.append(f"{statistics.median(values):.2f}, {quantile(values, 0.99):.2f}, {max(values):.2f}")
        lines.append(f"| {kind} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def table(results: dict[str, list[int | None]], length: int) -> str:
    lines = [f"| career | should be flagged | careers flagged in {length} games (95% Wilson) | "
             + " | ".join(f"within {w}" for w in WITHIN)
             + " | median game of the flag | 95% flagged by game |",
             "|---|---|---|" + "---:|" * len(WITHIN) + "---:|---:|"]
    for kind, firsts in results.items():
        n = len(firsts)
        hit = sorted(f for f in firsts if f is not None)
        within = " | ".join(f"{100 * sum(1 for f in hit if f <= w) / n:.1f}%" for w in WITHIN)
        median = f"{statistics.median(hit):g}" if hit else "—"
        p95 = by_game(firsts, 0.95)
        lines.append(f"| {kind} | {'yes' if KINDS[kind][2] else 'no'} | {rate(len(hit), n)} | {within} | "
                     f"{median} | {p95 if p95 is not None else '—'} |")
    return "\n".join(lines)


def agreement_table(pool: list[dict[str, Any]]) -> str:
    lines = ["| player | games | won | choices counted | agreed | rate | best game's ratio | "
             "searches per game | analysis CPU per game: mean, max |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for who in PLAYERS:
        games = [g for g in pool if g["who"] == who]
        if not games:
            continue
        c = sum(g["agreement"][0] for g in games)
        a = sum(g["agreement"][1] for g in games)
        s = statistics.mean(g["agreement"][2] for g in games)
        won = sum(1 for g in games if g["won"])
        cpu = [float(g.get("analysis_cpu", 0.0)) for g in games]
        best = max(agreement_llr(g["agreement"][0], g["agreement"][1]) for g in games)
        lines.append(f"| {who} | {len(games)} | {won} | {c} | {a} | {a / c if c else 0:.2f} | {best:.1f} | "
                     f"{s:.1f} | "
                     f"{1000 * statistics.mean(cpu):.0f} ms, {1000 * max(cpu):.0f} ms |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--deals", type=int, default=16)
    ap.add_argument("--careers", type=int, default=200)
    ap.add_argument("--length", type=int, default=30)
    ap.add_argument("--variant", default="four-seasons")
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--pool", type=Path, default=None, help="keep and reuse the played games (JSON lines)")
    args = ap.parse_args(argv)
    t0 = time.process_time()
    w0 = time.monotonic()
    pool = play_pool(args.variant, deal_numbers(args.deals, args.seed), args.seed, args.jobs, args.pool)
    by_who = {who: [g for g in pool if g["who"] == who] for who in PLAYERS}
    rng = random.Random(args.seed)
    runs = {kind: [career(by_who[who], kind, args.length, rng) for _ in range(args.careers)]
            for kind, (who, _, _) in KINDS.items()}
    results = {kind: [first for first, _ in rows] for kind, rows in runs.items()}
    peaks = {kind: [peak for _, peak in rows] for kind, rows in runs.items()}
    print(f"variant {args.variant}, seed {args.seed}, {args.deals} deals, {args.careers} careers of "
          f"{args.length} ranked games per kind\n")
    print(agreement_table(pool) + "\n")
    print(table(results, args.length) + "\n")
    print(peaks_table(peaks))
    print(f"\n{time.process_time() - t0:.0f} s of CPU in this process, {time.monotonic() - w0:.0f} s in all")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
