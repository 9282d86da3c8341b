"""patience-server bench --cluster beside one node (the local cluster's processes and HAProxy)."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.support.localcluster import needs_haproxy


@needs_haproxy
def test_bench_cluster_reports_each_configuration_beside_one_node() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "bench.load", "--cluster", "--cluster-servers", "2",
         "--players", "4", "--open-players", "4", "--rates", "20", "--seconds", "0.5", "--json"],
        capture_output=True, text=True, timeout=180)
    assert out.returncode == 0, out.stderr[-4000:]
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
