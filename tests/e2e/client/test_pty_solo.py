"""Solo play in a real terminal against a real ``patience-server`` and a real Redis:
a chosen deal, a move, an undo, the record saved with ``s`` and checked by
``patience-server verify``."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from server.game import engine
from tests.e2e.client.test_pty import PATIENCE, Terminal
from tests.support.redis_server import redis_url

SERVER = Path(sys.executable).parent / "patience-server"
SERVING = re.compile(r"serving (ws://[^/ ]+)/")

pytestmark = pytest.mark.skipif(not (PATIENCE.exists() and SERVER.exists()),
                                reason="the console scripts are not installed")


@pytest.fixture
def server_url(tmp_path: Path) -> Iterator[str]:
    with redis_url() as redis:
        env = {**os.environ, "REDIS_URL": redis, "PATIENCE_PORT": "0", "PATIENCE_HOST": "127.0.0.1",
               "PATIENCE_COUNTDOWN_MS": "300", "PATIENCE_DATA_DIR": str(tmp_path / "data"),
               "PYTHONUNBUFFERED": "1"}
        proc = subprocess.Popen([str(SERVER), "serve"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                stdin=subprocess.DEVNULL, env=env, cwd=tmp_path, text=True)
        try:
            assert proc.stdout is not None
            for line in proc.stdout:
                found = SERVING.search(line)
                if found:
                    yield found.group(1)
                    break
            else:
                raise AssertionError("the server exited before serving")
        finally:
            proc.terminate()
            proc.wait(15)


def test_solo_on_a_chosen_deal_move_undo_save_and_verify(server_url: str, tmp_path: Path) -> None:
    records = tmp_path / "records"
    start = engine.new_game("four-seasons", 24)
    first = str(engine.legal_moves(start)[0])
    term = Terminal(["--server", server_url, "--name", "sol", "--records", str(records)], tmp_path / "cfg")
    try:
        term.wait_text("8  Play alone")
        term.child.send("8")
        term.wait_text("Play alone: pick a variant")
        term.child.send("1")  # Four Seasons, or the first digit of 10..18: Enter says which
        term.wait_text("another digit")
        term.child.send("\r")
        term.wait_text("deal number")
        term.child.send("24\r")
        term.wait(lambda: "solo #24" in term.lines[0] and "[f1]" in term.text, timeout=15)
        term.child.send(f":{first}\r")
        term.wait_text("1 move ")
        term.child.send("u")  # the undo is a recorded action: it counts as a move
        term.wait_text("2 moves")
        term.child.send("X")
        term.wait_text("y to confirm")
        term.child.send("y")
        term.wait_text("Results")
        assert "deal #24" in term.text and "s save the record" in term.text
        term.child.send("s")
        term.wait_text("record saved to", timeout=10)
        saved = list(records.glob("*.json"))
        assert len(saved) == 1 and saved[0].name.startswith("patience-four-seasons-24-")
        record = json.loads(saved[0].read_text())
        assert record["moves"] == [first, "undo", "resign"] and str(record["deal"]) == "24"
        verdict = subprocess.run([str(SERVER), "verify", str(saved[0])], capture_output=True, text=True,
                                 timeout=60)
        assert verdict.returncode == 0, verdict.stderr
        out = json.loads(verdict.stdout)
        assert out["legal"] and out["undos"] == 1 and out["final_state"] == start._replace(
            resigned=True).digest()
        term.child.send("q")
        assert term.finish() == 0
    finally:
        term.child.close(force=True)
