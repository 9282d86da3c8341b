"""Server messages fold into the client's state through one table of reducers."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

import pytest

from client.state import CLOCKED, NOT_FOLDED, REDUCERS, RaceState, apply
from server.wire.protocol import SERVER_MESSAGES


def test_every_server_message_has_a_reducer_or_is_left_out_on_purpose() -> None:
    missing = set(SERVER_MESSAGES) - set(REDUCERS) - NOT_FOLDED
    assert not missing, f"server messages the client neither folds nor leaves out: {sorted(missing)}"
    assert not set(REDUCERS) & NOT_FOLDED
    # a reducer for a type the server never sends would be dead code
    assert set(REDUCERS) <= set(SERVER_MESSAGES)
    assert set(CLOCKED) <= set(REDUCERS)


def test_apply_goes_through_the_table(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[dict[str, Any]] = []
    monkeypatch.setitem(REDUCERS, "progress", lambda state, msg: seen.append(msg))
    apply(RaceState(), {"t": "progress", "player": 2, "moves": 1}, 0)
    assert seen == [{"t": "progress", "player": 2, "moves": 1}]


@pytest.mark.parametrize("msg", [{"t": "no_such_message"}, {"t": "board_changed", "board": "rating"},
                                 {"t": 7}, {}])
def test_unknown_and_left_out_messages_change_nothing(msg: dict[str, Any]) -> None:
    state = RaceState(name="ann")
    before = asdict(state)
    apply(state, msg, 0)
    assert asdict(state) == before


def test_clocked_messages_set_the_clock_and_others_do_not() -> None:
    state = RaceState()
    apply(state, {"t": "pong", "server_time": 5_000}, 1_000)
    assert state.clock_offset_ms == 4_000
    apply(state, {"t": "progress", "player": 2, "server_time": 9_000}, 1_000)
    assert state.clock_offset_ms == 4_000
