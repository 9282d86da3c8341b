"""The variant picker goes to two columns when the server lists more variants than
fit one a line on 80x24 (the four PySolFC games of issue 15 made fifteen)."""

from __future__ import annotations

import pytest

from client.keys import UI
from client.screens import render
from client.screens.picker import ONE_COLUMN_MAX
from client.state import RaceState, apply
from client.text import text_lines
from tests.support.serverdata import VARIANTS, welcome
from tests.unit.client.test_screen import T0


def picker(cursor: int) -> list[str]:
    st = RaceState(server="ws://host:1", name="ann")
    apply(st, welcome(T0), T0)
    ui = UI(menu="pick", purpose="quick", cursor=cursor)
    return text_lines(render(st, ui, now_ms=T0, width=80, height=24))


@pytest.mark.parametrize("cursor", range(len(VARIANTS)), ids=[v.id for v in VARIANTS])
def test_more_variants_than_one_column_holds_go_in_two_and_fit_80x24(cursor: int) -> None:
    assert len(VARIANTS) > ONE_COLUMN_MAX
    shown = picker(cursor)
    text = "\n".join(shown)
    assert len(shown) <= 24 and all(len(row) <= 80 for row in shown)
    for k, v in enumerate(VARIANTS, start=1):
        assert f"{k}  {v.name}" in text  # every name, numbered
    first, second = VARIANTS[0], VARIANTS[(len(VARIANTS) + 1) // 2]
    assert any(first.name in row and second.name in row for row in shown)  # side by side
    chosen = VARIANTS[cursor]
    assert chosen.id in text  # the chosen one's id, and no other's on its own line
    assert sum(row.strip() == v.id for row in shown for v in VARIANTS) == 1


def test_the_chosen_variants_paragraph_is_shown() -> None:
    cursor = [v.id for v in VARIANTS].index("les-quatre-coins-pysol")
    assert "Spaces stay empty" in "\n".join(picker(cursor))
