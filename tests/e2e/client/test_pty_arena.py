"""An arena in a real terminal, against a real ``patience-server`` and a real Redis:
the lobby's ``a``, a number, the live standing, a paired race, its points, the next race."""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.client.test_pty import PATIENCE, Terminal
from tests.e2e.client.test_pty_solo import SERVER, SERVING
from tests.e2e.client.test_pty_watch import Loop, loop  # noqa: F401 (the fixture)
from tests.support.bot import Bot
from tests.support.redis_server import redis_url

pytestmark = pytest.mark.skipif(not (PATIENCE.exists() and SERVER.exists()),
                                reason="the console scripts are not installed")


@pytest.fixture
def arena_server(tmp_path: Path) -> Iterator[tuple[str, str]]:
    """A server pairing every 100 ms, and an arena running on it: (url, arena id)."""
    with redis_url() as redis:
        env = {**os.environ, "REDIS_URL": redis, "PATIENCE_PORT": "0", "PATIENCE_HOST": "127.0.0.1",
               "PATIENCE_COUNTDOWN_MS": "300", "PATIENCE_DATA_DIR": str(tmp_path / "data"),
               "PATIENCE_ARENA_TICK_MS": "100", "PATIENCE_ARENA_REST_MS": "0", "PYTHONUNBUFFERED": "1"}
        made = subprocess.run([str(SERVER), "arena", "create", "--variant", "four-seasons",
                               "--minutes", "30", "--name", "Pty Cup"], env=env, capture_output=True,
                              text=True, timeout=30)
        assert made.returncode == 0, made.stderr
        arena = made.stdout.strip()
        log = open(tmp_path / "server.log", "w")  # noqa: SIM115 (read when a test fails)
        proc = subprocess.Popen([str(SERVER), "serve"], stdout=subprocess.PIPE, stderr=log,
                                stdin=subprocess.DEVNULL, env=env, cwd=tmp_path, text=True)
        try:
            assert proc.stdout is not None
            for line in proc.stdout:
                found = SERVING.search(line)
                if found:
                    yield found.group(1), arena
                    break
            else:
                raise AssertionError("the server exited before serving")
        finally:
            proc.terminate()
            proc.wait(15)


async def bot_in_arena(url: str, arena: str) -> Bot:
    bot = Bot(url, "ann", seed=3)
    await bot.connect()
    await bot.send({"t": "arena_join", "id": arena})
    await bot.expect("arena")
    return bot


async def leave_arena(bot: Bot) -> None:
    await bot.send({"t": "arena_leave"})
    await bot.expect("arena", member=False)


async def bot_in_arena_again(bot: Bot, arena: str) -> None:
    bot.view = None
    await bot.send({"t": "arena_join", "id": arena})
    await bot.expect("arena", member=True)


async def resign_when_paired(bot: Bot) -> None:
    """The bot resigns its race as soon as it starts (the terminal's player then
    decides it), and reads on until the results."""
    await bot.expect("view", timeout=15)
    bot.seq += 1
    await bot.send({"t": "resign", "seq": bot.seq})
    await bot.expect("view", seq=bot.seq)


async def results(bot: Bot) -> None:
    await bot.expect("results", timeout=15)
    bot.results = None


def test_an_arena_from_the_lobby_standing_race_points_and_the_next_race(
        arena_server: tuple[str, str], tmp_path: Path, loop: Loop) -> None:  # noqa: F811
    url, arena = arena_server
    term = Terminal(["--server", url, "--name", "cyd"], tmp_path / "cfg")
    bot: Bot | None = None
    try:
        term.wait_text("a  Arenas")
        term.child.send("a")
        term.wait_text("Pty Cup")
        assert "running" in term.text
        term.child.send("1")  # one key more: joined
        term.wait_text("Waiting for the next pairing")
        term.wait(lambda: re.search(r"you: #1 . 0 points", term.text) is not None)
        bot = loop.run(bot_in_arena(url, arena))
        # paired: the race screen comes by itself, with the opponent's counts
        term.wait(lambda: "ann" in term.text and "Waiting for the next pairing" not in term.text, timeout=15)
        loop.run(resign_when_paired(bot))
        # the bot steps out, so no next pairing can take the screen away before
        # the standing is read (it comes back below)
        loop.run(leave_arena(bot))
        term.child.send("X")
        term.wait_text("y to confirm", timeout=10)
        term.child.send("y")
        term.wait_text("Results", timeout=15)
        loop.run(results(bot))
        term.child.send("\x1b")  # back to the standing: one race scored
        term.wait(lambda: re.search(r"you: #\d . \d+ points? . 1 race", term.text) is not None, timeout=15)
        assert "ann" in term.text
        loop.run(bot_in_arena_again(bot, arena))
        # ...and the next pairing takes both into a new race
        term.wait(lambda: "Waiting for the next pairing" not in term.text and "ann" in term.text,
                  timeout=15)
        loop.run(resign_when_paired(bot))
        loop.run(bot.send({"t": "arena_leave"}))  # so this race's end pairs nobody again
        term.child.send("X")
        term.wait_text("y to confirm", timeout=10)
        term.child.send("y")
        term.wait_text("Results", timeout=15)
        loop.run(results(bot))
        term.child.send("\x1b")
        term.wait(lambda: re.search(r"you: #\d . \d+ points? . 2 races", term.text) is not None, timeout=15)
        term.child.send("l")  # leave the arena: the lobby again
        term.wait_text("a  Arenas")
        term.child.send("q")
        assert term.finish() == 0
    finally:
        term.child.close(force=True)
        if bot is not None:
            loop.run(bot.close())
