"""The daily secret made once by processes starting together (real processes)."""

from __future__ import annotations

from pathlib import Path


def test_processes_starting_together_agree_on_one_secret(tmp_path: Path) -> None:
    """Several server processes on one data directory, started at once (the tests
    and a multi-process deployment do this), must not fail or disagree."""
    import subprocess
    import sys

    data = str(tmp_path / "data")
    code = f"from server.ops.config import load_or_create_secret; print(load_or_create_secret({data!r}))"
    procs = [subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
             for _ in range(6)]
    values = {p.communicate(timeout=60)[0].strip() for p in procs}
    assert all(p.returncode == 0 for p in procs)
    assert len(values) == 1 and len(values.pop()) == 64
    assert sorted(q.name for q in (tmp_path / "data").iterdir()) == ["secret"]  # no leftovers
