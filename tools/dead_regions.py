"""Measure the dead-position rule (rules 1.3) over random games.

For each game: play uniformly random legal moves from a random deal until the
game is over (or ``--max-moves``). At every move ask the engine for its status,
as the server does, and time the answer. Where the stock can bring nothing new,
check the engine against an independent exhaustive search (whole states as
keys, depth-first, nothing remembered between calls): a dead verdict must be
confirmed by it; an "in progress" answer must not be contradicted by it (it
may run out of its budget on an alive position: counted, not an error).

Per variant it reports the sizes of the dead regions met (positions the
engine's key counts, per game the first dead position), the time the engine
took to decide them, the slowest status answer of any kind, and how many games
were declared dead later than the move that made them dead (target 0).
``--golden N`` prints the N games with the largest dead regions as
(variant, deal, moves, region size) for the golden corpus.

    python tools/dead_regions.py --games 1000 --variants four-seasons,simplicity

``--jsonl F`` appends one line per finished game to F (a stopped run keeps the
games it finished); ``--summary-of F`` prints the summary of such a file.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import statistics
import sys
import time
from dataclasses import dataclass, field
from typing import TextIO

from server.game import dead, engine
from server.game.moves import Move
from server.game.state import State
from server.game.variants import Rules, get_rules, variant_ids

DEAL_LOW = 10**16  # PySolFC's random game numbers (rules 1.4)
DEAL_HIGH = 10**20
# a dead verdict is always confirmed: dead regions are small, but be generous
DEAD_CHECK_LIMIT = 10**7
ABANDONED = "abandoned"  # --give-up: a game whose search outlived its budget


def plain_key(rules: Rules, state: State) -> tuple[object, ...]:
    """Every card as itself; only the order of the interchangeable tableau
    piles is forgotten (not Florentine's centre: ``Rules.dead_places``)."""
    piles = state.piles
    kept, loose = rules.dead_places()
    return (piles[:rules.t0], tuple(piles[i] for i in kept), tuple(sorted(piles[i] for i in loose)),
            state.vacancy >= 0)


def plain_region(state: State, limit: int) -> tuple[bool | None, int]:
    """A plain exhaustive search, depth-first, whole cards in its keys: (dead,
    positions). dead is None when ``limit`` positions passed without a
    foundation move. Where foundation cards may move on (simplicity-pysol,
    les-quatre-coins-pysol) a foundation move counts only when it brings a card
    from outside while the foundations hold at least the start's count."""
    rules = get_rules(state.variant)
    start = rules.foundation_cards(state)
    seen = {plain_key(rules, state)}
    todo = [state]
    while todo:
        s = todo.pop()
        for m in rules.legal_moves(s):
            nxt = rules.apply(s, m)
            # more cards on the foundations than at the start (Fortune's Favor may
            # take one back off a foundation and put it there again)
            if m.dst.startswith("f") and rules.foundation_cards(nxt) > start:
                return False, len(seen)
            key = plain_key(rules, nxt)
            if key not in seen:
                if len(seen) >= limit:
                    return None, len(seen)
                seen.add(key)
                todo.append(nxt)
    return True, len(seen)


@dataclass
class Game:
    deal: str
    moves: list[str]
    outcome: str
    region: int = 0  # positions of the first dead position's region (engine key)
    decide_s: float = 0.0  # the engine's time to declare it dead
    late: bool = False  # the engine said "in progress" for a position the plain search proved dead
    wrong: bool = False  # the engine said dead and the plain search found a foundation move
    unverified: int = 0  # alive answers the plain search could not confirm within its budget
    slowest_s: float = 0.0  # the slowest status answer of the game
    plain_region: int = 0  # the plain search's count for the first dead position
    plain_s: float = 0.0  # and its time
    undecided: int = 0  # searches still running when their budget (--budget) ran out


@dataclass
class Tally:
    games: list[Game] = field(default_factory=list)

    def summary(self) -> dict[str, object]:
        regions = sorted(g.region for g in self.games if g.outcome == engine.DEAD)
        times = sorted(g.decide_s for g in self.games if g.outcome == engine.DEAD)
        slow = sorted(g.slowest_s for g in self.games)
        out: dict[str, object] = {
            "games": len(self.games),
            "dead": len(regions),
            "won": sum(g.outcome == engine.WON for g in self.games),
            "unfinished": sum(g.outcome == engine.IN_PROGRESS for g in self.games),
            "late": sum(g.late for g in self.games),
            "wrong": sum(g.wrong for g in self.games),
            "alive_unverified": sum(g.unverified for g in self.games),
            "undecided": sum(g.undecided for g in self.games),
            "abandoned": sum(g.outcome == ABANDONED for g in self.games),
        }
        if regions:
            out["region_median"] = statistics.median(regions)
            out["region_p99"] = _pct(regions, 0.99)
            out["region_max"] = regions[-1]
            out["decide_ms_median"] = round(1000 * statistics.median(times), 2)
            out["decide_ms_p99"] = round(1000 * _pct(times, 0.99), 2)
            out["decide_ms_max"] = round(1000 * times[-1], 2)
            plain = sorted(g.plain_region for g in self.games if g.plain_region)
            out["dead_checked"] = len(plain)
            out["plain_region_median"] = statistics.median(plain)
            out["plain_region_p99"] = _pct(plain, 0.99)
            out["plain_region_max"] = plain[-1]
            out["plain_s_max"] = round(max(g.plain_s for g in self.games), 2)
        if slow:
            out["slowest_status_ms"] = round(1000 * slow[-1], 2)
        return out


# a game line keeps its moves only where they may be wanted again (a large dead region)
JSONL_MOVES_REGION = 1_000


def game_line(variant: str, index: int, game: Game) -> str:
    """One finished game as a JSON line: its fields, the moves as their count
    unless the game ended in a dead region of ``JSONL_MOVES_REGION`` positions or more."""
    fields = dataclasses.asdict(game)
    keep = game.outcome == engine.DEAD and game.region >= JSONL_MOVES_REGION
    fields["moves"] = " ".join(game.moves) if keep else len(game.moves)
    return json.dumps({"variant": variant, "index": index, **fields})


def read_games(lines: list[str]) -> dict[str, Tally]:
    """The games of :func:`game_line` lines, per variant (a move count stands for
    that many moves: the summary needs only their number)."""
    out: dict[str, Tally] = {}
    for line in lines:
        if not line.strip():
            continue
        fields = json.loads(line)
        variant = fields.pop("variant")
        fields.pop("index")
        moves = fields["moves"]
        fields["moves"] = moves.split() if isinstance(moves, str) else ["?"] * moves
        out.setdefault(variant, Tally()).games.append(Game(**fields))
    return out


def _pct(xs: list[int] | list[float], q: float) -> float:
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def decide(state: State, moves: list[Move], budget_s: float) -> bool | None:
    """The engine's dead search, given ``budget_s`` seconds of CPU at most: None
    when it has not finished by then (counted as undecided: the target is none)."""
    steps = engine.dead_search_steps(state, moves, 0.05)
    started = time.process_time()
    try:
        while time.process_time() - started < budget_s:
            next(steps)
    except StopIteration as done:
        return bool(done.value)
    return None


def play_one(variant: str, rng: random.Random, max_moves: int, alive_limit: int,
             check_dead: bool, keep_home: bool = False, budget_s: float = 1e9,
             slow_log: TextIO | None = None, slow_s: float = 1e9, give_up: bool = False) -> Game:
    """One random game. ``give_up``: a search still undecided after ``budget_s``
    ends the game as "abandoned" (a dead region would otherwise cost the budget
    at every move until the cap)."""
    deal = str(rng.randrange(DEAL_LOW, DEAL_HIGH))
    rules = get_rules(variant)
    engine.clear_caches()  # every game as in a fresh process: no help from earlier games
    state = engine.new_game(variant, deal)
    game = Game(deal, [], engine.IN_PROGRESS)
    for _ in range(max_moves + 1):
        t = time.perf_counter()
        status, moves, search = engine.status_before_search(state)
        verdict: bool | None = False
        if search:
            verdict = decide(state, moves, budget_s)
            game.undecided += verdict is None
            if verdict is None and give_up:
                game.outcome = ABANDONED
            if verdict:
                status, moves = engine.DEAD, []
        took = time.perf_counter() - t
        game.slowest_s = max(game.slowest_s, took)
        if slow_log is not None and (took >= slow_s or verdict is None):
            slow_log.write(json.dumps({"variant": variant, "deal": deal, "moves": " ".join(game.moves),
                                       "verdict": verdict, "ms": round(1000 * took, 1)}) + "\n")
            slow_log.flush()
        if game.outcome == ABANDONED:
            return game
        settled = not rules.can_draw_or_redeal(state)
        if status == engine.DEAD:
            if check_dead:
                t = time.perf_counter()
                verdict, game.plain_region = plain_region(state, DEAD_CHECK_LIMIT)
                game.plain_s = time.perf_counter() - t
                game.wrong = verdict is not True
            game.outcome = status
            game.decide_s = took
            game.region = dead.region(rules, state)[1] if moves or rules.legal_moves(state) else 1
            return game
        if status != engine.IN_PROGRESS:
            game.outcome = status
            return game
        if alive_limit and settled and not any(dead.raises_count(m) for m in moves):
            verdict, _ = plain_region(state, alive_limit)
            game.late |= verdict is True
            game.unverified += verdict is None
        # keep_home: never take a card back off a foundation (Fortune's Favor's random
        # walks otherwise wander between foundation and tableau until the move cap)
        choices = [m for m in moves if not m.src.startswith("f")] if keep_home else moves
        m = rng.choice(choices or moves)
        game.moves.append(str(m))
        state = engine.apply(state, m)
    return game


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--games", type=int, default=200, help="random games per variant")
    p.add_argument("--variants", default="", help="comma-separated ids (default: all)")
    p.add_argument("--seed", type=int, default=16, help="seed of the deals and the move choices")
    p.add_argument("--max-moves", type=int, default=2000)
    p.add_argument("--alive-check", type=int, default=5_000,
                   help="positions the plain search may visit to confirm an alive answer (0: skip)")
    p.add_argument("--check-every", type=int, default=1,
                   help="confirm the dead verdicts of every Nth game by the plain search")
    p.add_argument("--golden", type=int, default=0, help="print the N largest dead regions found")
    p.add_argument("--keep-home", action="store_true",
                   help="random play never moves a card off a foundation (where a variant allows it)")
    p.add_argument("--budget", type=float, default=1e9,
                   help="seconds of CPU a dead search may take before it counts as undecided")
    p.add_argument("--slow-log", default="", help="append every answer slower than --slow-ms "
                   "(and every undecided one) to this file as JSON lines: variant, deal, moves")
    p.add_argument("--slow-ms", type=float, default=100.0)
    p.add_argument("--give-up", action="store_true",
                   help="end a game (as abandoned) at its first search undecided after --budget")
    p.add_argument("--jsonl", default="", help="append one JSON line per finished game to this file")
    p.add_argument("--summary-of", default="", help="print the summary of a --jsonl file and stop")
    args = p.parse_args(argv)
    if args.summary_of:
        with open(args.summary_of) as f:
            for variant, tally in read_games(f.readlines()).items():
                print(json.dumps({**tally.summary(), "variant": variant}), flush=True)
        return 0
    if not args.slow_log:
        return run(args, None)
    with open(args.slow_log, "a") as slow_log:
        return run(args, slow_log)


def run(args: argparse.Namespace, slow_log: TextIO | None) -> int:
    variants = [v for v in args.variants.split(",") if v] or list(variant_ids())
    for variant in variants:
        rng = random.Random(f"{args.seed}:{variant}")
        tally = Tally()
        started = time.perf_counter()
        for k in range(args.games):
            game = play_one(variant, rng, args.max_moves, args.alive_check,
                            k % args.check_every == 0, args.keep_home, args.budget,
                            slow_log, args.slow_ms / 1000, args.give_up)
            tally.games.append(game)
            if args.jsonl:
                with open(args.jsonl, "a") as out:
                    out.write(game_line(variant, k, game) + "\n")
        summary = tally.summary()
        summary["variant"] = variant
        summary["seconds"] = round(time.perf_counter() - started, 1)
        print(json.dumps(summary), flush=True)
        if args.golden:
            biggest = sorted((g for g in tally.games if g.outcome == engine.DEAD),
                             key=lambda g: -g.region)[:args.golden]
            for g in biggest:
                print(json.dumps({"variant": variant, "deal": g.deal, "region": g.region,
                                  "plain_region": g.plain_region, "moves": " ".join(g.moves)}),
                      flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
