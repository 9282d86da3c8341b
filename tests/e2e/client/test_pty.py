"""The real ``patience`` program in a pseudo-terminal (pexpect), its screen read by pyte."""

from __future__ import annotations

import os
import socket
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pexpect
import pyte
import pytest

from tests.support.fakeserver import threaded_fake_server

PATIENCE = Path(sys.executable).parent / "patience"
ROWS, COLS = 30, 90

pytestmark = pytest.mark.skipif(not PATIENCE.exists(), reason="the patience console script is not installed")


class Terminal:
    """A child process in a pty and a pyte screen that follows its output."""

    def __init__(self, args: list[str], config: Path, size: tuple[int, int] = (ROWS, COLS)) -> None:
        rows, cols = size
        env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "PATIENCE_SERVER")}
        env.update({"TERM": "xterm-256color", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
                    "XDG_CONFIG_HOME": str(config), "COLUMNS": str(cols), "LINES": str(rows)})
        self.screen = pyte.Screen(cols, rows)
        self.stream = pyte.Stream(self.screen)
        self.started = time.monotonic()
        self.child = pexpect.spawn(str(PATIENCE), args, dimensions=(rows, cols), env=env,
                                   encoding="utf-8", codec_errors="replace", timeout=5)
        self.raw = ""
        # answer the terminal's reports (cursor position requests) like a real terminal would
        self.screen.write_process_input = lambda data: self.child.send(data)  # type: ignore[method-assign]

    @property
    def lines(self) -> list[str]:
        return list(self.screen.display)

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    def pump(self, timeout: float = 0.05) -> bool:
        """Read what the child wrote; False at end of file."""
        try:
            data = self.child.read_nonblocking(65536, timeout=timeout)
        except pexpect.TIMEOUT:
            return True
        except pexpect.EOF:
            return False
        self.raw += data
        self.stream.feed(data)
        return True

    def wait(self, check: Callable[[], bool], timeout: float = 8.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if check():
                return
            if not self.pump():
                break
        assert check(), "the screen never showed what was expected:\n" + self.text

    def wait_text(self, needle: str, timeout: float = 8.0) -> None:
        self.wait(lambda: needle in self.text, timeout)

    def line_with(self, *needles: str) -> int:
        for i, line in enumerate(self.lines):
            if all(n in line for n in needles):
                return i
        raise AssertionError(f"no line has {needles}:\n{self.text}")

    def finish(self, timeout: float = 5.0) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and self.pump(0.1):
            pass
        self.child.close(force=True)
        status = self.child.exitstatus
        return -1 if status is None else status


@pytest.fixture
def config(tmp_path: Path) -> Iterator[Path]:
    yield tmp_path


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


def test_an_unreachable_server_gives_one_sentence(config: Path) -> None:
    url = f"ws://127.0.0.1:{closed_port()}"
    term = Terminal(["--server", url, "--name", "ann"], config)
    status = term.finish()
    out = term.raw.strip()
    assert status == 1
    assert out == (f"patience: Cannot reach the Patience Race server at {url}: the connection was refused "
                   "(is the server running?).")
    assert "Traceback" not in term.raw


def test_lobby_then_a_board_in_a_real_terminal(config: Path) -> None:
    with threaded_fake_server(countdown_ms=200) as fake:
        term = Terminal(["--server", fake.url, "--name", "ann"], config)
        try:
            term.wait_text("Quick race")
            startup = time.monotonic() - term.started
            lines = term.lines
            assert lines[0].startswith(" Patience Race")
            assert f"connected to {fake.url} as ann" in term.text
            menu = [term.line_with(item) for item in
                    ("1  Quick race", "2  Create a private room", "3  Join by code", "4  Variants and rules",
                     "q  Quit")]
            assert menu == sorted(menu)
            assert startup < 3.0, f"start-up took {startup:.2f} s"

            term.child.send("1")
            term.wait_text("Quick race: pick a variant")
            # the frame may arrive in more than one read: wait for all of it
            term.wait(lambda: "9  Betsy Ross" in term.text and "base rank" in term.text)  # Four Seasons' text
            term.child.send("\r")
            term.wait_text("Share this code")
            term.child.send("r")
            term.wait_text("[f1]")
            term.wait_text("rival")
            # the board may arrive in more than one read: wait for its bottom row too
            term.wait(lambda: any("[f3]" in line and "[f4]" in line for line in term.lines))
            top, mid, bottom = term.line_with("[f1]", "[f2]"), term.line_with("[2]", "[3]", "[4]"), \
                term.line_with("[f3]", "[f4]")
            assert top < mid < bottom
            row = term.lines[bottom]
            assert row.index("[f3]") < row.index("[5]") < row.index("7\u2665") < row.index("[f4]") \
                < row.index("J\u2666")
            assert "2\u2666" in term.lines[top] and "stock 46" in term.text
            # red and black cards are drawn in different colours
            heart = row.index("7\u2665")
            club = term.lines[mid].index("J\u2663")
            assert term.screen.buffer[bottom][heart].fg != term.screen.buffer[mid][club].fg

            term.child.send("3")
            term.wait_text("t3 selected")
            term.child.send("q")
            term.wait_text("y to quit")
            term.child.send("y")
            assert term.finish() == 0
        finally:
            term.child.close(force=True)


def test_ascii_mode_in_a_real_terminal(config: Path) -> None:
    with threaded_fake_server(countdown_ms=50) as fake:
        term = Terminal(["--server", fake.url, "--name", "bob", "--ascii"], config)
        try:
            term.wait_text("Quick race")
            term.child.send("1\r")
            term.wait_text("Share this code")
            term.child.send("r")
            term.wait_text("[f4]")
            text = term.text
            assert " JD" in text and " 2D" in text
            assert not any(glyph in text for glyph in "\u2663\u2660\u2665\u2666\u00b7\u2500")
            term.child.sendcontrol("c")
            assert term.finish() == 0
        finally:
            term.child.close(force=True)


def test_a_name_claimed_on_one_address_is_yours_on_another_in_a_real_terminal(config: Path) -> None:
    with threaded_fake_server(countdown_ms=50, server_id="0123456789abcdef01234567") as fake:
        term = Terminal(["--server", fake.url, "--name", "ann"], config)
        try:
            term.wait_text("Quick race")
            term.child.send("\x1b")  # Esc in the lobby asks first
            term.wait_text("quit? y to quit")
            term.child.send("n")
            term.wait(lambda: "quit?" not in term.text)
            term.child.send("7")
            term.wait_text("name to claim")
            term.child.send("\r")
            term.wait_text("(claimed)")
            term.child.send("q")
            assert term.finish() == 0
        finally:
            term.child.close(force=True)
        other = fake.url.replace("127.0.0.1", "localhost")
        term = Terminal(["--server", other, "--name", "ann"], config)
        try:
            term.wait_text("as ann (claimed)")
            assert fake.hellos[-1].get("key") == fake.claimed["ann"]
            term.child.send("q")
            assert term.finish() == 0
        finally:
            term.child.close(force=True)


def test_ascii_mode_prints_nothing_but_ascii(config: Path) -> None:
    with threaded_fake_server(countdown_ms=50) as fake:
        term = Terminal(["--server", fake.url, "--name", "bob", "--ascii"], config)
        try:
            term.wait_text("Quick race")
            assert all(ord(ch) < 128 for ch in term.text), term.text
            term.child.send("1\r")
            term.wait_text("Share this code")
            term.child.send("r")
            term.wait_text("[f4]")
            term.wait_text("rival")
            assert all(ord(ch) < 128 for ch in term.text), term.text
            term.child.sendcontrol("c")
            assert term.finish() == 0
        finally:
            term.child.close(force=True)
