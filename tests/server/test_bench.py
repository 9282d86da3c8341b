"""``patience-server bench`` end to end, tiny: every figure of the report is there
and comes from real work (moves accepted, echoes answered, memory measured)."""

from __future__ import annotations

import json
import subprocess
import sys


def test_bench_reports_every_figure_as_json() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "server.cli", "bench", "--players", "4", "--open-players", "4",
         "--rate", "20", "--idle-players", "4", "--seconds", "1", "--repeat", "2", "--servers", "2",
         "--json"],
        capture_output=True, text=True, timeout=180, check=True)
    report = json.loads(out.stdout)
    server, echo = report["closed"]
    assert server["name"] == "server" and server["n"] > 0 and echo["n"] > 0
    assert report["open"][0]["n"] > 0 and report["open"][1]["n"] > 0
    assert 0 < report["redis_round_trips_per_move"] <= 1
    assert report["cpu_us"]["server_per_move"] > 0 and report["cpu_us"]["echo_per_round_trip"] > 0
    assert report["idle"]["players"] == 4
    assert report["args"]["players"] == 4
    # two runs of each measurement, the median one reported
    assert len(report["closed_ratios"]) == 2 and len(report["open_p99_ratios"]) == 2
    assert report["closed"] in [run["rows"] for run in report["closed_runs"]]
    # both server processes took moves: the players of a room sit on different ones
    assert all(run["moves_by_server"][0] > 0 and run["moves_by_server"][1] > 0
               for run in report["closed_runs"])


def test_bench_refuses_zero_runs_or_servers() -> None:
    for option in ("--repeat", "--servers"):
        out = subprocess.run([sys.executable, "-m", "server.cli", "bench", option, "0"],
                             capture_output=True, text=True, timeout=60)
        assert out.returncode == 2 and "must be at least 1" in out.stderr
