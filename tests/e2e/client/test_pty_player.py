"""What a new player does at 80x24, in a real terminal against a real
``patience-server`` and a real Redis: leaving a room, leaving a race one is
done with, the keys that are not keys, the variant picker's numbers, and the
notices that an answer replaces."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.client.test_pty import PATIENCE, Terminal
from tests.support.served import SERVER, Served, served

pytestmark = pytest.mark.skipif(not (PATIENCE.exists() and SERVER.exists()),
                                reason="the console scripts are not installed")

SMALL = (24, 80)  # the smallest terminal the client is made for


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Served]:
    with served(tmp_path) as running:
        yield running


def player(server: Served, tmp_path: Path, name: str = "ann") -> Terminal:
    term = Terminal(["--server", server.url, "--name", name, "--records", str(tmp_path / "records")],
                    tmp_path / f"cfg-{name}", SMALL)
    term.wait_text("1  Quick race")
    return term


def hold(term: Terminal, seconds: float) -> None:
    """Read the terminal for a while: whatever comes late is on screen after it."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and term.pump(0.1):
        pass


def test_l_in_a_rooms_lobby_leaves_at_once(server: Served, tmp_path: Path) -> None:
    term = player(server, tmp_path)
    try:
        term.child.send("2")
        term.wait_text("Private room: pick a variant")
        term.child.send("\r")  # the first variant
        term.wait_text("players (2-8")
        term.child.send("\r")
        term.wait_text("Share this code")
        term.wait_text("(you)")
        term.child.send("l")
        term.wait(lambda: "1  Quick race" in term.text and "Share this code" not in term.text)
        hold(term, 1.5)  # the room's last update, if it came, would have taken the screen back
        assert "1  Quick race" in term.text and "Share this code" not in term.text, term.text
        assert "left" not in term.text
        term.child.send("q")
        assert term.finish() == 0
    finally:
        term.child.close(force=True)


@pytest.fixture
def quick_server(tmp_path: Path) -> Iterator[Served]:
    """Quick races that a bot fills after a second, and races of 12 s."""
    with served(tmp_path, PATIENCE_QUICK_BOT_S="1", PATIENCE_RACE_SECONDS="12") as running:
        yield running


def race_a_bot(term: Terminal) -> None:
    """From the lobby: a quick race of the first variant, filled by a bot, started."""
    term.child.send("1")
    term.wait_text("Quick race: pick a variant")
    term.child.send("\r")
    term.wait(lambda: "bot" in term.text and "r ready" in term.text, timeout=15)
    term.child.send("r")
    term.wait_text("[f1]", timeout=15)


def test_a_player_who_resigned_goes_back_to_the_lobby_and_the_result_comes_there(
        quick_server: Served, tmp_path: Path) -> None:
    term = player(quick_server, tmp_path)
    try:
        race_a_bot(term)
        term.child.send("X")
        term.wait_text("y to confirm")
        term.child.send("y")
        term.wait_text("You resigned.")
        # done: the screen says how to go, and the others race on meanwhile
        term.wait_text("l back to the lobby")
        assert "racing" in term.text
        term.child.send("l")
        term.wait(lambda: "1  Quick race" in term.text and "[f1]" not in term.text)
        assert "move:" not in term.text
        # the race ends on its clock; its result comes to the lobby
        term.wait(lambda: re.search(r"race \w+ is over: you placed [12] of 2", term.text) is not None,
                  timeout=25)
        term.child.send("q")
        assert term.finish() == 0
    finally:
        term.child.close(force=True)


def test_esc_also_leaves_a_race_one_is_done_with(quick_server: Served, tmp_path: Path) -> None:
    term = player(quick_server, tmp_path)
    try:
        race_a_bot(term)
        term.child.send("X")
        term.wait_text("y to confirm")
        term.child.send("y")
        term.wait_text("You resigned.")
        term.child.send("\x1b")
        term.wait(lambda: "1  Quick race" in term.text and "[f1]" not in term.text)
        term.child.send("q")
        assert term.finish() == 0
    finally:
        term.child.close(force=True)


def solo_game(term: Terminal, deal: str = "24") -> None:
    """From the lobby: a solo game of the first variant on ``deal``, started."""
    term.child.send("8")
    term.wait_text("Play alone: pick a variant")
    term.child.send("\r")
    term.wait_text("deal number")
    term.child.send(deal + "\r")
    term.wait(lambda: f"solo #{deal}" in term.text and "[f1]" in term.text, timeout=15)


def test_a_stray_letter_does_not_start_a_typed_move(server: Served, tmp_path: Path) -> None:
    term = player(server, tmp_path)
    try:
        solo_game(term)
        term.child.send("z")
        term.wait_text("z is not a key here")
        term.child.send("3")  # the digits that follow are piles, as always
        term.wait_text("t3 selected")
        assert "move:" not in term.text
        term.child.send("\x1b")
        term.wait(lambda: "t3 selected" not in term.text)
        term.child.send("t")  # a letter that starts a move still types one
        term.wait_text("move: t")
        term.child.send("\x1b")
        term.child.send("q")
        term.wait_text("y to quit")
        term.child.send("y")
        assert term.finish() == 0
    finally:
        term.child.close(force=True)


def test_the_variant_picker_takes_two_digits(server: Served, tmp_path: Path) -> None:
    term = player(server, tmp_path)
    try:
        term.child.send("2")  # a private room: made at once (a quick race waits for a pairing)
        term.wait_text("Private room: pick a variant")
        term.wait_text("12  Calculation")
        term.child.send("1")  # variant 1, or the first digit of 10..18
        term.wait_text("another digit")
        assert "Private room: pick a variant" in term.text
        term.child.send("2")
        term.wait_text("players (2-8")
        term.child.send("\r")
        term.wait(lambda: "Calculation" in term.lines[0] and "Share this code" in term.text)
        term.child.send("q")
        assert term.finish() == 0
    finally:
        term.child.close(force=True)


def test_a_bad_deal_number_is_answered_on_its_own_line_not_in_the_main_menu(
        server: Served, tmp_path: Path) -> None:
    term = player(server, tmp_path)
    try:
        term.child.send("8")
        term.wait_text("Play alone: pick a variant")
        term.child.send("\r")
        term.wait_text("deal number")
        term.child.send("12ab\r")
        term.wait(lambda: "deal" in term.text and "12ab" in term.text and "starting a solo" not in term.text
                  and any("deal" in line and "number" in line for line in term.lines
                          if "deal number (PySolFC's" not in line))
        assert "1  Quick race" not in term.text  # still where the number is typed
        assert "Play alone: pick a variant" in term.text
        for _ in "12ab":
            term.child.send("\x7f")  # the line is open: correct it
        term.child.send("24\r")
        term.wait(lambda: "solo #24" in term.text and "[f1]" in term.text, timeout=15)
        term.child.send("q")
        term.wait_text("y to quit")
        term.child.send("y")
        assert term.finish() == 0
    finally:
        term.child.close(force=True)


def test_an_answer_replaces_the_note_that_waited_for_it(server: Served, tmp_path: Path) -> None:
    term = player(server, tmp_path)
    try:
        solo_game(term)
        term.child.send("h")
        term.wait(lambda: "hint:" in term.text or "no hint" in term.text or "no line wins" in term.text,
                  timeout=15)
        hold(term, 0.3)
        assert "asking the server for a hint" not in term.text
        term.child.send("X")
        term.wait_text("y to confirm")
        term.child.send("y")
        term.wait_text("Results", timeout=10)
        term.child.send("s")
        term.wait_text("record saved to", timeout=10)
        hold(term, 0.3)
        assert "asking the server for your record" not in term.text
        term.child.send("a")  # the post-game analysis, drawn under the results
        term.wait_text("Where it was lost", timeout=30)
        hold(term, 0.3)
        assert "asking the server where the game was lost" not in term.text
        term.child.send("q")
        assert term.finish() == 0
    finally:
        term.child.close(force=True)


def test_the_daily_screen_says_practice_after_a_guest_played_and_claimed(
        server: Served, tmp_path: Path) -> None:
    term = player(server, tmp_path, "bob")
    try:
        term.child.send("5")
        term.wait_text("Today's challenge: pick a variant")
        term.child.send("\r")
        term.wait_text("Commitment", timeout=90)  # the day's deal is picked by the solver
        assert "Practice: guests are never ranked" in term.text
        term.child.send("\r")
        term.wait_text("r start", timeout=30)
        term.child.send("r")
        term.wait_text("[f1]", timeout=15)
        term.child.send("X")
        term.wait_text("y to confirm")
        term.child.send("y")
        term.wait_text("Results", timeout=15)
        term.child.send("l")
        term.wait_text("7  Claim your name")
        term.child.send("7")
        term.wait_text("name to claim")
        term.child.send("\r")
        term.wait_text("bob (claimed)")
        term.wait_text("shown this once")  # the recovery codes come up first, until Enter
        term.child.send("\r")
        term.wait_text("7  Your name")
        term.child.send("5")
        term.wait_text("Today's challenge: pick a variant")
        term.child.send("\r")
        term.wait_text("Commitment", timeout=30)
        term.wait_text("Practice: today's deal was played already")
        assert "Ranked" not in term.text
        term.child.send("\r")  # ... and so it is
        term.wait_text("daily, practice", timeout=30)
        term.child.send("q")
        assert term.finish() == 0
    finally:
        term.child.close(force=True)


def test_wss_against_a_plain_server_says_so(server: Served, tmp_path: Path) -> None:
    secure = server.url.replace("ws://", "wss://")
    term = Terminal(["--server", secure, "--name", "ann"], tmp_path / "cfg", SMALL)
    status = term.finish(15)
    out = " ".join(term.raw.split())
    assert status == 1
    assert out == (f"patience: Cannot reach the Patience Race server at {secure}: the secure (TLS) handshake "
                   f"failed; the server may not use TLS: try {server.url}"), out


def make_serve_arenas() -> str:
    """The arena schedule ``make serve`` gives the server (its Makefile default)."""
    root = Path(__file__).resolve().parents[3]
    text = (root / "Makefile").read_text(encoding="utf-8")
    found = re.search(r"^PATIENCE_ARENAS \?= (.+)$", text, re.MULTILINE)
    assert found, "the Makefile gives make serve no arena schedule"
    return found.group(1).strip()


def test_make_serve_has_an_arena_to_join(tmp_path: Path) -> None:
    schedule = make_serve_arenas()
    assert schedule.startswith("*:")  # every hour
    with served(tmp_path, PATIENCE_ARENAS=schedule) as server:
        term = player(server, tmp_path)
        try:
            term.child.send("a")
            term.wait(lambda: "Four Seasons" in term.text
                      and ("upcoming" in term.text or "running" in term.text), timeout=15)
            term.child.send("q")
            assert term.finish() == 0
        finally:
            term.child.close(force=True)


def test_a_names_profile_from_the_boards_menu(server: Served, tmp_path: Path) -> None:
    """Boards, 4, Enter: the player's own profile, as the server answers it; a guest's
    name is not claimed, and Esc goes back to the boards."""
    term = player(server, tmp_path, name="pia")
    try:
        term.child.send("6")
        term.wait_text("4  Profile")
        term.child.send("4")
        term.wait_text("whose profile")
        term.child.send("\r")
        term.wait(lambda: "Profile \u00b7 pia" in term.text and "pia is not claimed" in term.text)
        term.child.send("\x1b")
        term.wait_text("4  Profile")
        term.child.send("q")
        assert term.finish() == 0
    finally:
        term.child.close(force=True)
