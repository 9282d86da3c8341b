"""The daily challenge's deal, commitment and share line (no I/O).

The deal of a UTC day and variant is derived from a keyed HMAC, never from
the date alone, so no one without the server secret can compute tomorrow's
deal; it is re-derived with a counter until the solver finds a winning line.
From the start of the day the server publishes SHA-256 of "deal|salt" and
reveals both when the day closes, so anyone can check it was fixed in advance.

With a grader, the day's deal also follows the weekly curve: among the won
deals tried, the first whose difficulty grade is the weekday's target
(:data:`WEEKLY_CURVE`, easier early in the week), else the nearest one
(docs/design/difficulty.md).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from ..game.deals import DEAL_VERSION

DEAL_LOW, DEAL_SPAN = 10**19, 9 * 10**19  # PySolFC's 20-digit numbers
MAX_TRIES = 12  # deals tried per day before settling for a par
SOLVE_BUDGET = 200_000  # solver nodes per try
EPOCH = dt.date(2026, 1, 1)  # day #1 of the daily challenge
# the target difficulty grade (1 easy .. 4 hard) of each weekday, Monday first
WEEKLY_CURVE = (1, 1, 2, 2, 3, 3, 4)
GRADED_TRIES = 24  # deals tried per day when a grade is sought: a grade is a quarter of the wins


class SolveOutcome(Protocol):
    result: str
    moves: list[str]
    best_progress: int


Solver = Callable[[str, str, int], SolveOutcome]
# (variant, deal, a winning line) -> difficulty grade 1 easy .. 4 hard
Grader = Callable[[str, str, list[str]], int]


@dataclass(frozen=True)
class DailyDeal:
    date: str
    variant: str
    deal: str
    counter: int
    salt: str
    certificate: tuple[str, ...]  # a winning line, kept server-side
    par: int | None  # the solver's best foundation count when it found no win
    grade: int | None = None  # difficulty grade 1 easy .. 4 hard (None: not graded)
    pars: tuple[int, ...] = ()  # the bots' median foundation cards on the deal, level 1 first

    @property
    def commitment(self) -> str:
        return commitment(self.deal, self.salt)

    def to_store(self) -> dict[str, str]:
        return {"date": self.date, "variant": self.variant, "deal": self.deal,
                "counter": str(self.counter), "salt": self.salt,
                "certificate": " ".join(self.certificate), "par": "" if self.par is None else str(self.par),
                "commitment": self.commitment, "grade": "" if self.grade is None else str(self.grade),
                "pars": " ".join(map(str, self.pars))}

    @classmethod
    def from_store(cls, row: dict[str, str]) -> DailyDeal:
        return cls(row["date"], row["variant"], row["deal"], int(row["counter"]), row["salt"],
                   tuple(row["certificate"].split()), int(row["par"]) if row.get("par") else None,
                   int(row["grade"]) if row.get("grade") else None,
                   tuple(int(x) for x in (row.get("pars") or "").split()))


def utc_day(now_ms: int) -> str:
    return dt.datetime.fromtimestamp(now_ms / 1000, dt.UTC).date().isoformat()


def day_number(date: str) -> int:
    return (dt.date.fromisoformat(date) - EPOCH).days + 1


def day_bounds_ms(date: str) -> tuple[int, int]:
    start = dt.datetime.combine(dt.date.fromisoformat(date), dt.time(), dt.UTC)
    begin = int(start.timestamp() * 1000)
    return begin, begin + 86_400_000


def derive_deal(secret: bytes, date: str, variant: str, counter: int) -> str:
    """HMAC-SHA256(secret, date|variant|deal version|counter) mapped to 20 digits."""
    msg = f"{date}|{variant}|{DEAL_VERSION}|{counter}".encode()
    digest = hmac.new(secret, msg, hashlib.sha256).digest()
    return str(DEAL_LOW + int.from_bytes(digest, "big") % DEAL_SPAN)


def commitment(deal: str, salt: str) -> str:
    return hashlib.sha256(f"{deal}|{salt}".encode()).hexdigest()


def weekly_target(date: str) -> int:
    """The difficulty grade the daily deal of ``date`` aims at."""
    return WEEKLY_CURVE[dt.date.fromisoformat(date).weekday()]


def choose_daily(secret: bytes, date: str, variant: str, solve: Solver,
                 budget: int = SOLVE_BUDGET, tries: int = MAX_TRIES,
                 grade: Grader | None = None) -> DailyDeal:
    """The day's deal: the first derived deal the solver wins; if none of
    ``tries`` is won, the one where it got furthest, with that count as par.
    With ``grade``, the first won deal of the weekday's target grade, else the
    won deal whose grade is nearest to it (the first such)."""
    if not secret:
        raise ValueError("the daily challenge needs a server secret (PATIENCE_SECRET)")
    best: tuple[int, int, str] | None = None
    nearest: tuple[int, DailyDeal] | None = None
    target = weekly_target(date)
    salt = secrets.token_hex(16)
    for counter in range(tries):
        deal = derive_deal(secret, date, variant, counter)
        outcome = solve(variant, deal, budget)
        if outcome.result == "won":
            won = DailyDeal(date, variant, deal, counter, salt, tuple(outcome.moves), None)
            if grade is None:
                return won
            g = grade(variant, deal, list(outcome.moves))
            won = DailyDeal(date, variant, deal, counter, salt, tuple(outcome.moves), None, g)
            if g == target:
                return won
            if nearest is None or abs(g - target) < nearest[0]:
                nearest = (abs(g - target), won)
        elif best is None or outcome.best_progress > best[0]:
            best = (outcome.best_progress, counter, deal)
    if nearest is not None:
        return nearest[1]
    assert best is not None
    return DailyDeal(date, variant, best[2], best[1], salt, (), best[0])


def board_score(won: bool, time_ms: int, moves: int, foundation_cards: int) -> int:
    """One sortable number, lower is better: winners first, by time, then
    moves; then the others by foundation cards (more first), then time, then
    moves. (Ranking losers by time first would let a quick resignation beat a
    long game.) 1 + 7 + 24 + 13 = 45 bits: exact in a sorted set's double."""
    time_ms = min(max(time_ms, 0), 2**24 - 1)
    moves = min(max(moves, 0), 2**13 - 1)
    missing = 0 if won else min(max(127 - foundation_cards, 0), 127)
    return ((0 if won else 1) << 44) | (missing << 37) | (time_ms << 13) | moves


def score_fields(score: int, total: int) -> dict[str, Any]:
    won = not (score >> 44) & 1
    missing = (score >> 37) & 127
    return {"won": won, "time_ms": (score >> 13) & (2**24 - 1), "moves": score & (2**13 - 1),
            "foundation_cards": total if won else 127 - missing}


def share_line(variant_name: str, date: str, won: bool, time_ms: int, moves: int,
               foundation_cards: int, total: int, ranked: bool) -> str:
    """A spoiler-free line to paste anywhere: no card information at all."""
    minutes, seconds = divmod(time_ms // 1000, 60)
    result = "won" if won else f"{foundation_cards}/{total} cards"
    practice = "" if ranked else " (practice)"
    return (f"Patience Race daily #{day_number(date)} · {variant_name} · {result} · "
            f"{minutes}:{seconds:02d} · {moves} moves{practice}")
