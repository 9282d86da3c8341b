"""Playing in the page: a whole race by keyboard alone (bots accepted), drag and drop, solo play
with undo and a hint, a replay and its analysis, watching a race from another tab, a scan of
everything the page received for a card it could not see, and every frame the page sent
compared with the terminal client's bytes of the same message."""

from __future__ import annotations

from collections import Counter
from typing import Any

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By

from server.game.cards import card_text
from server.game.state import STOCK
from server.game.variants import get_rules
from server.wire.protocol import decode_client, encode
from tests.e2e.web.test_page import click_move
from tests.e2e.web.test_resume import start_solo
from tests.support.browser import Page, WebServer, new_browser, wait
from tests.support.servers import is_card, states_of

TABLEAU_KEYS = "1234567890-="


def quick_race_with_the_bot(page: Page) -> None:
    """From the lobby, by keys alone: a quick race of Four Seasons, ready, raced."""
    page.key("1")
    page.wait_text("pick a variant")
    names = page.js("return [...document.querySelectorAll('[data-variant]')].map(b => b.dataset.variant)")
    page.key(str(names.index("four-seasons") + 1))
    page.in_room()
    page.js("document.activeElement.blur()")
    page.key("r")
    page.in_race(20)  # the server's bot takes the other seat after a second


def key_of(pile: str) -> str:
    if pile.startswith("t"):
        return TABLEAU_KEYS[int(pile[1:]) - 1]
    return pile


def keyboard_move(page: Page) -> None:
    """One move by keys alone: a card home if any (its pile's key, then f), else a
    pile-to-pile move, else space (draw)."""
    legal = page.legal()
    v = page.v()
    home = [m for m in legal if "-f" in m and m[0] in "tw"]
    other = [m for m in legal if m[0] in "tw" and "-t" in m]
    if home:
        page.key(key_of(home[0].split("-")[0]), "f")
    elif other:
        src, dst = other[0].split(":")[0].split("-")
        page.key(key_of(src), key_of(dst))
    else:
        page.key(" ")
    try:
        wait(page.browser, lambda: page.v() == v + 1, 5, f"a keyboard move among {legal}")
    except AssertionError as exc:  # say what the page had when it did not move: one failure is all CI gives
        raise AssertionError(f"{exc}\n{what_the_page_had(page)}") from None


def what_the_page_had(page: Page) -> str:
    """The focused element, the picked pile and the last frames each way, for a failure's message."""
    focus = page.js("const a = document.activeElement; return `${a?.tagName}#${a?.id ?? ''}`")
    picked = page.js("return document.querySelector('.pile.picked')?.dataset.pile ?? null")
    page.frames.collect()
    short = [{k: m[k] for k in ("t", "seq", "v", "code", "player", "status") if k in m}
             for m in page.frames.received[-10:]]
    sent = [{k: m[k] for k in ("t", "seq", "move", "v") if k in m} for m in page.frames.sent[-5:]]
    return f"focus {focus}, picked {picked}, last received {short}, last sent {sent}"


# The fields of the messages whose order the terminal client fixes, in its order
# (client/requests.py, client/commands.py): the move's is the hot path's frame.
TERMINAL_ORDER = {"move": ["t", "seq", "move", "v"], "undo": ["t", "seq", "v"], "resign": ["t", "seq"],
                  "quick": ["t", "variant", "accept_bots"], "ready": ["t"], "hint": ["t"]}


def assert_sent_as_by_the_terminal_client(page: Page, kinds: set[str]) -> None:
    """Each frame the page sent is, byte for byte, what the terminal client's codec
    (server.wire.protocol's encode) makes of the same message: the server cannot tell
    the clients apart, so a browser costs it what a terminal does."""
    page.frames.collect()
    seen = set()
    for raw, message in zip(page.frames.sent_bytes, page.frames.sent, strict=True):
        assert encode(message) == raw, (message, raw.hex())
        decode_client(raw)  # and the server takes it (a refusal raises)
        order = TERMINAL_ORDER.get(message["t"])
        if order is not None:
            assert list(message) == [f for f in order if f in message], message
        seen.add(message["t"])
    assert kinds <= seen, seen


def test_a_whole_race_by_keyboard_alone(page: Page) -> None:
    page.open("/")
    page.js("document.activeElement.blur()")
    ticked = "return document.getElementById('accept-bots').checked"
    page.key("b")  # bots accepted: the menu's key, or the checkbox by Tab and Space
    wait(page.browser, lambda: page.js(ticked) is True, 5, "accept bots ticked by its key")
    page.js("document.getElementById('accept-bots').focus()")
    page.key(" ")
    wait(page.browser, lambda: page.js(ticked) is False, 5, "accept bots unticked by Space")
    page.key(" ")
    wait(page.browser, lambda: page.js(ticked) is True, 5, "accept bots ticked by Space")
    page.open("/", fresh=False)  # the tab remembers it
    assert page.js(ticked) is True
    page.js("document.activeElement.blur()")
    quick_race_with_the_bot(page)
    for _ in range(4):
        keyboard_move(page)
    page.key("X")
    page.wait_text("Yes, resign")
    page.key("y")
    page.wait_text("Results", 15)  # the bot plays out its game; the race ends
    assert "(you)" in page.text()
    page.key("\ue00c")  # Escape
    page.wait_text("Quick race")
    assert_sent_as_by_the_terminal_client(page, {"hello", "quick", "ready", "move", "resign"})
    quick = [m for m in page.frames.sent if m["t"] == "quick"][-1]
    assert quick == {"t": "quick", "variant": "four-seasons", "accept_bots": True}


def test_drag_and_drop_plays_a_move(page: Page) -> None:
    page.open("/")
    start_solo(page, "four-seasons", "24")
    while not any("-" in m and m[0] in "tw" for m in page.legal()):
        drawn = page.v() + 1
        page.click('button.pile[data-pile="s"]')
        wait(page.browser, lambda: page.v() == drawn, 5, "a card drawn")  # noqa: B023 (waited for at once)
    move = next(m for m in page.legal() if "-" in m and m[0] in "tw")
    src, dst = move.split(":")[0].split("-")
    v = page.v()
    source = page.browser.find_element(By.CSS_SELECTOR, f'button.pile[data-pile="{src}"]')
    # by offsets: the page draws the board anew (targets lit) once the drag starts
    dx, dy = page.js("const c = s => { const r = document.querySelector(`[data-pile='${s}']`)"
                     ".getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; };"
                     "const a = c(arguments[0]), b = c(arguments[1]); return [b[0] - a[0], b[1] - a[1]];",
                     src, dst)
    (ActionChains(page.browser).move_to_element(source).click_and_hold().move_by_offset(12, 12)
     .move_by_offset(int(dx) - 12, int(dy) - 12).release().perform())
    assert page.js("return document.querySelector('.drag-ghost')") is None
    wait(page.browser, lambda: page.v() == v + 1, 5, f"the dragged move {move}")


def test_solo_play_with_undo_a_hint_and_a_replay(page: Page) -> None:
    page.open("/")
    start_solo(page, "four-seasons", "24")
    before = page.js("return document.querySelector('.board').innerText")
    click_move(page)
    played = page.v()
    page.js("document.activeElement.blur()")
    page.key("u")
    wait(page.browser, lambda: page.v() == played + 1, 5, "the undo (a move of its own)")
    if played == 1:  # no draw came first: the board is the deal's again
        assert page.js("return document.querySelector('.board').innerText") == before
    page.key("h")
    notice = "return document.querySelector('.notice')?.textContent ?? ''"
    wait(page.browser, lambda: "hint" in page.js(notice), 15, "the hint")
    page.key("X", "y")
    page.wait_text("Results", 10)
    page.key("v")
    page.wait_text("Replay")
    total = played + 2  # the undo and the resignation are entries of the record too
    page.wait_text(f"move 0 of {total}")
    page.key("\ue014")  # the right arrow
    page.wait_text(f"move 1 of {total}")
    page.key("\ue00c", "a")  # Escape back to the results, then the post-game analysis
    page.wait_text("Where it was lost", 30)
    assert_sent_as_by_the_terminal_client(page, {"solo", "move", "undo", "hint", "resign", "replay"})


def test_watching_a_race_from_another_tab(page: Page, server: WebServer) -> None:
    page.open("/")
    page.key("1")
    page.click('[data-variant="czarina"]')
    code = page.in_room()
    page.frames.collect()
    # a new tab has not accepted bots: its quick race says nothing of them
    assert [m for m in page.frames.sent if m["t"] == "quick"][-1] == {"t": "quick", "variant": "czarina"}
    page.button("Ready")
    page.in_race(20)
    other: Any = new_browser()
    try:
        watcher = Page(other, server).open("/")
        watcher.key("w")
        watcher.js("document.getElementById('field-watch').value = arguments[0]", code)
        watcher.click("form.line button[type=submit]")
        assert watcher.in_room() == code
        click_move(page)
        bars = "return document.querySelectorAll('.bar[role=progressbar]').length"
        wait(other, lambda: watcher.js(bars) == 2, 10, "the players' bars")
        page.key("X", "y")
        watcher.wait_text("Results", 15)
        # a spectator never gets a view: not one card while the race ran
        sent = watcher.frames.collect()
        first = next(i for i, m in enumerate(sent) if m["t"] == "results")
        assert all(m["t"] != "view" for m in sent)
        assert not any(is_card(x) for m in sent[:first] for x in walk(m))
    finally:
        other.quit()


def walk(value: Any) -> Any:
    if isinstance(value, dict):
        for v in value.values():
            yield from walk(v)
    elif isinstance(value, list):
        for v in value:
            yield from walk(v)
    else:
        yield value


def test_the_page_never_receives_a_card_it_could_not_see(page: Page) -> None:
    page.open("/")
    page.frames.collect()
    page.frames.received.clear()
    start_solo(page, "four-seasons", "31")
    for _ in range(5):
        click_move(page)
    page.key("X", "y")
    page.wait_text("Results", 10)
    page.button("Save my record")  # asks the server for it; the record is the truth to check against
    wait(page.browser, lambda: any(m["t"] == "record" for m in page.frames.collect()), 10, "the record")
    sent = page.frames.received
    record = next(m for m in sent if m["t"] == "record")["record"]
    truth = states_of(record)
    first = next(i for i, m in enumerate(sent) if m["t"] == "results")
    views = 0
    rules = get_rules(record["variant"])
    for msg in sent[:first]:
        if msg["t"] != "view":
            assert not any(is_card(x) for x in walk(msg)), msg
            continue
        views += 1
        state = truth[msg["v"]]
        face_up = {name: [card_text(c) for c in state.piles[i]]
                   for i, name in enumerate(rules.names) if i != STOCK}
        assert msg["view"]["piles"] == face_up
        shown = Counter(x for x in walk(msg["view"]) if is_card(x))
        assert shown == Counter(c for pile in face_up.values() for c in pile)
    assert views >= 6


def test_an_arena_pairs_two_browsers_and_shows_the_standing(page: Page, server: WebServer) -> None:
    import os
    import subprocess
    import sys
    from pathlib import Path

    exe = Path(sys.executable).parent / "patience-server"
    made = subprocess.run([str(exe), "arena", "create", "--variant", "Four Seasons", "--minutes", "5",
                           "--start", "+0", "--group", "2"],
                          env={**os.environ, "REDIS_URL": server.redis_url},
                          capture_output=True, text=True, timeout=30)
    assert made.returncode == 0, made.stderr
    arena = made.stdout.strip()
    other: Any = new_browser()
    try:
        rival = Page(other, server)
        for racer in (page, rival):
            racer.open("/")
            racer.key("a")
            racer.click(f'[data-arena="{arena}"]')
        for racer in (page, rival):
            racer.in_race(20)  # the pairing round seats both in one race
        for racer in (page, rival):
            racer.js("document.activeElement.blur()")
            racer.key("X", "y")
        for racer in (page, rival):
            racer.wait_text("Results", 15)
            racer.wait_text("the first ten", 10)
    finally:
        other.quit()
