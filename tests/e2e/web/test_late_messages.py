"""Messages that reach the page at an awkward moment, delivered there at that very
moment (tests/support/browser.py's Page.deliver) instead of waited for: a room's
update after the page left it, and an opponent's progress and game over between
the two key presses of a move. The whole keyboard race (test_play.py) once failed
on each kind of moment, depending on when the bot's messages came."""

from __future__ import annotations

from typing import Any

from tests.e2e.web.test_play import key_of, quick_race_with_the_bot
from tests.support.browser import Page, wait


def last_room(page: Page) -> dict[str, Any]:
    return [m for m in page.frames.collect() if m.get("t") == "room"][-1]


def test_a_rooms_update_after_the_leave_leaves_the_page_in_the_lobby(page: Page) -> None:
    page.keep_sockets()
    page.open("/")
    page.js("document.activeElement.blur()")
    quick_race_with_the_bot(page)
    page.key("X", "y")  # resign: the bot plays on, then the results
    page.wait_text("Results", 15)
    room = last_room(page)
    page.key("\ue00c")  # Escape: back to the lobby
    page.wait_text("Quick race")
    # the bot's seat going offline as the race ends: its room update came after the leave
    seats = [{**p, "connected": False} if p.get("bot") else p for p in room["players"]]
    page.deliver({**room, "players": seats})
    assert "Quick race" in page.text(), page.text()
    assert room["code"] not in page.text()
    assert page.js("return location.pathname") == "/"
    page.key("1")  # and the lobby's keys are the lobby's
    page.wait_text("pick a variant")


def opponents_update(page: Page, status: str, moves: int) -> dict[str, Any]:
    me = [m for m in page.frames.collect() if m.get("t") == "joined"][-1]["player"]
    return {"t": "progress", "player": 3 - me, "status": status, "foundation_cards": 13,
            "total_cards": 52, "moves": moves, "connected": True}


def test_an_opponents_progress_and_game_over_between_the_keys_of_a_move(page: Page) -> None:
    page.keep_sockets()
    page.open("/")
    page.js("document.activeElement.blur()")
    quick_race_with_the_bot(page)
    room = last_room(page)
    moved = 0
    for status, moves in (("in_progress", 1000), ("dead", 1001), ("dead", 1002)):
        while not any(m[0] in "tw" and "-" in m for m in page.legal()):
            drawn = page.v() + 1
            page.key(" ")
            wait(page.browser, lambda: page.v() == drawn, 5, "a card drawn")  # noqa: B023 (waited for at once)
        move = next(m for m in page.legal() if m[0] in "tw" and "-" in m)
        src, dst = move.split(":")[0].split("-")
        v = page.v()
        page.key(key_of(src))
        page.deliver(opponents_update(page, status, moves))
        page.deliver(room)  # and the room again, as a seat's change sends it
        assert page.js("return document.querySelector('.pile.picked')?.dataset.pile") == src
        page.key(key_of(dst) if dst[0] != "f" else "f")
        wait(page.browser, lambda: page.v() == v + 1, 5, f"{move} by keys")  # noqa: B023 (waited for at once)
        moved += 1
    assert moved == 3
