"""The prompt_toolkit app, headless: keys through a pipe, a fake server behind it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from client.app import RaceApp, main, parse_args
from client.config import KeyStore, TokenStore
from client.connection import ClientSession
from client.text import text_lines
from tests.support.fakeserver import FakeServer


@pytest.fixture
async def fake() -> AsyncIterator[FakeServer]:
    server = await FakeServer(countdown_ms=100).start()
    try:
        yield server
    finally:
        await server.stop()


async def until(check: Callable[[], bool], timeout: float = 5.0) -> None:  # noqa: ASYNC109 (a wait with a default deadline of its own)
    async with asyncio.timeout(timeout):
        # the app's screen state changes with no event to wait on: polled
        while not check():  # noqa: ASYNC110
            await asyncio.sleep(0.01)


async def test_a_race_through_the_app(fake: FakeServer, tmp_path: Path) -> None:
    session = ClientSession(fake.url, "ann", tokens=TokenStore(tmp_path))
    await session.connect()
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        app = RaceApp(session, input=pipe, output=DummyOutput())
        running = asyncio.get_running_loop().create_task(app.run())

        def screen() -> str:
            return "\n".join(text_lines(app.model))

        try:
            await until(lambda: "Quick race" in screen())
            # nothing changes in the lobby: ticks must not draw frames
            frames = app.frames
            await asyncio.sleep(0.35)
            assert app.frames == frames
            assert not app.refresh()

            pipe.send_text("1")
            await until(lambda: "Quick race: pick a variant" in screen())
            pipe.send_text("\r")
            await fake.wait_received("quick")
            assert fake.received[-1] == {"t": "quick", "variant": "four-seasons"}
            await until(lambda: "Share this code:  ABC123" in screen())
            pipe.send_text("r")
            await until(lambda: "[f1]" in screen())
            assert "J\u2666" in screen() and "rival" in screen()
            pipe.send_text("3")
            await until(lambda: "t3 selected" in screen())
            pipe.send_text("f")
            move = await fake.wait_received("move")
            assert move["move"] == "t3-f1" and move["v"] == 0
            pipe.send_text("w3")
            await until(lambda: "the waste is empty" in screen())
            pipe.send_text("qy")
            assert await asyncio.wait_for(running, 5) == 0
        finally:
            if not running.done():
                app.app.exit(result=1)
                await running
            await session.close()


def test_arguments() -> None:
    args = parse_args(["--server", "ws://h:1", "--name", "ann", "--ascii"])
    assert (args.server, args.name, args.ascii) == ("ws://h:1", "ann", True)
    assert parse_args([]).name
    assert parse_args(["--server", "example.org:8765"]).server == "ws://example.org:8765"
    with pytest.raises(SystemExit):
        parse_args(["--name", "x" * 25])
    with pytest.raises(SystemExit):
        parse_args(["--key-file", "/nonexistent/key"])


def test_main_prints_one_sentence_when_the_server_is_away(capsys: pytest.CaptureFixture[str],
                                                        tmp_path: Path) -> None:
    assert main(["--server", "ws://127.0.0.1:1", "--config-dir", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("patience: Cannot reach the Patience Race server at ws://127.0.0.1:1")
    assert err.count("\n") == 1 and "Traceback" not in err


async def test_boards_and_names_through_the_app(fake: FakeServer, tmp_path: Path) -> None:
    session = ClientSession(fake.url, "ann", tokens=TokenStore(tmp_path), keys=KeyStore(tmp_path))
    await session.connect()
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        app = RaceApp(session, input=pipe, output=DummyOutput())
        running = asyncio.get_running_loop().create_task(app.run())

        def screen() -> str:
            return "\n".join(text_lines(app.model))

        def asked() -> int:
            return sum(1 for m in fake.received if m["t"] == "board")

        try:
            await until(lambda: "as ann (guest)" in screen())
            pipe.send_text("7\r")  # claim the name as it is
            await until(lambda: "as ann (claimed)" in screen())
            assert KeyStore(tmp_path).load(fake.url, "ann") == fake.claimed["ann"]

            pipe.send_text("621\r")  # boards, ratings, the first variant (Enter: 1 could begin 1x)
            await until(lambda: "1-15 of 40" in screen())
            assert fake.received[-1]["variant"] == "four-seasons"
            assert session.watching is not None
            pipe.send_text("n")
            await until(lambda: "16-30 of 40" in screen())
            await fake.push({"t": "board_changed", "board": "rating:czarina"})  # another board
            await fake.push({"t": "board_changed", "board": "rating:four-seasons"})
            await until(lambda: asked() == 3)
            assert fake.received[-1]["offset"] == 15
            pipe.send_text("\x1b")  # Esc: the board leaves the screen
            await until(lambda: "2  Ratings" in screen())
            assert session.watching is None
            await fake.push({"t": "board_changed", "board": "rating:four-seasons"})
            await session.ping()
            await session.wait_message("pong")
            assert asked() == 3

            app.share("Patience Race daily #334 \u00b7 Czarina \u00b7 won\x1b[2J")
            assert app.printouts == ["Patience Race daily #334 \u00b7 Czarina \u00b7 won"]
            pipe.send_text("\x1b")
            await until(lambda: "1  Quick race" in screen())
            pipe.send_text("q")
            assert await asyncio.wait_for(running, 5) == 0
        finally:
            if not running.done():
                app.app.exit(result=1)
                await running
            await session.close()


def test_a_piles_top_card_has_a_style_of_its_own() -> None:
    from client.app import STYLE

    assert "underline" in STYLE["top"]
