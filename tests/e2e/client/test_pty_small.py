"""The smaller things a new player met at 80x24, in a real terminal against a
real server: the rules card drawn as text, the results' columns explained,
the lobby's words while reconnecting, and a ghost race when nobody won."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.client.test_pty import PATIENCE, Terminal
from tests.e2e.client.test_pty_player import player, solo_game
from tests.support.served import SERVER, Served, served

pytestmark = pytest.mark.skipif(not (PATIENCE.exists() and SERVER.exists()),
                                reason="the console scripts are not installed")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Served]:
    with served(tmp_path) as running:
        yield running


def resigned_solo(term: Terminal) -> None:
    solo_game(term)
    term.child.send("X")
    term.wait_text("y to confirm")
    term.child.send("y")
    term.wait_text("Results", timeout=15)


def test_the_rules_card_is_text_not_markdown(server: Served, tmp_path: Path) -> None:
    term = player(server, tmp_path)
    try:
        solo_game(term)
        term.child.send("?")
        term.wait_text("How to play")
        pages = []
        for _ in range(40):  # page through the help and the card to its end
            pages.append(term.text)
            if "What it is" in term.text and "Deal" in term.text:
                break
            term.child.send(" ")
            term.wait(lambda: term.text != pages[-1], timeout=3)
        seen = "\n".join(pages)
        assert "Four Seasons \u2014 four-seasons" in seen and "What it is" in seen
        for markup in ("**", "`", "## ", "# Four"):
            assert markup not in seen, markup
    finally:
        term.child.close(force=True)


def test_the_results_say_what_time_and_the_star_mean(server: Served, tmp_path: Path) -> None:
    term = player(server, tmp_path)
    try:
        resigned_solo(term)
        term.wait_text("time: a winner's finish, else when the last foundation card went up")
        assert "* you" in term.text
        term.child.send("q")
        assert term.finish() == 0
    finally:
        term.child.close(force=True)


def test_nobody_won_so_the_ghost_is_the_first_places_and_takes_no_seat(server: Served,
                                                                        tmp_path: Path) -> None:
    term = player(server, tmp_path)
    try:
        resigned_solo(term)
        assert "winner's ghost" not in term.text
        term.wait_text("g first place's ghost")
        term.child.send("g")
        term.wait_text("and a ghost", timeout=15)
        assert "Players (1 of 1) and a ghost" in term.text and "(2 of 1)" not in term.text
        term.child.send("q")
        assert term.finish() == 0
    finally:
        term.child.close(force=True)


def test_the_lobby_does_not_promise_a_seat_while_reconnecting(server: Served, tmp_path: Path) -> None:
    term = player(server, tmp_path)
    try:
        server.kill()
        term.wait_text("reconnecting", timeout=10)
        assert "seat" not in term.text
        server.start()
        term.wait(lambda: "reconnecting" not in term.text, timeout=30)
        term.child.send("q")
        assert term.finish() == 0
    finally:
        term.child.close(force=True)
