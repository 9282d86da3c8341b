"""Solo play, the rules at hand and saving records in the client, without a terminal
or a server: keys, screens at 80x24, the hint notice and the record file."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from client.keys import UI, Command, context_of
from client.records import record_path, save_record
from client.screens import press, render
from client.screens.help import HELP, help_body, rules_card
from client.screens.line import STARTING_SOLO
from client.state import RaceState, apply, mode
from client.text import text_lines, width_of
from tests.support.samples import VIEWS
from tests.support.serverdata import VARIANTS
from tests.unit.client.test_screen import T0, racing

SEEDS = Path(__file__).resolve().parents[3] / "seeds" / "rules"


def keys(state: RaceState, seq: list[str], ui: UI | None = None,
         size: tuple[int, int | None] = (80, 24)) -> tuple[UI, list[Command]]:
    ui = ui or UI()
    state.variants = state.variants or VARIANTS  # what the server's welcome listed
    sent: list[Command] = []
    for k in seq:
        ui, commands = press(ui, k, mode=mode(state), view=state.view, ctx=context_of(state), state=state,
                             size=size)
        sent += commands
    return ui, sent


def solo_race(view: dict[str, Any] | None = None, deal: str = "24") -> RaceState:
    st = racing(view or VIEWS["four-seasons"], names=("ann",))
    assert st.room is not None
    st.room.update({"solo": True, "deal": deal, "players_max": 1})
    return st


def screen(st: RaceState, ui: UI | None = None) -> list[str]:
    return text_lines(render(st, ui or UI(), now_ms=T0, width=80, height=24))


@pytest.mark.parametrize("variant", [v.id for v in VARIANTS])
def test_every_variant_has_its_rules_card_the_same_text_as_the_seeds(variant: str) -> None:
    assert rules_card(variant) == (SEEDS / f"{variant}.md").read_text(encoding="utf-8")


def test_an_unknown_or_odd_variant_has_no_card() -> None:
    assert rules_card("klondike") is None and rules_card("../README") is None


def test_eight_in_the_lobby_picks_a_variant_then_asks_for_a_deal_number() -> None:
    st = RaceState()
    ui, sent = keys(st, ["8"])
    assert ui.menu == "pick" and ui.purpose == "solo" and not sent
    assert "Play alone: pick a variant" in "\n".join(screen(st, ui))
    ui, sent = keys(st, ["3"], ui)
    assert ui.text == "" and ui.text_purpose == "deal" and ui.variant == VARIANTS[2].id
    assert "deal number (PySolFC's; Enter for a random one):" in "\n".join(screen(st, ui))
    ui, sent = keys(st, list("#24") + ["enter"], ui)
    assert sent == [Command("solo", VARIANTS[2].id, kind="#24")]
    # the line stays open, its number there to correct if the server refuses it
    assert ui.menu == "pick" and ui.text == "#24" and ui.note == STARTING_SOLO
    _, sent = keys(st, ["enter"], ui)
    assert sent == []  # asked already: once is enough
    _, sent = keys(st, ["down"] * 7 + ["enter", "enter", "enter"])  # the menu's 8th line, the 1st variant
    assert sent == [Command("solo", VARIANTS[0].id, kind="")]  # Enter alone: a random deal


def test_in_solo_u_undoes_and_h_asks_for_a_hint() -> None:
    st = solo_race()
    _, sent = keys(st, ["u", "h"])
    assert sent == [Command("undo"), Command("hint")]
    rows = screen(st)
    assert "solo #24" in rows[0]
    assert any("u undo" in r and "h hint" in r for r in rows)


def test_in_a_race_u_and_h_are_no_undo_and_no_hint() -> None:
    st = racing(VIEWS["four-seasons"])
    ui, sent = keys(st, ["u"])
    assert not sent and ui.text is None and "u is not a key here" in ui.note
    rows = screen(st)
    assert not any("undo" in r for r in rows) and "solo" not in rows[0]


def test_s_on_results_saves_and_a_solo_game_has_no_rematch() -> None:
    st = solo_race()
    apply(st, {"t": "results", "code": "K7QX2M", "variant": "four-seasons", "deal": "24",
               "ranking": [{"place": 1, "player": 1, "name": "ann", "status": "resigned"}]}, T0)
    _, sent = keys(st, ["s"])
    assert sent == [Command("save")]
    ui, sent = keys(st, ["m"])
    assert not sent and "no rematch" in ui.note
    rows = screen(st)
    assert any("s save the record" in r for r in rows) and not any("m rematch" in r for r in rows)


def test_the_help_in_a_race_shows_the_rules_card_and_scrolls() -> None:
    st = racing(VIEWS["corner-stones-play"])
    ui, _ = keys(st, ["?"])
    first = screen(st, ui)
    assert "How to play" in first[2] and len(first) <= 24
    body = help_body(HELP, st, 80, False)
    assert any("Corner Stones" in line for line in body)  # the card's title, after the keys
    ui, _ = keys(st, ["G"], ui)  # to the end
    last = screen(st, ui)
    assert ui.help_top > 0 and last != first and len(last) <= 24
    assert all(width_of(row) <= 80 for row in last)
    assert body[-1].strip() in "\n".join(last)
    bottom = ui.help_top
    ui, _ = keys(st, ["up", "k"], ui)
    assert ui.help and ui.help_top == bottom - 2
    ui, _ = keys(st, ["G", "down", " "], ui)  # never past the end
    assert ui.help_top == bottom
    ui, _ = keys(st, ["x"], ui)
    assert not ui.help


def test_the_help_in_the_lobby_has_no_rules_card() -> None:
    st = RaceState()
    assert not any("Corner Stones" in line for line in help_body(HELP, st, 80, False))


def test_a_hint_becomes_a_notice_for_its_own_position_only() -> None:
    st = solo_race()
    apply(st, {"t": "hint", "v": st.v, "result": "won", "move": "t3-f1"}, T0)
    assert "hint: t3-f1" in st.notice and not st.notice_error
    apply(st, {"t": "hint", "v": st.v - 1, "result": "won", "move": "w-t2"}, T0)
    assert "earlier position" in st.notice
    apply(st, {"t": "hint", "v": st.v, "result": "lost", "move": None}, T0)
    assert "u undoes" in st.notice


def test_record_files_get_new_names(tmp_path: Path) -> None:
    record = {"variant": "four-seasons", "deal": "24", "moves": []}
    first = record_path(record, "K7QX2M", tmp_path)
    assert first.name == "patience-four-seasons-24-K7QX2M.json"
    first.write_text("{}")
    assert record_path(record, "K7QX2M", tmp_path).name == "patience-four-seasons-24-K7QX2M-2.json"
    assert record_path({"variant": "../x", "deal": "1/2"}, None, tmp_path).parent == tmp_path


class FakeSession:
    """Just enough of a ClientSession: the record arrives when asked for."""

    def __init__(self, state: RaceState, answer: dict[str, Any]) -> None:
        self.state = state
        self.answer = answer

    async def record(self) -> bool:
        asyncio.get_running_loop().call_soon(apply, self.state, self.answer, T0)
        return True

    async def wait_for(self, predicate: Any, timeout: float = 10.0) -> RaceState:  # noqa: ASYNC109 (a wait with a default deadline of its own)
        for _ in range(100):
            if predicate(self.state):
                return self.state
            await asyncio.sleep(0.001)
        raise TimeoutError


async def test_saving_writes_the_record_as_json(tmp_path: Path) -> None:
    st = solo_race()
    record = {"variant": "four-seasons", "deal": "24", "deal_version": "deal_v1", "moves": ["draw", "undo"],
              "ms": [5, 9]}
    path = await save_record(FakeSession(st, {"t": "record", "player": 1, "record": record}),  # type: ignore[arg-type]
                             tmp_path / "records")
    assert path is not None and json.loads(path.read_text()) == record
    assert f"record saved to {path}" in st.notice


async def test_a_refused_record_saves_nothing_and_says_why(tmp_path: Path) -> None:
    st = solo_race()
    refusal = {"t": "error", "code": "no_results", "message": "a daily game's record is available once "
               "the day is over"}
    assert await save_record(FakeSession(st, refusal), tmp_path) is None  # type: ignore[arg-type]
    assert "once the day is over" in st.notice
    assert not list(tmp_path.iterdir())  # noqa: ASYNC240 (an empty temp dir, read at once)
