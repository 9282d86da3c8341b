"""The dead-verdict bench against a real server process."""

from __future__ import annotations

import json

import pytest

from bench import dead_load


def test_the_bench_times_the_dead_verdict_on_a_loaded_server(capsys: pytest.CaptureFixture[str]) -> None:
    code = dead_load.main(["--players", "20", "--rate", "40", "--repeat", "1", "--phase-seconds", "2",
                           "--only", "czarina", "--generators", "1", "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0 and report["within_limit"]
    assert report["load_moves"] > 20  # the load really ran beside the corpus
    (row,) = report["games"]
    assert row["variant"] == "czarina" and 0 < row["served_s"][0] <= dead_load.LIMIT_S


def test_each_repeat_meets_a_server_that_has_never_seen_the_game(capsys: pytest.CaptureFixture[str]) -> None:
    """A server remembers its verdicts: a repeat on the same server would time a
    look-up. Every repeat plays on a server process of its own."""
    code = dead_load.main(["--players", "10", "--rate", "20", "--repeat", "2", "--phase-seconds", "1",
                           "--only", "czarina", "--generators", "1", "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0
    assert len(report["server_pids"]) == 2 and len(set(report["server_pids"])) == 2
    (row,) = report["games"]
    assert len(row["served_s"]) == 2 and len(row["engine_s"]) == 2
