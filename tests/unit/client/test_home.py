"""The "send safe cards home" key: a macro of ordinary moves (client/home.py)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from client.home import send_safe_home
from client.state import RaceState
from tests.unit.client.test_keys import keys, view_with


def test_a_sends_safe_cards_home_only_when_there_are_some() -> None:
    _, sent = keys(["a"], view=view_with(["t1-f1", "draw"], safe_moves=["t1-f1"]))
    assert [c.name for c in sent] == ["home"]
    ui, sent = keys(["a"], view=view_with(["t1-f1", "draw"], safe_moves=[]))
    assert sent == [] and "safe" in ui.note


class FakeSession:
    """Answers each move with the next view of a script, or an error."""

    def __init__(self, views: list[dict[str, Any]], refuse_at: int = -1) -> None:
        self.state = RaceState()
        self.state.view = views[0]
        self.views = views[1:]
        self.sent: list[str] = []
        self.refuse_at = refuse_at

    async def move(self, text: str) -> int | None:
        self.sent.append(text)
        if len(self.sent) - 1 == self.refuse_at:
            self.state.errors_seen += 1
        else:
            self.state.view = self.views.pop(0)
            self.state.v += 1
        return len(self.sent)

    async def wait_for(self, predicate: Callable[[RaceState], bool], timeout: float = 10.0) -> RaceState:  # noqa: ASYNC109 (a wait with a default deadline of its own)
        assert predicate(self.state)
        return self.state


def view(safe: list[str]) -> dict[str, Any]:
    return {"status": "in_progress", "safe_moves": safe, "legal_moves": safe + ["draw"]}


def test_the_macro_plays_each_safe_move_after_the_view_that_answers_the_last() -> None:
    session = FakeSession([view(["t1-f1", "t2-f2"]), view(["t2-f2", "w-f3"]), view(["w-f3"]), view([])])
    assert asyncio.run(send_safe_home(session)) == 3
    assert session.sent == ["t1-f1", "t2-f2", "w-f3"]


def test_the_macro_stops_at_a_refusal() -> None:
    session = FakeSession([view(["t1-f1"]), view(["t2-f2"]), view(["w-f3"])], refuse_at=1)
    assert asyncio.run(send_safe_home(session)) == 1
    assert session.sent == ["t1-f1", "t2-f2"]


def test_a_game_that_ended_sends_nothing() -> None:
    done = {"status": "won", "safe_moves": ["t1-f1"]}
    session = FakeSession([done])
    assert asyncio.run(send_safe_home(session)) == 0 and session.sent == []
