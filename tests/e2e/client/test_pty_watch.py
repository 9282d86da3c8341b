"""Watching, replaying and racing a ghost in a real terminal, against a real
``patience-server`` and a real Redis; the racers are protocol bots."""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest

from client.screens.replay import diverged
from tests.e2e.client.test_pty import PATIENCE, Terminal
from tests.e2e.client.test_pty_solo import SERVER, server_url  # noqa: F401 (the fixture)
from tests.support.bot import Bot

pytestmark = pytest.mark.skipif(not (PATIENCE.exists() and SERVER.exists()),
                                reason="the console scripts are not installed")

T = TypeVar("T")


class Loop:
    """An event loop in a thread: the bots keep their connections while the terminal runs."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def run(self, coro: Coroutine[Any, Any, T], timeout: float = 30) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)


@pytest.fixture
def loop() -> Iterator[Loop]:
    running = Loop()
    yield running
    running.stop()


async def seated(url: str, private: bool) -> tuple[list[Bot], str]:
    bots = [Bot(url, name, seed=7 + i) for i, name in enumerate(("ann", "bob"))]
    for bot in bots:
        await bot.connect()
    await bots[0].send({"t": "create", "variant": "four-seasons", "players": 2, "private": private})
    code: str = (await bots[0].expect("joined"))["code"]
    await bots[1].send({"t": "join", "code": code})
    await bots[1].expect("joined")
    return bots, code


async def race_out(bots: list[Bot], moves: int, gap: float = 0.0,
                   differ: bool = False) -> list[list[str]]:
    """Start, play ``moves`` each (``gap`` s apart), resign; the records' moves.
    With ``differ`` the second bot plays another move than the first's at the
    first turn it has one (the deal is random: both may otherwise pick alike)."""
    for bot in bots:
        await bot.send({"t": "ready"})
    await asyncio.gather(*(bot.expect("view") for bot in bots))
    apart = not differ
    turns = 0
    # past ``moves`` while the two paths are still one (turns with a single legal move)
    while turns < moves or (not apart and turns < 8 * moves):
        turns += 1
        played = None
        for i, bot in enumerate(bots):
            if gap:
                await asyncio.sleep(gap)
            if bot.view and bot.view["status"] == "in_progress":
                move = bot.choose() or "draw"
                if i == 1 and not apart and move == played:
                    others = [m for m in bot.view["legal_moves"] if m != move]
                    move = others[0] if others else move
                apart = apart or (i == 1 and move != played)
                played = move if i == 0 else played
                await bot.move(move)
    for bot in bots:
        if bot.view and bot.view["status"] == "in_progress":
            bot.seq += 1
            await bot.send({"t": "resign", "seq": bot.seq})
    await asyncio.gather(*(bot.expect("results") for bot in bots if bot.results is None))
    out = []
    for n in (1, 2):
        await bots[0].send({"t": "record", "player": n})
        out.append((await bots[0].expect("record", player=n))["record"]["moves"])
    return out


async def close(bots: list[Bot]) -> None:
    for bot in bots:
        await bot.close()


def test_watch_a_race_then_replay_it_and_jump_to_where_the_paths_diverge(
        server_url: str, tmp_path: Path, loop: Loop) -> None:  # noqa: F811
    bots, code = loop.run(seated(server_url, private=True))
    term = Terminal(["--server", server_url, "--name", "cyd"], tmp_path / "cfg")
    try:
        term.wait_text("w  Watch a race")
        term.child.send("w")
        term.wait_text("room code to watch")
        term.child.send(code.lower() + "\r")
        term.wait(lambda: "watching" in term.lines[0] and f"room {code}" in term.lines[0])
        term.wait(lambda: "ann" in term.text and "bob" in term.text and "l stop watching" in term.text)
        records = loop.run(race_out(bots, 6, differ=True))
        term.wait_text("Results", timeout=15)
        term.child.send("v")
        term.wait(lambda: "Replay" in term.lines[0] and "the deal of" in term.text, timeout=10)
        term.child.send("\x1b[C")  # right: the first move
        term.wait_text(f"after move 1 of {len(records[0])}")
        assert records[0][0] in term.text
        at = diverged(records[0], records[1])
        assert at is not None
        term.wait_text(f"paths diverge after {at} common moves")
        term.child.send("d")
        term.wait_text("the deal of" if at == 0 else f"after move {at} of")
        term.child.send("2")  # bob's game at the same move
        term.wait(lambda: re.search(r"bob . (the deal|after move)", term.text) is not None)
        term.child.send("\x1b")
        term.wait_text("v replay")
        term.child.send("q")
        assert term.finish() == 0
    finally:
        term.child.close(force=True)
        loop.run(close(bots))


def test_race_a_ghost_from_the_lobby(server_url: str, tmp_path: Path, loop: Loop) -> None:  # noqa: F811
    bots, code = loop.run(seated(server_url, private=False))
    records = loop.run(race_out(bots, 4, gap=0.3))
    term = Terminal(["--server", server_url, "--name", "cyd"], tmp_path / "cfg")
    try:
        term.wait_text("g  Race a ghost")
        term.child.send("g")
        term.wait_text("room code of a finished race")
        term.child.send(f"{code} 1\r")
        term.wait_text("ghost: ann", timeout=10)
        ann = len(records[0])
        # the ghost's moves come at their recorded times, like an opponent's
        term.wait(lambda: f"{ann} moves" in term.lines[term.line_with("ghost: ann")], timeout=15)
        term.child.send("X")
        term.wait_text("y to confirm")
        term.child.send("y")
        term.wait_text("Results", timeout=10)
        term.child.send("q")
        assert term.finish() == 0
    finally:
        term.child.close(force=True)
        loop.run(close(bots))
