"""The post-game analysis in the terminal client: a on the results screen asks
for it, the answer is kept and drawn under the results, one line a player
(the player's own first, with the start of its winning line), where the paths
parted and who stayed on a winning line longest; and the hint's why."""

from __future__ import annotations

from typing import Any

from client.analysis import LINE_MOVES, analysis_lines, game_line
from client.keys import UI
from client.screens import render
from client.screens.base import At
from client.screens.results import press
from client.state import apply, hint_text
from client.text import text_lines
from client.ui import Command, Context
from tests.unit.client.test_screen import T0

LINE = [f"t{i % 5 + 1}-f{i % 4 + 1}" for i in range(30)]
RACE_ANALYSIS: dict[str, Any] = {
    "t": "analysis", "code": "K7QX2M", "variant": "four-seasons", "deal": "1", "budget": 600_000,
    "deal_result": "won", "nodes": 12_345,
    "players": [
        {"player": 1, "result": "won", "moves": 120, "on_line": 120, "nodes": 0},
        {"player": 2, "result": "lost_at", "moves": 90, "index": 41, "move": "t3-t1", "losing_entry": 42,
         "line": LINE, "on_line": 40, "nodes": 9_000, "winnable_through": 41},
        {"player": 3, "result": "undecided", "moves": 70, "nodes": 600_001, "on_line": None,
         "winnable_through": 12, "lost_from": None},
        {"player": 4, "result": "deal_lost", "moves": 3, "nodes": 20, "on_line": 0},
    ],
    "parted": [{"a": 1, "b": 2, "after": 7}, {"a": 1, "b": 3, "after": 0}, {"a": 1, "b": 4, "after": 0},
               {"a": 2, "b": 3, "after": 2}, {"a": 2, "b": 4, "after": 0}, {"a": 3, "b": 4, "after": 0}],
    "longest": [1],
}


def test_each_result_reads_as_a_sentence() -> None:
    games = RACE_ANALYSIS["players"]
    assert game_line(games[0], 600_000) == "won: no move lost it"
    assert game_line(games[1], 600_000) == "winnable until after entry 41; t3-t1 (entry 42) lost it, proved"
    assert game_line(games[2], 600_000) == ("undecided after 600,001 positions (budget 600,000 a game): "
                                            "winnable through entry 12")
    assert game_line(games[3], 600_000) == "no line of play wins this deal: no move lost it (proved)"
    stopped = game_line({"result": "undecided", "nodes": None}, 600_000)
    assert stopped.startswith("undecided in the time it had")


def test_the_players_own_game_comes_first_with_its_winning_line() -> None:
    names = {1: "ann", 2: "bob", 3: "cy", 4: "dee"}
    lines = analysis_lines(RACE_ANALYSIS, 2, names)
    assert lines[0].startswith("bob *: winnable until after entry 41")
    assert lines[1] == "  a winning line from there: " + " ".join(LINE[:LINE_MOVES]) + " \u2026 (30 moves)"
    assert "longest on a winning line: ann (120 moves)" in lines
    assert "your path parted from ann's after 7, cy's after 2, dee's after 0 entries" in lines


def test_a_on_the_results_screen_asks_and_the_answer_is_drawn() -> None:
    from tests.unit.client.test_screen_fit import results
    st = results(False)
    ui, commands = press(UI(), "a", At("results", None, Context(), st, (80, 24)))
    assert commands == [Command("analyse")] and "asking the server" in ui.note
    before = "\n".join(text_lines(render(st, UI(), now_ms=T0, width=80, height=24)))
    assert "Where it was lost" not in before
    apply(st, RACE_ANALYSIS, T0)
    shown = "\n".join(text_lines(render(st, UI(), now_ms=T0, width=80, height=24)))
    assert "Where it was lost" in shown and "longest on a winning line" in shown
    other = dict(RACE_ANALYSIS, code="OTHER1")  # another room's answer is not this room's
    apply(st, other, T0)
    assert "Where it was lost" not in "\n".join(text_lines(render(st, UI(), now_ms=T0, width=80, height=24)))


def test_a_hint_says_why_when_the_server_does() -> None:
    msg = {"t": "hint", "v": 3, "result": "won", "move": "t1-t2",
           "why": "this uncovers 7H, which goes home next"}
    assert hint_text(msg, 3) == "hint: t1-t2: this uncovers 7H, which goes home next"
    assert hint_text({**msg, "why": None}, 3) == "hint: t1-t2 (the game can still be won after it)"
