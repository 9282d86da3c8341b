"""The ladder in the page: a quick race waits in the queue (shown, cancelled by a
button, honoured by the server) and pairs two browsers into one room; the boards
of a variant this season and all time, around the player's own rank; a profile.
This module's server brings no bot, so a wait lasts until the test ends it."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator

import pytest

from tests.e2e.web.conftest import SERVER_ENV
from tests.e2e.web.test_screens import audit
from tests.support.browser import (
    DESKTOP,
    PHONE,
    Page,
    WebServer,
    browser_paths,
    new_browser,
    resize,
    wait,
    web_server,
)

WAIT_TEXT = "waiting for players near your rating"


@pytest.fixture(scope="module")
def server(module_redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebServer]:
    browser_paths()
    env = {**SERVER_ENV, "PATIENCE_QUICK_BOT_S": "0"}  # never a bot: the queue holds the player
    with web_server(module_redis_url, tmp_path_factory.mktemp("web-ladder"), **env) as started:
        yield started


def quick(page: Page, variant: str) -> None:
    page.js("document.activeElement.blur()")
    page.key("1")
    page.click(f'[data-variant="{variant}"]')


def test_a_quick_race_waits_near_the_rating_can_be_cancelled_and_pairs_two_browsers(
        page: Page, server: WebServer) -> None:
    variant = "czarina"
    page.open("/")
    quick(page, variant)
    page.wait_text(WAIT_TEXT)
    assert "No bot comes" in page.text()
    header = "return document.getElementById('clock').textContent"
    wait(page.browser, lambda: page.js(header).startswith("waiting"), 5, "the wait counted in the header")
    try:
        for size in (PHONE, DESKTOP):
            resize(page.browser, size)
            audit(page, f"quick race queue at {size}")
    finally:
        resize(page.browser, DESKTOP)
    page.button("Cancel")
    page.wait_text("you left the quick-race queue")
    assert WAIT_TEXT not in page.text() and "Quick race" in page.text()  # back on the menu
    other = new_browser()
    try:
        rival = Page(other, server)
        rival.open("/")
        quick(rival, variant)
        rival.wait_text(WAIT_TEXT)
        time.sleep(1.0)  # ten pairing rounds: the cancelled player is not paired with him
        assert WAIT_TEXT in rival.text()
        quick(page, variant)
        code = page.in_room(10)
        assert rival.in_room(10) == code  # the pairing's room, the two of them in it
        assert WAIT_TEXT not in page.text()
        rival.key("\ue00c")  # leaves the room: the page's race cannot start
    finally:
        other.quit()


def test_esc_leaves_the_queue(page: Page) -> None:
    page.open("/")
    quick(page, "four-seasons")
    page.wait_text(WAIT_TEXT)
    page.key("\ue00c")  # Escape
    page.wait_text("you left the quick-race queue")
    assert any(m["t"] == "unqueued" for m in page.frames.collect())


def test_boards_of_a_variant_this_season_around_me_and_a_profile(page: Page) -> None:
    page.open("/")
    name = claim_a_name(page, "l")
    page.js("document.activeElement.blur()")
    page.key("6", "2")
    page.wait_text("Ratings: pick a variant")
    page.click('[data-variant="four-seasons"]')
    page.wait_text("Ratings · Four Seasons · all time")
    wait(page.browser, lambda: "asking" not in page.text(), 10, "the ratings board")
    audit(page, "ratings board")
    page.js("document.activeElement.blur()")
    page.key("s")
    wait(page.browser, lambda: "Four Seasons · season 20" in page.text(), 10, "this season's board")
    # a closed season (the server closed last month's at its start): picked from the list
    listed = "return document.querySelectorAll('#board-past option').length"
    wait(page.browser, lambda: page.js(listed) > 1, 10, "the closed seasons listed")
    past = page.js("return document.querySelectorAll('#board-past option')[1].value")
    page.js("const s = document.getElementById('board-past'); s.value = arguments[0];"
            "s.dispatchEvent(new Event('change'))", past)
    page.wait_text(f"Four Seasons · season {past} (closed)")
    page.frames.collect()
    asked = [m for m in page.frames.sent if m.get("t") == "board"][-1]
    assert asked == {"t": "board", "kind": "rating", "variant": "four-seasons", "limit": 15, "season": past}
    audit(page, "a closed season's board")
    page.js("document.activeElement.blur()")
    page.key("s", "s")  # all time, then the season under way again
    wait(page.browser, lambda: "(closed)" not in page.text() and "· season 20" in page.text(), 10,
         "this season's board")
    page.key("m")  # around my rank: a claimed name with no rated race is not on it
    page.wait_text("You are not on this board yet.")
    page.frames.collect()
    asked = [m for m in page.frames.sent if m.get("t") == "board"][-1]
    assert asked == {"t": "board", "kind": "rating", "variant": "four-seasons", "limit": 15,
                     "near": True, "season": "current"}
    page.key("\ue00c")  # back to the boards
    page.wait_text("A player's profile")
    page.key("4")
    page.click("form.line button[type=submit]")  # the claimed name is filled in
    page.wait_text(f"Profile · {name}")
    page.wait_text("No rated race yet")
    page.wait_text("Daily streak: 0 days")
    audit(page, "profile")


def claim_a_name(page: Page, prefix: str) -> str:
    name = prefix + uuid.uuid4().hex[:8]
    page.button("Change name")
    page.js("document.getElementById('field-name').value = arguments[0]", name)
    page.click("form.line button[type=submit]")
    wait(page.browser, lambda: page.status() == f"online as {name}", 10, "the new name")
    page.js("document.activeElement.blur()")
    page.key("7")
    page.click("form.line button[type=submit]")
    page.wait_text("is yours on this server")
    page.key("\ue00c")  # back to the menu
    page.wait_text("Quick race")
    return name


def test_a_name_on_a_board_opens_its_profile(page: Page) -> None:
    page.open("/")
    name = claim_a_name(page, "d")
    page.js("document.activeElement.blur()")
    page.key("5")  # today's challenge, given up at once: a ranked attempt on today's board
    page.click('[data-variant="czarina"]')
    page.in_room(20)
    page.button("Ready")
    page.in_race(20)
    page.js("document.activeElement.blur()")
    page.key("X", "y")
    page.wait_text("Results", 15)
    page.key("\ue00c")  # leave
    page.wait_text("Quick race")
    page.js("document.activeElement.blur()")
    page.key("6", "1")
    page.click('[data-variant="czarina"]')
    page.wait_text("Today's board · Czarina")
    page.click(f'[data-focus="name-{name}"]')
    page.wait_text(f"Profile · {name}")
    wait(page.browser, lambda: "asking" not in page.text(), 10, "the profile")
    page.js("document.activeElement.blur()")
    page.key("\ue00c")
    page.wait_text("Today's board · Czarina")  # back to the board it came from


def test_a_rated_race_shows_the_changes_then_its_board_and_a_profile(page: Page, server: WebServer) -> None:
    from tests.e2e.web.test_page import click_move

    page.open("/")
    mine = claim_a_name(page, "r")
    page.js("document.activeElement.blur()")
    page.key("2")
    page.click('[data-variant="simplicity"]')
    link = wait(page.browser, lambda: page.js("return document.getElementById('join-link')?.textContent"),
                10, "the join link")
    other = new_browser()
    try:
        friend = Page(other, server).open("/")
        theirs = claim_a_name(friend, "r")
        friend.browser.get(link)  # the same tab: its claimed name's key is in its storage
        friend.online()
        friend.in_room()
        for racer in (page, friend):
            racer.button("Ready")
        for racer in (page, friend):
            racer.in_race()
            click_move(racer)
        for racer in (page, friend):
            racer.js("document.activeElement.blur()")
            racer.key("X", "y")
        page.wait_text("Results", 15)
        page.wait_text("Ratings · Simplicity (OpenSkill ordinal; ? provisional)", 15)
        rows = page.js("return [...document.querySelectorAll('table.ratings tbody tr')]"
                       ".map(r => r.innerText)")
        cells = {r.split("\t")[0]: r.split("\t")[1:] for r in rows}
        assert set(cells) == {f"{mine} (you)", theirs}, rows
        for value, change in cells.values():  # two new ratings: each changed from a new rating's 0
            assert value.endswith(" ?") and float(change) == float(value[:-2]), rows
        audit(page, "results with rating changes")
        page.js("document.activeElement.blur()")
        page.key("b")  # the ratings of the race's variant
        page.wait_text("Ratings · Simplicity · all time")
        both = lambda: theirs in page.text() and mine in page.text()  # noqa: E731
        wait(page.browser, both, 10, "both names on the board")
        page.click(f'[data-focus="name-{theirs}"]')
        page.wait_text(f"Profile · {theirs}")
        wait(page.browser, lambda: "Simplicity" in page.text() and "asking" not in page.text(), 10,
             "the profile's rating of the variant")
        row = page.js("return document.querySelector('.lobby tbody tr').innerText")
        assert row.split("\t")[:1] == ["Simplicity"] and "?" in row and "\t1\t" in row + "\t", row
        # the rating's curve: an SVG chart named by its figures in words, shown under it too
        chart = page.js("const s = document.querySelector('svg[data-curve]');"
                        "return [s.getAttribute('role'), s.querySelector('title').textContent,"
                        " s.querySelectorAll('circle').length, s.closest('figure').innerText]")
        assert chart[0] == "img" and chart[1].startswith("Simplicity: rating ") and chart[2] == 1, chart
        assert chart[1] in chart[3]
        assert page.js("return document.querySelector('[data-figures=totals]') !== null")
        # the name's kept games (written after the results, in the background): one opens as a replay
        listed = "return document.querySelector('tr[data-game]') !== null"
        for _ in range(10):
            wait(page.browser, lambda: "asking for the games" not in page.text(), 10, "the games list")
            if page.js(listed):
                break
            page.js("document.activeElement.blur()")
            page.key("\ue00c")  # back to the board, and the profile asked again
            page.click(f'[data-focus="name-{theirs}"]')
            page.wait_text(f"Profile · {theirs}")
        code = page.js("return document.querySelector('tr[data-game]').dataset.game")
        page.click(f'[data-focus="replay-{code}"]')
        page.wait_text(f"Replay · game {code} · move 0 of ")
        assert page.js("return document.querySelector('.replay .board') !== null")
        audit(page, "profile with a rating curve, its games and a replay")
    finally:
        other.quit()
