"""The page served by the race server, in a real Chromium: the HTTP side (the
CSP, types, caching), the lobby drawn from the server's variant list, a quick
race against the bot played by clicking pile after pile, and a private room
joined through its link."""

from __future__ import annotations

import asyncio
import gzip
import threading
import urllib.request
from typing import Any

from tests.support.browser import Page, WebServer, new_browser, wait


def fetch(server: WebServer, path: str, **headers: str) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(server.base + path, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=5) as answer:
            return answer.status, dict(answer.headers), answer.read()
    except urllib.error.HTTPError as refused:
        return refused.code, dict(refused.headers), refused.read()


def test_the_server_serves_the_page_with_a_self_only_csp(server: WebServer) -> None:
    status, headers, body = fetch(server, "/")
    assert status == 200 and body.startswith(b"<!doctype html>")
    csp = headers["Content-Security-Policy"]
    assert "default-src 'none'" in csp and "script-src 'self'" in csp and "connect-src 'self'" in csp
    assert "http" not in csp and "unsafe" not in csp
    status, headers, body = fetch(server, "/assets/app.js", **{"Accept-Encoding": "gzip"})
    assert status == 200 and headers["Content-Type"].startswith("text/javascript")
    assert headers["Content-Encoding"] == "gzip" and gzip.decompress(body)
    status, _, _ = fetch(server, "/assets/app.js", **{"If-None-Match": headers["ETag"]})
    assert status == 304
    assert fetch(server, "/r/ABC123")[0] == 200
    assert fetch(server, "/assets/missing.js")[0] == 404
    assert fetch(server, "/healthz")[2] == b"ok\n"  # the other plain answers are unchanged


def test_the_lobby_lists_the_servers_variants_with_no_csp_violation(page: Page) -> None:
    page.open("/")
    assert "Quick race" in page.text() and "Play alone" in page.text()
    page.key("1")
    page.wait_text("Quick race: pick a variant")
    names = page.js("return [...document.querySelectorAll('[data-variant]')].map(b => b.dataset.variant)")
    assert "four-seasons" in names and "corner-stones" in names and len(names) >= 10
    # nothing the page did was refused by its CSP or failed in its script
    assert page.console_errors() == []
    # everything the page loaded came from its own origin
    origins = page.js("return performance.getEntriesByType('resource').map(e => new URL(e.name).origin)")
    assert set(origins) <= {page.server.base}


def click_move(page: Page) -> str:
    """Play one legal pile-to-pile move by clicking its two piles (drawing from the
    stock by a click until there is one); returns it."""
    for _ in range(60):
        moves = [m for m in page.legal() if "-" in m and not m.startswith("s-")]
        v = page.v()
        if moves:
            break
        assert "draw" in page.legal() or "deal" in page.legal(), page.legal()
        page.click('button.pile[data-pile="s"]')
        drawn = v + 1
        wait(page.browser, lambda: page.v() == drawn, 5, "the stock's card drawn")  # noqa: B023 (waited for at once)
    move = next((m for m in moves if "-f" in m), moves[0])
    src, dst = move.split(":")[0].split("-")
    page.click(f'button.pile[data-pile="{src}"]')
    wait(page.browser, lambda: page.js(
        "return document.querySelector(`[data-pile='${arguments[0]}']`).classList.contains('target')", dst),
        5, "the target lit")
    page.click(f'button.pile[data-pile="{dst}"]')
    wait(page.browser, lambda: page.v() == v + 1, 5, f"the move {move} accepted")
    return move


def test_a_quick_race_against_the_bot_played_by_clicks(page: Page) -> None:
    page.open("/")
    page.key("1")
    page.click('[data-variant="four-seasons"]')
    page.in_room()  # after the queue's wait: the room the server made for the player and a bot
    assert any(m["t"] == "queued" for m in page.frames.collect())
    page.button("Ready")
    page.in_race(20)  # the countdown runs
    assert page.js("return document.querySelectorAll('.bar[role=progressbar]').length") == 2
    played = [click_move(page) for _ in range(2)]
    assert len(played) == 2
    # an illegal move is explained in the server's words
    page.js("document.getElementById('move-text').value = 't1-t1'")
    page.click("form.line button[type=submit]")
    wait(page.browser, lambda: page.js("return document.querySelector('.notice.error')?.textContent"),
         5, "the refusal")
    # the clock runs in the header
    assert "left" in page.js("return document.getElementById('clock').textContent")


def test_a_private_room_joined_through_its_link(page: Page, server: WebServer) -> None:
    page.open("/")
    page.key("2")
    page.click('[data-variant="simplicity"]')
    link = wait(page.browser, lambda: page.js("return document.getElementById('join-link')?.textContent"),
                10, "the join link")
    code = link.rsplit("/", 1)[1]
    assert len(code) == 6 and link == f"{server.base}/r/{code}"
    other: Any = new_browser()
    try:
        friend = Page(other, server).open(f"/r/{code}")
        assert friend.in_room() == code
        wait(page.browser, lambda: page.js("return document.querySelectorAll('.seats li').length") == 2,
             10, "two seats")
        page.button("Ready")
        friend.button("Ready")
        page.in_race()
        friend.in_race()
        assert friend.js("return location.pathname") == f"/r/{code}"
        # the two browsers race each other to the end: a move each, then both give up
        click_move(page)
        click_move(friend)
        rival = "return document.querySelector('[data-player=\"1\"] .nums').innerText"
        wait(other, lambda: not friend.js(rival).endswith("\u00b7 0"), 10, "the rival's moves counted")
        for racer in (page, friend):
            racer.js("document.activeElement.blur()")
            racer.key("X", "y")
        for racer in (page, friend):
            racer.wait_text("Results", 10)
            assert racer.js("return document.querySelectorAll('.results tbody tr').length") == 2
        # the replay jumps to where the two players' paths part
        page.key("v")
        page.button("Where the paths part")
        records = {m["player"]: m["record"]["moves"] for m in page.frames.collect() if m["t"] == "record"}
        mine, theirs = records[1], records[2]
        part = next((i for i, (a, b) in enumerate(zip(mine, theirs, strict=False)) if a != b),
                    min(len(mine), len(theirs)))
        heading = "return document.querySelector('.replay h2').textContent"
        wait(page.browser, lambda: f"move {part} of {len(mine)}" in page.js(heading), 10,
             "the replay at the parting")
    finally:
        other.quit()


def test_a_browser_races_the_terminal_client(page: Page, server: WebServer) -> None:
    from client.connection import ClientSession

    page.open("/")
    page.key("2")
    page.click('[data-variant="four-seasons"]')
    code = page.in_room()
    outcome: dict[str, Any] = {}

    async def terminal() -> None:
        session = ClientSession(server.ws, "term")
        await session.connect()
        try:
            await session.join(code)
            await session.ready()
            await session.wait_for(lambda st: st.view is not None, 20)
            await session.move("draw")
            await session.wait_for(lambda st: st.v == 1)
            await session.resign()
            done = await session.wait_for(lambda st: st.results is not None, 20)
            outcome["results"] = done.results
        finally:
            await session.close()

    racer = threading.Thread(target=lambda: asyncio.run(terminal()))
    racer.start()
    try:
        wait(page.browser, lambda: page.js("return document.querySelectorAll('.seats li').length") == 2,
             10, "the terminal client seated")
        page.button("Ready")
        page.in_race(20)
        click_move(page)
        page.js("document.activeElement.blur()")
        page.key("X", "y")
        page.wait_text("Results", 15)
        assert "term" in page.text()
    finally:
        racer.join(30)
    names = [r["name"] for r in outcome["results"]["ranking"]]
    assert sorted(names) == ["player", "term"]
