"""The pairing measurement (bench/matching.py) on a small crowd: it runs, and
pairing by skill gives tighter groups than first-come pairing."""

from __future__ import annotations

from bench.matching import arrivals, main, simulate
from server.race.matching import first_come, pair


def test_skill_pairing_makes_tighter_groups_than_first_come(capsys) -> None:
    players = arrivals(200, 5, seed=3)
    by_skill = simulate(players, pair, 4)
    first = simulate(players, lambda t, _now, size: first_come(t, size), 4)
    assert len(by_skill.waits_ms) == len(first.waits_ms) == 200  # everyone raced, with people or a bot
    assert sorted(by_skill.gaps)[len(by_skill.gaps) // 2] < sorted(first.gaps)[len(first.gaps) // 2]
    main(["--players", "50", "--minutes", "2"])
    out = capsys.readouterr().out
    assert "by skill" in out and "first come" in out and "median gap" in out
