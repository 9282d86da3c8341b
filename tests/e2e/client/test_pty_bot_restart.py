"""A quick race's bot survives a restart of the server (kill -9, then start
again): the race screen at 80x24 shows it racing on, driven again, instead of
frozen at its last count until the clock runs out."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.client.test_pty import PATIENCE, Terminal
from tests.e2e.client.test_pty_player import SMALL, race_a_bot
from tests.support.served import SERVER, Served, served

pytestmark = pytest.mark.skipif(not (PATIENCE.exists() and SERVER.exists()),
                                reason="the console scripts are not installed")

BOT_ROW = re.compile(r"\[bot \d\].*?(\d+) moves?")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Served]:
    with served(tmp_path, PATIENCE_QUICK_BOT_S="1", PATIENCE_RACE_SECONDS="300",
                PATIENCE_QUICK_BOT_LEVEL="1") as running:
        yield running


def bot_moves(term: Terminal) -> int | None:
    for line in term.lines:
        found = BOT_ROW.search(line)
        if found and "racing" in line:
            return int(found.group(1))
    return None


def test_a_quick_races_bot_races_on_after_the_server_is_killed_and_restarted(
        server: Served, tmp_path: Path) -> None:
    term = Terminal(["--server", server.url, "--name", "ann"], tmp_path / "cfg", SMALL)
    try:
        term.wait_text("1  Quick race")
        race_a_bot(term)
        term.wait(lambda: (bot_moves(term) or 0) >= 2, timeout=30)  # the bot plays
        server.kill()
        term.wait_text("reconnecting", timeout=10)
        at_kill = bot_moves(term)
        assert at_kill is not None, term.text
        server.start()
        term.wait(lambda: "reconnecting" not in term.text and "[f1]" in term.text, timeout=30)
        # driven again: its moves go on (within its lease's lapse and a sweep)
        term.wait(lambda: (bot_moves(term) or 0) > at_kill, timeout=45)
        term.child.send("q")
        term.wait_text("y to quit")
        term.child.send("y")
        assert term.finish() == 0
    finally:
        term.child.close(force=True)
