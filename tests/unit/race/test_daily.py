"""The daily deal's derivation, commitment, scores and share line (no I/O)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

from server.game.deals import parse_deal_number
from server.race.daily import (
    board_score,
    choose_daily,
    commitment,
    day_bounds_ms,
    day_number,
    derive_deal,
    score_fields,
    share_line,
    utc_day,
)


@dataclass
class Outcome:
    result: str
    moves: list[str] = field(default_factory=list)
    best_progress: int = 0


def test_deal_is_keyed_and_in_pysolfc_20_digit_range() -> None:
    a = derive_deal(b"secret", "2026-11-30", "four-seasons", 0)
    assert len(a) == 20 and parse_deal_number(a) == (int(a), False)
    assert derive_deal(b"secret", "2026-11-30", "four-seasons", 0) == a
    # another secret, day, variant or counter gives another deal
    assert derive_deal(b"other", "2026-11-30", "four-seasons", 0) != a
    assert derive_deal(b"secret", "2026-12-01", "four-seasons", 0) != a
    assert derive_deal(b"secret", "2026-11-30", "czarina", 0) != a
    assert derive_deal(b"secret", "2026-11-30", "four-seasons", 1) != a


def test_choose_daily_takes_the_first_deal_the_solver_wins() -> None:
    calls: list[str] = []

    def solve(variant: str, deal: str, budget: int) -> Outcome:
        calls.append(deal)
        return Outcome("won", ["draw"]) if len(calls) == 3 else Outcome("unknown", best_progress=9)

    d = choose_daily(b"k", "2026-11-30", "four-seasons", solve)
    assert d.counter == 2 and d.deal == derive_deal(b"k", "2026-11-30", "four-seasons", 2)
    assert d.certificate == ("draw",) and d.par is None
    assert d.commitment == commitment(d.deal, d.salt)


def test_choose_daily_settles_for_a_par_when_nothing_is_won() -> None:
    progress = iter([5, 11, 7])

    def solve(variant: str, deal: str, budget: int) -> Outcome:
        return Outcome("lost", best_progress=next(progress))

    d = choose_daily(b"k", "2026-11-30", "corners", solve, tries=3)
    assert d.par == 11 and d.counter == 1 and d.certificate == ()


def test_choose_daily_refuses_without_a_secret() -> None:
    with pytest.raises(ValueError, match="secret"):
        choose_daily(b"", "2026-11-30", "corners", lambda *a: Outcome("won"))


def test_commitment_binds_deal_and_salt() -> None:
    c = commitment("12345678901234567890", "abc")
    assert c != commitment("12345678901234567891", "abc")
    assert c != commitment("12345678901234567890", "abd")
    assert len(c) == 64


def test_days() -> None:
    begin, end = day_bounds_ms("2026-11-30")
    assert utc_day(begin) == "2026-11-30" and utc_day(end - 1) == "2026-11-30"
    assert utc_day(end) == "2026-12-01"
    assert day_number("2026-01-01") == 1 and day_number("2026-11-30") == 334


def test_board_score_orders_winners_by_time_then_moves_then_others_by_cards() -> None:
    fast = board_score(True, 60_000, 120, 52)
    slow = board_score(True, 90_000, 80, 52)
    fewer_moves = board_score(True, 60_000, 100, 52)
    many_cards = board_score(False, 200_000, 300, 40)
    quick_resign = board_score(False, 5_000, 3, 2)
    assert fewer_moves < fast < slow < many_cards < quick_resign
    assert score_fields(slow, 52) == {"won": True, "time_ms": 90_000, "moves": 80, "foundation_cards": 52}
    assert score_fields(many_cards, 52) == {"won": False, "time_ms": 200_000, "moves": 300,
                                            "foundation_cards": 40}
    assert float(many_cards) == many_cards  # exact in a sorted set's double


def test_share_line_has_no_card_information() -> None:
    line = share_line("Four Seasons", "2026-11-30", True, 221_000, 112, 52, 52, True)
    assert line == "Patience Race daily #334 · Four Seasons · won · 3:41 · 112 moves"
    practice = share_line("Corners", "2026-11-30", False, 61_000, 40, 17, 52, False)
    assert "17/52 cards" in practice and practice.endswith("(practice)")
    for token in line.split():
        assert not (len(token) == 2 and token[0] in "A23456789TJQK" and token[1] in "CDHS")


def test_a_missing_secret_is_made_once_and_kept(tmp_path: Path) -> None:
    import os

    from server.ops.config import load_or_create_secret

    first = load_or_create_secret(str(tmp_path / "data"))
    assert len(first) == 64
    assert load_or_create_secret(str(tmp_path / "data")) == first
    assert os.stat(tmp_path / "data" / "secret").st_mode & 0o077 == 0


def test_a_secret_written_by_another_process_meanwhile_wins(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """The other process writes its secret between this one's look and its write."""
    from server.ops.config import load_or_create_secret

    data = tmp_path / "data"
    theirs = load_or_create_secret(str(data))
    monkeypatch.setattr(Path, "exists", lambda self: False)  # it looked just before they wrote
    assert load_or_create_secret(str(data)) == theirs
    monkeypatch.undo()
    assert sorted(q.name for q in data.iterdir()) == ["secret"]


def test_the_weekly_curve_is_easier_early_in_the_week() -> None:
    from server.race.daily import WEEKLY_CURVE, weekly_target

    assert list(WEEKLY_CURVE) == sorted(WEEKLY_CURVE) and WEEKLY_CURVE[0] < WEEKLY_CURVE[-1]
    assert weekly_target("2026-11-30") == WEEKLY_CURVE[0]  # a Monday
    assert weekly_target("2026-12-06") == WEEKLY_CURVE[6]  # a Sunday


def test_choose_daily_takes_the_first_won_deal_of_the_weekdays_grade() -> None:
    from server.race.daily import weekly_target

    grades = {derive_deal(b"k", "2026-12-06", "four-seasons", c): g
              for c, g in enumerate([1, 2, 9, 4, 4])}  # 9: never graded, it is lost

    def solve(variant: str, deal: str, budget: int) -> Outcome:
        return Outcome("lost" if grades[deal] == 9 else "won", [f"line{grades[deal]}"])

    asked: list[list[str]] = []

    def grade(variant: str, deal: str, line: list[str]) -> int:
        asked.append(line)
        return grades[deal]

    sunday = choose_daily(b"k", "2026-12-06", "four-seasons", solve, tries=5, grade=grade)
    assert weekly_target("2026-12-06") == 4
    assert sunday.counter == 3 and sunday.grade == 4 and sunday.certificate == ("line4",)
    assert asked == [["line1"], ["line2"], ["line4"]]  # the lost deal is never graded
    # with no deal of the target grade, the nearest one, the first of equals
    monday = {derive_deal(b"k", "2026-11-30", "four-seasons", c): g for c, g in enumerate([3, 2, 4])}
    grades.update(monday)
    d = choose_daily(b"k", "2026-11-30", "four-seasons", solve, tries=3, grade=grade)
    assert d.counter == 1 and d.grade == 2


def test_a_graded_daily_keeps_its_grade_and_pars_in_the_store() -> None:
    from server.race.daily import DailyDeal

    d = DailyDeal("2026-12-06", "czarina", "1" * 20, 3, "s", ("draw",), None, 4, (6, 12, 20, 52, 52))
    assert DailyDeal.from_store(d.to_store()) == d
    old = {k: v for k, v in d.to_store().items() if k not in ("grade", "pars")}  # a row from before
    assert DailyDeal.from_store(old).grade is None and DailyDeal.from_store(old).pars == ()
