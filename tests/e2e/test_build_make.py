"""The Makefile rebuilds the compiled modules after an edit, and says what its long
first build is doing, whose output carries no warning (runs make and pip)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from server.ops.corebuild import SERVER_COMPILED
from tests.unit.ops.test_build import ROOT


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_the_makefile_rebuilds_after_an_edit_to_a_compiled_server_module() -> None:
    """The Makefile's stamp depends on every compiled source: it reads the
    server's list from server/ops/corebuild.py (a sed over its text)."""
    out = subprocess.run(["make", "-pq", "setup"], cwd=ROOT, capture_output=True, text=True,
                         timeout=60).stdout
    (line,) = [ln for ln in out.splitlines() if ln.startswith("SERVER_SRC :=")]
    assert line.split(":=")[1].split() == [name.replace(".", "/") + ".py" for name in SERVER_COMPILED]


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_the_first_build_says_what_it_does_and_how_long_before_the_quiet_install() -> None:
    out = subprocess.run(["make", "-n", "-B", "setup"], cwd=ROOT, capture_output=True, text=True,
                         timeout=60).stdout.splitlines()
    install = next(i for i, line in enumerate(out) if "pip install" in line and " -e " in line)
    said = " ".join(out[:install])
    assert "compiling the rules core" in said and "minutes" in said and "prints nothing" in said


@pytest.mark.timeout(900)
def test_the_editable_install_prints_no_warning(tmp_path: Path) -> None:
    """What `make setup` runs, quiet, compile included: the output is empty of any
    Python warning (setuptools' about folders named like the package was the one a
    newcomer saw; the pure build, with no extension, never showed it)."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    env = {k: v for k, v in os.environ.items() if k != "PATIENCE_PURE"}
    done = subprocess.run([str(venv / "bin" / "pip"), "install", "--quiet", "--no-deps", "-e", str(ROOT)],
                          capture_output=True, text=True, timeout=800, env=env, check=False)
    assert done.returncode == 0, done.stderr
    output = done.stdout + done.stderr
    assert not re.search(r"\b\w+Warning\b", output), output  # a warning class's name, as Python prints it
    assert "!!" not in output, output  # setuptools' banner
