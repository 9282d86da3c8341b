"""patience-server bench as a real process: its report, its refusals, its spawned processes' logs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from bench.load.driver import _spawn


def test_bench_reports_every_figure_as_json() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "bench.load", "--players", "4", "--open-players", "4",
         "--rates", "40,20", "--idle-players", "4", "--seconds", "1", "--sweep-seconds", "1",
         "--repeat", "2", "--servers", "2", "--generators", "2", "--engine-seconds", "0.1",
         "--echo-store", "--json"],
        capture_output=True, text=True, timeout=300, check=True)
    report = json.loads(out.stdout)
    server, echo = report["closed"]
    assert server["name"] == "server" and server["n"] > 0 and echo["n"] > 0
    assert 0 < report["redis_round_trips_per_move"] <= 1
    assert report["cpu_us"]["server_per_move"] > 0 and report["cpu_us"]["echo_per_round_trip"] > 0
    assert report["cpu_times_echo"] > 0
    assert report["idle"]["players"] == 4
    assert report["args"]["players"] == 4
    # two runs of each measurement, the median one reported
    assert len(report["closed_ratios"]) == 2
    assert report["closed"] in [run["rows"] for run in report["closed_runs"]]
    # both server processes took moves: the players of a room sit on different ones
    assert all(run["moves_by_server"][0] > 0 and run["moves_by_server"][1] > 0
               for run in report["closed_runs"])
    # the generators' CPU share is reported for both sides of every phase
    for side in ("server", "echo"):
        g = report["generator"][side]
        assert len(g["generator_cpu_shares"]) == 2 and g["generator_cpu_share"] > 0
        assert isinstance(g["generator_saturated"], bool) and 0 <= g["machine_busy"] <= 1
    # the sweep: every rate, in order, both sides measured, two runs each
    assert [s["rate"] for s in report["sweep"]] == [20.0, 40.0]
    for s in report["sweep"]:
        assert s["rows"][0]["n"] > 0 and s["rows"][1]["n"] > 0 and len(s["p99_ratios"]) == 2
    assert report["knee"] in (None, 20.0, 40.0)
    # beside the echo that stores each message: its row, the ratio to it, its knee
    for s in report["sweep"]:
        assert s["rows"][2]["name"] == "echo+store" and s["rows"][2]["n"] > 0
        assert s["p99_ratio_store"] == s["rows"][0]["p99_ms"] / s["rows"][2]["p99_ms"]
    assert report["knee_store"] in (None, 20.0, 40.0)
    assert report["engine"]["gen_apply_per_s"] > 0
    assert [t["name"][:2] for t in report["targets"]] == ["1.", "2.", "3.", "5.", "5.", "5."]


def test_bench_refuses_zero_runs_servers_or_generators_and_bad_rates() -> None:
    for option, value, words in (("--repeat", "0", "must be at least 1"),
                                 ("--servers", "0", "must be at least 1"),
                                 ("--generators", "0", "must be at least 1"),
                                 ("--rates", "1000,x", "comma-separated"),
                                 ("--rates", "0,1000", "must be positive")):
        out = subprocess.run([sys.executable, "-m", "bench.load", option, value],
                             capture_output=True, text=True, timeout=60)
        assert out.returncode == 2 and words in out.stderr


def test_bench_refuses_bad_cluster_server_counts() -> None:
    for value in ("0", "1,x", ""):
        out = subprocess.run([sys.executable, "-m", "bench.load", "--cluster-servers", value],
                             capture_output=True, text=True, timeout=60)
        assert out.returncode == 2 and "--cluster-servers" in out.stderr


def test_the_spawned_processes_log_goes_to_the_bench_log_when_asked(tmp_path: Path) -> None:
    script = "import sys; print('ws://127.0.0.1:1/', flush=True); sys.stderr.write('probe line\\n')"
    log = tmp_path / "bench.log"
    for env in ({**os.environ, "PATIENCE_BENCH_LOG": str(log)}, dict(os.environ)):
        proc = _spawn([sys.executable, "-c", script], env)
        assert proc.port == 1
        proc.popen.wait(10)
    assert log.read_text() == "probe line\n"  # once: the second run's log went nowhere
