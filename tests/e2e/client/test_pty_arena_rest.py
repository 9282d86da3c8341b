"""An arena's results stay on screen for the rest between a race and the next
pairing (PATIENCE_ARENA_REST_MS), at 80x24, against a real server and Redis."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.client.test_pty import PATIENCE, Terminal
from tests.e2e.client.test_pty_arena import bot_in_arena, resign_when_paired, results
from tests.e2e.client.test_pty_player import SMALL, hold
from tests.e2e.client.test_pty_watch import Loop, loop  # noqa: F401 (the fixture)
from tests.support.served import SERVER, Served, served

pytestmark = pytest.mark.skipif(not (PATIENCE.exists() and SERVER.exists()),
                                reason="the console scripts are not installed")

REST_S = 4


@pytest.fixture
def arena(tmp_path: Path) -> Iterator[tuple[Served, str]]:
    """A server pairing every 100 ms with a rest of REST_S after each race, and an arena on it."""
    with served(tmp_path, PATIENCE_ARENA_TICK_MS="100", PATIENCE_ARENA_REST_MS=str(REST_S * 1000)) as server:
        made = subprocess.run([str(SERVER), "arena", "create", "--variant", "four-seasons", "--minutes", "30",
                               "--name", "Rest Cup"], env=server.env, capture_output=True, text=True,
                              timeout=30)
        assert made.returncode == 0, made.stderr
        yield server, made.stdout.strip()


def test_an_arena_races_results_stay_on_screen_for_the_rest(
        arena: tuple[Served, str], tmp_path: Path, loop: Loop) -> None:  # noqa: F811
    server, arena_id = arena
    term = Terminal(["--server", server.url, "--name", "cyd"], tmp_path / "cfg", SMALL)
    bot = None
    try:
        term.wait_text("a  Arenas")
        term.child.send("a")
        term.wait_text("Rest Cup")
        term.child.send("1")
        term.wait_text("Waiting for the next pairing")
        bot = loop.run(bot_in_arena(server.url, arena_id))
        term.wait(lambda: "ann" in term.text and "Waiting for the next pairing" not in term.text, timeout=15)
        loop.run(resign_when_paired(bot))
        term.child.send("X")
        term.wait_text("y to confirm", timeout=10)
        term.child.send("y")
        term.wait_text("Results", timeout=15)
        shown = time.monotonic()
        loop.run(results(bot))  # the bot stays in the arena: both wait for the next pairing
        hold(term, REST_S - 1.5)
        assert "Results" in term.text, f"the results went after {time.monotonic() - shown:.1f} s"
        # ... and after the rest the next pairing comes
        term.wait(lambda: "Results" not in term.text and "ann" in term.text, timeout=REST_S + 10)
        term.child.send("q")
        term.finish()
    finally:
        term.child.close(force=True)
        if bot is not None:
            loop.run(bot.close())
