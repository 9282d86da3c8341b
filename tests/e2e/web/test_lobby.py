"""The lobby's other screens in the page: claiming a name (its key kept in the
browser, sent again on the next visit), the boards, today's challenge, a ghost
race of a finished race, and the friends screen (a follow, a challenge accepted)."""

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


def test_the_page_shows_the_codes_once_links_a_new_browser_and_revokes_a_device(page: Page) -> None:
    page.open("/")
    name = "d" + uuid.uuid4().hex[:8]
    page.button("Change name")
    page.js("document.getElementById('field-name').value = arguments[0]", name)
    page.click("form.line button[type=submit]")
    wait(page.browser, lambda: page.status() == f"online as {name}", 10, "the new name")
    page.js("document.activeElement.blur()")
    page.key("7")
    page.click("form.line button[type=submit]")
    page.wait_text("shown this once")  # the claim opens the devices screen on its codes
    codes = page.js("return [...document.querySelectorAll('ol.codes code')].map(e => e.textContent)")
    assert len(codes) == 8 and all(len(c) == 19 for c in codes)
    page.button("I have written them down")
    page.wait_text(f"Devices of {name}")
    assert "shown this once" not in page.text()
    page.button("Make a link code")
    wait(page.browser, lambda: page.js("return document.querySelector('[data-link-code]') !== null"), 10,
         "the link code")
    code = page.js("return document.querySelector('[data-link-code]').textContent")
    first_key = page.js("return localStorage.getItem(arguments[0])", f"patience.key.{name}")
    # a new device: nothing kept, a guest
    page.js("localStorage.clear()")
    page.browser.refresh()
    page.online()
    page.js("document.activeElement.blur()")
    page.key("d")
    page.wait_text("this browser plays no claimed name")
    page.js("document.getElementById('field-link-name').value = arguments[0];"
            "document.getElementById('field-link-code').value = arguments[1]", name, code.lower())
    page.click("form[data-form=link] button[type=submit]")
    page.wait_text(f"plays as {name} now")
    second_key = page.js("return localStorage.getItem(arguments[0])", f"patience.key.{name}")
    assert second_key and second_key != first_key
    wait(page.browser, lambda: page.js("return document.querySelectorAll('[data-revoke]').length") == 1, 10,
         "the other device's revoke button")
    page.click("[data-revoke]")
    wait(page.browser, lambda: page.js("return document.querySelectorAll('[data-device]').length") == 1, 10,
         "one device left")
    assert "this device" in page.text()


def test_the_friends_screen_follows_a_name_and_accepts_its_challenge(page: Page) -> None:
    from websockets.sync.client import connect

    from server.wire.protocol import PROTOCOL_VERSION, encode
    from tests.e2e.web.test_screens import audit
    from tests.support.bot import decode

    page.open("/")
    name, other = "f" + uuid.uuid4().hex[:8], "o" + uuid.uuid4().hex[:8]
    page.button("Change name")
    page.js("document.getElementById('field-name').value = arguments[0]", name)
    page.click("form.line button[type=submit]")
    wait(page.browser, lambda: page.status() == f"online as {name}", 10, "the new name")
    page.js("document.activeElement.blur()")
    page.key("7")
    page.click("form.line button[type=submit]")
    page.button("I have written them down")
    with connect(f"ws://127.0.0.1:{page.server.port}/") as ws:  # another claimed name, online

        def expect(kind: str) -> dict[str, object]:
            while True:
                msg = decode(ws.recv(timeout=10))
                if msg.get("t") == kind:
                    return msg

        ws.send(encode({"t": "hello", "proto": PROTOCOL_VERSION, "name": other}))
        ws.send(encode({"t": "claim", "name": other}))
        expect("claimed")
        page.js("document.activeElement.blur()")
        page.key("\ue00c", "f")  # Esc: from the devices screen back to the menu, then Friends
        page.wait_text("You follow nobody yet")
        page.js("document.getElementById('field-friend').value = arguments[0]", other)
        page.click("form[data-form=friend] button[type=submit]")
        page.wait_text(f"{other} · online, in the lobby")
        ws.send(encode({"t": "challenge", "name": name, "variant": "four-seasons"}))
        expect("challenge_sent")
        page.wait_text("Challenges waiting")
        audit(page, "friends, a challenge waiting")  # the form's fields, the buttons: labelled
        page.click(f'[data-accept="{other}"]')
        code = page.in_room()
        assert expect("joined")["code"] == code  # the challenger is moved into the room too
