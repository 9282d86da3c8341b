"""mypyc's exception state shared between coroutines, shown on the smallest
program (tests/support/mypyc_leak.py, docs/design/compiled-code.md).

The server keeps every wait out of its compiled ``except`` and ``finally``
blocks because of it (tests/unit/ops/test_compiled_awaits.py). This test
compiles the program with the mypyc the project builds with and runs it both
ways; the day it fails on the compiled side, mypyc has fixed the leak and the
rule can be revisited (the design note says how).
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

import pytest

from tests.support import mypyc_leak

PURE_ANSWER = "returned normally\nNone\n"


def run(where: Path) -> str:
    code = ("import mypyc_leak, sys; print(mypyc_leak.__file__, file=sys.stderr); "
            "mypyc_leak.main()")
    done = subprocess.run([sys.executable, "-c", code], cwd=where, capture_output=True,
                          text=True, timeout=60, check=True)
    return done.stdout


def test_the_program_as_plain_python_raises_nothing(tmp_path: Path) -> None:
    shutil.copy(mypyc_leak.__file__, tmp_path / "mypyc_leak.py")
    assert run(tmp_path) == PURE_ANSWER


@pytest.mark.skipif(importlib.util.find_spec("mypyc") is None, reason="mypyc is not installed")
def test_compiled_the_program_raises_another_tasks_exception(tmp_path: Path) -> None:
    shutil.copy(mypyc_leak.__file__, tmp_path / "mypyc_leak.py")
    subprocess.run([sys.executable, "-m", "mypyc", "mypyc_leak.py"], cwd=tmp_path,
                   capture_output=True, check=True, timeout=600)
    assert any(tmp_path.glob(f"mypyc_leak{EXTENSION_SUFFIXES[0]}"))
    (tmp_path / "mypyc_leak.py").unlink()  # only the extension module can be imported
    lines = run(tmp_path).splitlines()
    assert lines[0] == "raised the other task's KeyError('handled by another task')", (
        "mypyc no longer raises another task's exception after an await in a finally: "
        "see docs/design/compiled-code.md before relaxing tests/unit/ops/test_compiled_awaits.py")
    assert lines[1] == "KeyError('handled by another task')"
