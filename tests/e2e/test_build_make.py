"""The Makefile rebuilds the compiled modules after an edit (runs make)."""

from __future__ import annotations

import shutil
import subprocess

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
