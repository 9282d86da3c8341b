"""The lobby's other screens in the page: claiming a name (its key kept in the
browser, sent again on the next visit), the boards, today's challenge, and a
ghost race of a finished race."""

from __future__ import annotations

import uuid

from tests.e2e.web.test_page import click_move
from tests.support.browser import Page, wait


def test_a_claimed_name_is_kept_and_proved_on_the_next_visit(page: Page) -> None:
    page.open("/")
    name = "w" + uuid.uuid4().hex[:8]
    page.button("Change name")
    page.js("document.getElementById('field-name').value = arguments[0]", name)
    page.click("form.line button[type=submit]")
    wait(page.browser, lambda: page.status() == f"online as {name}", 10, "the new name")
    page.js("document.activeElement.blur()")
    page.key("7")
    page.click("form.line button[type=submit]")
    page.wait_text("is yours on this server")
    assert page.js("return localStorage.getItem(arguments[0])", f"patience.key.{name}")
    page.browser.refresh()  # a new connection: its hello carries the kept key
    page.online()
    page.wait_text("(your claimed name)")
    page.js("document.activeElement.blur()")
    page.key("6")
    page.button("2 Ratings")
    page.click('[data-variant="four-seasons"]')  # ratings are a variant's
    page.wait_text("Ratings · Four Seasons · all time")
    wait(page.browser, lambda: "asking" not in page.text(), 10, "the ratings board")
    assert not page.js("return document.querySelector('.notice.error')?.textContent")


def test_todays_challenge_is_played_from_the_page(page: Page) -> None:
    page.open("/")
    page.key("5")
    page.click('[data-variant="czarina"]')
    page.in_room(20)
    page.wait_text("Today's challenge")
    page.button("Ready")
    page.in_race(20)
    click_move(page)


def test_a_ghost_race_of_a_finished_race(page: Page) -> None:
    page.open("/")
    page.key("1")
    page.click('[data-variant="four-seasons"]')
    page.in_room()
    page.button("Ready")
    page.in_race(20)
    click_move(page)
    page.js("document.activeElement.blur()")
    page.key("X", "y")
    page.wait_text("Results", 15)
    page.key("g")  # race the winner's recorded run
    page.in_race(20)
    wait(page.browser, lambda: "ghost:" in page.text(), 10, "the ghost's bar")
