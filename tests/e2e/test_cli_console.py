"""The installed console script runs (a real process)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.unit.cli.test_cli import SCRIPT, assert_one_line_error, legal_record, write_record
from tests.unit.game.test_golden_deals import LAYOUTS


# -- the installed console script ---------------------------------------------------
def test_console_script(tmp_path: Path) -> None:
    assert SCRIPT.exists(), f"{SCRIPT} is not installed (pip install -e .)"
    done = subprocess.run([str(SCRIPT), "deal", "four-seasons", "1", "--json"],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["piles"] == LAYOUTS["four-seasons", "1"]
    rec = write_record(tmp_path, legal_record().to_dict())
    done = subprocess.run([str(SCRIPT), "verify", rec],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0 and json.loads(done.stdout)["legal"] is True
    done = subprocess.run([str(SCRIPT), "verify", str(tmp_path / "missing.json")],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2 and done.stdout == ""
    assert_one_line_error(done.stderr, "cannot read")
