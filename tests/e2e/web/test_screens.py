"""Every screen at a phone's size (390x844) and a desktop's (1280x800): every
variant's board fits with every face-up card on screen, uncut and unhidden, and
an automated accessibility audit (axe) finds nothing serious or critical."""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.web.test_page import click_move
from tests.e2e.web.test_resume import start_solo
from tests.support.browser import DESKTOP, PHONE, Page, resize

SIZES = {"phone": PHONE, "desktop": DESKTOP}

# every .card's box: inside the viewport's width, not cut by its pile, and no two overlapping
FIT = """
const cards = [...document.querySelectorAll('.board .card')];
const width = document.documentElement.clientWidth;
const out = [];
const boxes = cards.map(c => c.getBoundingClientRect());
boxes.forEach((b, i) => {
  if (b.left < -0.5 || b.right > width + 0.5)
    out.push(`card ${cards[i].textContent} outside: ${b.left}-${b.right} of ${width}`);
  const pile = cards[i].closest('.pile').getBoundingClientRect();
  if (b.left < pile.left - 0.5 || b.right > pile.right + 0.5 || b.bottom > pile.bottom + 0.5)
    out.push(`card ${cards[i].textContent} cut by its pile`);
  for (let j = 0; j < i; j++) {
    const o = boxes[j];
    if (b.left < o.right - 1 && o.left < b.right - 1 && b.top < o.bottom - 1 && o.top < b.bottom - 1)
      out.push(`cards ${cards[j].textContent} and ${cards[i].textContent} overlap`);
  }
});
const wide = document.documentElement.scrollWidth;
if (wide > width + 1) out.push(`the page scrolls sideways: ${wide}`);
return out;
"""


def png_size(data: bytes) -> tuple[int, int]:
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def shown_cards(page: Page) -> dict[str, int]:
    return dict(page.js("const out = {}; document.querySelectorAll('.board [data-pile]').forEach(p => "
                        "out[p.dataset.pile] = p.querySelectorAll('.card:not(.back)').length); return out"))


def test_every_variant_fits_both_sizes_with_every_face_up_card(page: Page, tmp_path: Path) -> None:
    page.open("/")
    page.key("8")
    variants = page.js("return [...document.querySelectorAll('[data-variant]')].map(b => b.dataset.variant)")
    assert len(variants) >= 10
    try:
        for variant in variants:
            page.open("/")
            page.frames.collect()
            page.frames.received.clear()
            start_solo(page, variant, "5")
            view = next(m for m in reversed(page.frames.collect()) if m["t"] == "view")["view"]
            layout = next(m for m in reversed(page.frames.received) if m["t"] == "room")["layout"]
            for size_name, size in SIZES.items():
                resize(page.browser, size)
                problems = page.js(FIT)
                shot = page.browser.get_screenshot_as_png()
                (tmp_path / f"{variant}-{size_name}.png").write_bytes(shot)
                assert png_size(shot)[0] == size[0], (variant, size_name)
                assert problems == [], (variant, size_name, problems)
                shown = shown_cards(page)
                for pile, cards in view["piles"].items():
                    fan = (layout["piles"].get(pile) or {}).get("fan", "right")
                    expected = min(len(cards), 1) if fan == "none" else len(cards)
                    assert shown.get(pile) == expected, (variant, size_name, pile, cards, shown.get(pile))
            page.key("X", "y")  # the seat is given up before the next page's player comes
    finally:
        resize(page.browser, DESKTOP)


def audit(page: Page, where: str) -> None:
    from axe_selenium_python import Axe

    axe = Axe(page.browser)
    axe.inject()
    found = axe.run()
    assert len(found["passes"]) > 10, where  # the audit ran its rules on a drawn screen
    bad = [(v["id"], v["impact"], [n["target"] for n in v["nodes"]][:3])
           for v in found["violations"] if v.get("impact") in ("serious", "critical")]
    assert bad == [], (where, bad)


@pytest.mark.parametrize("size_name", list(SIZES))
def test_no_serious_accessibility_violation_on_any_screen(page: Page, size_name: str) -> None:
    try:
        resize(page.browser, SIZES[size_name])
        page.open("/")
        audit(page, "lobby")
        for key, where, shown in (("1", "variant picker", "pick a variant"), ("6", "boards", "Daily wins"),
                                  ("3", "join by code", "Room code"), ("a", "arenas", "Arenas"),
                                  ("?", "rules card", "Rules:"),
                                  ("f", "friends, as a guest", "Following, challenges and blocks")):
            page.js("document.activeElement.blur()")
            page.key(key)
            page.wait_text(shown)
            audit(page, where)
            page.key("\ue00c")  # Escape
        page.js("document.activeElement.blur()")
        page.key("6", "2")
        page.click('[data-variant="four-seasons"]')
        page.wait_text("Ratings · Four Seasons · all time")
        audit(page, "ratings board")
        page.js("document.activeElement.blur()")
        page.key("m")
        page.wait_text("You are not on this board yet.")
        audit(page, "ratings board around me")
        page.key("\ue00c", "\ue00c")  # back to the boards, then to the menu
        page.wait_text("Quick race")
        page.js("document.activeElement.blur()")
        page.key("1")
        page.click('[data-variant="four-seasons"]')
        page.in_room()
        audit(page, "room")
        page.button("Ready")
        page.in_race(20)
        audit(page, "race")
        click_move(page)
        page.js("document.querySelector('.board button.movable')?.click()")  # a picked pile, targets lit
        audit(page, "race with a pile picked")
        page.js("document.activeElement.blur()")
        page.key("\ue00c", "X", "y")
        page.wait_text("Results", 15)
        audit(page, "results")
        page.key("v")
        page.wait_text("Replay")
        audit(page, "replay")
    finally:
        resize(page.browser, DESKTOP)


def test_piles_are_named_for_screen_readers_and_results_are_announced(page: Page) -> None:
    page.open("/")
    start_solo(page, "four-seasons", "24")
    labels: list[Any] = page.js("return [...document.querySelectorAll('.board button.pile')]"
                                ".map(b => b.getAttribute('aria-label'))")
    assert any(label.startswith("tableau 3: ") for label in labels)
    assert any(label.startswith("foundation 1: ") for label in labels)
    assert any(label.startswith("stock: ") for label in labels)
    named = [label for label in labels if " of " in label]
    suits = ("clubs", "spades", "hearts", "diamonds")
    assert named and all(any(s in label for s in suits) for label in named)
    # the suits carry their symbol as well as a colour
    faces = page.js("return [...document.querySelectorAll('.board .card:not(.back)')]"
                    ".map(c => c.textContent)")
    assert faces and all(f[-1] in "\u2663\u2660\u2665\u2666" for f in faces)
    page.js("document.activeElement.blur()")
    page.key("X", "y")
    page.wait_text("Results", 10)
    live = page.js("return document.getElementById('announce').innerText")
    assert "results" in live
    assert page.js("return document.getElementById('announce').getAttribute('aria-live')") == "polite"
