"""The page reconnects by itself and resumes with the token it keeps in the tab:
the server is killed in the middle of a game and started again on its port."""

from __future__ import annotations

from tests.e2e.web.test_page import click_move
from tests.support.browser import Page, WebServer, wait


def start_solo(page: Page, variant: str = "four-seasons", deal: str = "24") -> None:
    page.key("8")
    page.click(f'[data-variant="{variant}"]')
    page.js("document.getElementById('field-deal').value = arguments[0]", deal)
    page.click("form.line button[type=submit]")
    page.in_race()


def test_a_game_resumes_after_the_server_is_killed_and_restarted(page: Page, server: WebServer) -> None:
    page.open("/")
    start_solo(page)
    for _ in range(3):
        click_move(page)
    acknowledged = page.v()
    assert acknowledged >= 3
    token = page.js("return sessionStorage.getItem('patience.token')")
    assert token
    server.kill()
    wait(page.browser, lambda: page.status().startswith("offline"), 10, "the page offline")
    assert page.js("return document.body.classList.contains('offline')")
    server.start()  # the same port: the page's address
    page.online(20)
    wait(page.browser, lambda: page.v() == acknowledged, 10, "the resumed view")
    assert page.js("return sessionStorage.getItem('patience.token')") == token
    click_move(page)  # the game goes on from where it was
    assert page.v() == acknowledged + 1


def test_a_reload_of_the_tab_resumes_the_same_seat(page: Page) -> None:
    page.open("/")
    start_solo(page, "simplicity", "7")
    click_move(page)
    v = page.v()
    code = page.js("return location.pathname")
    page.browser.refresh()
    page.online()
    wait(page.browser, lambda: page.v() == v, 10, "the same position after a reload")
    assert page.js("return location.pathname") == code
    click_move(page)  # its move numbers follow the race clock: not refused as stale
    assert page.v() == v + 1
