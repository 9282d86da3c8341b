"""Checks for the whole test run."""

from __future__ import annotations

import pytest

from server.ops.corebuild import pure_requested, stale_modules

# the fixtures of real Redis, in-process servers and server processes, for every folder
pytest_plugins = ["tests.support.servers"]


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
