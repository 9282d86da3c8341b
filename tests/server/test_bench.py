"""``patience-server bench`` end to end, tiny: every figure of the report is there
and comes from real work (moves accepted, echoes answered, memory measured)."""

from __future__ import annotations

import json
import subprocess
import sys

from server.benchcluster import sizing
from tests.localcluster_support import needs_haproxy


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


@needs_haproxy
def test_bench_cluster_reports_each_configuration_beside_one_node() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "server.cli", "bench", "--cluster", "--cluster-servers", "2",
         "--players", "4", "--open-players", "4", "--rate", "20", "--seconds", "0.5", "--json"],
        capture_output=True, text=True, timeout=180, check=True)
    report = json.loads(out.stdout)
    names = [row["name"] for row in report["rows"]]
    assert names == ["1 server, 1 Redis (local)", "cluster, K=2 (local)", "cluster, K=2 (replica)"]
    for row in report["rows"]:
        assert row["closed"]["per_s"] > 0 and row["open"]["per_s"] > 0
        assert row["closed"]["p99_ms"] > 0 and 0 < row["round_trips_per_move"] <= 3
        assert row["cpu_us_per_move"]["servers"] > 0 and row["cpu_us_per_move"]["primaries"] > 0
    cluster = report["rows"][-1]["cpu_us_per_move"]
    assert cluster["replicas"] > 0 and cluster["haproxy"] > 0  # every part is measured
    assert set(report["sizing"]) == {"10000", "100000"}


def test_sizing_is_cores_at_half_load() -> None:
    row = {"cpu_us_per_move": {"servers": 100.0, "primaries": 20.0, "replicas": 10.0, "haproxy": 5.0}}
    cores = sizing(row)
    assert cores["10000"] == {"servers": 2.0, "primaries": 0.4, "replicas": 0.2, "haproxy": 0.1}
    assert cores["100000"]["servers"] == 20.0


def test_bench_refuses_bad_cluster_server_counts() -> None:
    for value in ("0", "1,x", ""):
        out = subprocess.run([sys.executable, "-m", "server.cli", "bench", "--cluster-servers", value],
                             capture_output=True, text=True, timeout=60)
        assert out.returncode == 2 and "--cluster-servers" in out.stderr
