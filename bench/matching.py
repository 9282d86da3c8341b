"""Pairing by skill against first-come pairing, on simulated players.

    python -m bench.matching [--players 1000] [--minutes 30] [--size 4] [--seed 1]

Players of known strength (an ordinal drawn from a normal law, mean 10, spread 7)
arrive at random (a Poisson process spreading ``--players`` over ``--minutes``)
and wait for a quick race of one variant. Every second a pairing round runs
(the server's pairing tick), with the rules of server/race/matching.py, or the
first-come rule of before (whoever waits, in order of arrival). A player still
alone after the bot wait (20 s, ``PATIENCE_QUICK_BOT_S``) gets a bot. Printed:
the median and 95th-percentile wait, the median rating gap of the groups (the
highest rating less the lowest) and the share of players given a bot, for both
rules, on the same arrivals. The figures are in docs/design/ladder.md.
"""

from __future__ import annotations

import argparse
import random
import statistics
from collections.abc import Callable
from dataclasses import dataclass

from server.race.matching import Ticket, first_come, pair

TICK_MS = 1000
BOT_AFTER_MS = 20_000

Rule = Callable[[list[Ticket], int, int], list[list[Ticket]]]


@dataclass
class Outcome:
    waits_ms: list[int]
    gaps: list[float]
    bots: int

    def line(self, name: str, players: int) -> str:
        waits = sorted(self.waits_ms)
        p95 = waits[min(len(waits) - 1, int(0.95 * len(waits)))]
        return (f"{name:<12} median wait {statistics.median(waits) / 1000:5.1f} s   "
                f"p95 wait {p95 / 1000:5.1f} s   median gap {statistics.median(self.gaps):5.2f}   "
                f"bots {100 * self.bots / players:4.1f} %")


def arrivals(players: int, minutes: float, seed: int) -> list[Ticket]:
    rng = random.Random(seed)
    rate = players / (minutes * 60_000)  # per ms
    at, out = 0.0, []
    for i in range(players):
        at += rng.expovariate(rate)
        out.append(Ticket(f"p{i}", rng.gauss(10.0, 7.0), int(at)))
    return out


def simulate(players: list[Ticket], rule: Rule, size: int) -> Outcome:
    waiting: list[Ticket] = []
    pending = sorted(players, key=lambda t: t.since_ms)
    waits: list[int] = []
    gaps: list[float] = []
    bots = 0
    now = 0
    i = 0
    while i < len(pending) or waiting:
        now += TICK_MS
        while i < len(pending) and pending[i].since_ms <= now:
            waiting.append(pending[i])
            i += 1
        for group in rule(waiting, now, size):
            ids = {t.id for t in group}
            waiting = [t for t in waiting if t.id not in ids]
            waits.extend(now - t.since_ms for t in group)
            ratings = [t.rating for t in group]
            gaps.append(max(ratings) - min(ratings))
        for t in [t for t in waiting if now - t.since_ms >= BOT_AFTER_MS]:
            waiting.remove(t)
            waits.append(now - t.since_ms)
            bots += 1
    return Outcome(waits, gaps, bots)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m bench.matching", description=__doc__.split("\n")[0])
    p.add_argument("--players", type=int, default=1000)
    p.add_argument("--minutes", type=float, default=30.0)
    p.add_argument("--size", type=int, default=4)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)
    players = arrivals(args.players, args.minutes, args.seed)
    print(f"{args.players} players over {args.minutes:g} min, groups of 2-{args.size}, seed {args.seed}")
    print(simulate(players, pair, args.size).line("by skill", args.players))
    print(simulate(players, lambda t, _now, size: first_come(t, size), args.size)
          .line("first come", args.players))


if __name__ == "__main__":
    main()
