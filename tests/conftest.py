"""Checks for the whole test run, the fixtures every folder shares, and the markers.

Every test is marked by its folder: ``tests/unit/`` (no Redis, no process, no
network server; mirrors server/ and client/), ``tests/integration/`` (a real Redis
and servers in the test's own process) and ``tests/e2e/`` (server and client
processes, terminals, the local cluster, the bench). ``-m unit`` and the like select
them; a test file outside the three folders is refused, so none goes unmarked.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from server.ops.corebuild import pure_requested, stale_modules

# the fixtures of real Redis, in-process servers and server processes, for every folder
pytest_plugins = ["tests.support.servers"]

KINDS = ("unit", "integration", "e2e")
TESTS = Path(__file__).resolve().parent


def pytest_sessionstart(session: pytest.Session) -> None:
    # An edit to server/game/ after the last build leaves the old compiled
    # modules in front of the new source: tests would run code that is not
    # in the tree. `make test` rebuilds first; a bare pytest run stops here.
    if pure_requested():
        return
    stale = stale_modules()
    if stale:
        pytest.exit(f"the compiled rules core is older than its source ({', '.join(stale)}): "
                    "rebuild it (make setup, or pip install -e .), or run with PATIENCE_PURE=1",
                    returncode=2)


def kind_of(path: Path) -> str | None:
    """unit, integration or e2e: the test's first folder under tests/ (None elsewhere)."""
    try:
        parts = path.resolve().relative_to(TESTS).parts
    except ValueError:
        return None
    return parts[0] if len(parts) > 1 and parts[0] in KINDS else None


# e2e tests that run one after another on one worker when the e2e tests run side by
# side (make test), a group each: whatever starts a local cluster (its nodes take ports
# found free a moment before, so two clusters never start at once), and the bench's
# processes (they measure what they do). The two groups run beside each other.
SERIAL_E2E = {"cluster": "cluster", "bench/test_bench_cluster.py": "cluster", "bench": "bench"}
# e2e files marked ``alone``: they time a server process (latency under an attack,
# growth at full speed), so make test runs them after the others, with nothing beside
ALONE_E2E = ("server/test_isolation.py", "server/test_growth.py")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    astray = set()
    for item in items:
        kind = kind_of(item.path)
        if kind is None:
            astray.add(str(item.path))
        else:
            item.add_marker(getattr(pytest.mark, kind))
            where = item.path.resolve().relative_to(TESTS).parts[1:]
            if kind == "e2e":
                group = SERIAL_E2E.get("/".join(where), SERIAL_E2E.get(where[0]))
                if group is not None:
                    item.add_marker(pytest.mark.xdist_group(group))
            if kind == "e2e" and "/".join(where) in ALONE_E2E:
                item.add_marker(pytest.mark.alone)
    if astray:
        raise pytest.UsageError("tests belong in tests/unit/, tests/integration/ or tests/e2e/ "
                                f"(README.md, Development): {', '.join(sorted(astray))}")
