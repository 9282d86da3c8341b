"""A new variant is a change of data: one registry entry, and the real server and the
real client race it, the client drawing a layout it has never seen.

The variant below exists in this test process only (registered for the test, taken
out after). Nothing else is changed: no client table, no protocol edit, no store edit.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from client.board import face
from client.keys import UI
from client.screens import render
from client.state import RaceState, mode
from client.text import text_lines
from server.game.variants import VariantSpec, register, unregister
from tests.support.client_races import play_forward, start_race, two_clients
from tests.support.servers import ServerFactory, ws_url

PINWHEEL = VariantSpec(
    "test-pinwheel", "Pinwheel (a test's own)", "cross",
    tableau=7, passes=2,
    summary="seven piles between the corners, one redeal",
    blurb="A variant only this test knows: seven piles, the last one facing left.",
    # a shape no shipped variant has: a blank middle on top, two rows of three, one left-facing pile
    grid=(("f1", "", "f2"), ("t1", "t2", "t3"), ("t4", "t5", "t6"), ("f3", "t7", "f4")),
    fans=(("t7", "left"),),
    sources=("this test",),
)


@pytest.fixture
def pinwheel() -> Iterator[str]:
    register(PINWHEEL)
    try:
        yield PINWHEEL.id
    finally:
        unregister(PINWHEEL.id)


def screen(state: RaceState, ui: UI | None = None) -> list[str]:
    return text_lines(render(state, ui or UI(), now_ms=int(time.time() * 1000), width=90, height=30))


def row_with(rows: list[str], *needles: str) -> int:
    return next(i for i, r in enumerate(rows) if all(n in r for n in needles))


async def test_a_variant_registered_here_only_is_raced_and_drawn_end_to_end(
        pinwheel: str, make_server: ServerFactory, tmp_path: Path) -> None:
    async with two_clients(ws_url(await make_server()), tmp_path) as (ann, bob):
        # the lobby lists it by the server's word, name and paragraph
        picker = "\n".join(screen(ann.state, UI(menu="pick", purpose="quick",
                                              cursor=[v.id for v in ann.state.variants].index(pinwheel))))
        assert "Pinwheel (a test's own)" in picker and "seven piles, the last one facing left" in picker
        await start_race(ann, bob, pinwheel)
        view = ann.state.view or {}
        assert view["variant"] == pinwheel and len([p for p in view["piles"] if p[0] == "t"]) == 7

        rows = screen(ann.state)
        assert "Pinwheel (a test's own)" in rows[0]
        top, middle = row_with(rows, "[f1]", "[f2]"), row_with(rows, "[1]", "[2]", "[3]")
        lower, bottom = row_with(rows, "[4]", "[5]", "[6]"), row_with(rows, "[f3]", "[7]", "[f4]")
        assert top < middle < lower < bottom
        assert "[1]" not in rows[top]  # the top row's middle cell is blank
        t7 = view["piles"]["t7"][-1]
        shown = face(t7[0], t7[1])  # as the board draws it: a ten reads 10, not T
        last = rows[bottom]
        # t7 fans left: its label after its cards, between the two lower corners
        assert last.index("[f3]") < last.index("[7]") < last.index("[f4]")
        assert last.index(shown) < last.index("[7]") < last.index("[f4]") - 1  # a space between

        # race it: moves from the server's legal list, then a redeal the spec allows
        assert await play_forward(ann, 60, stock=("draw",)) > 0 and ann.state.v > 0
        await bob.wait_for(lambda st: ann.state.me in st.progress, 5)
        if "redeal" in ((ann.state.view or {}).get("legal_moves") or []):
            await ann.move("redeal")
            await ann.wait_for(lambda st: (st.view or {}).get("passes_left") == 0, 5)

        await bob.resign()
        await ann.resign()
        await ann.wait_for(lambda st: st.results is not None, 10)
        assert (ann.state.results or {})["variant"] == pinwheel and mode(ann.state) == "results"
        assert "Results" in "\n".join(screen(ann.state))
