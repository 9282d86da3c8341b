"""The client's arena screens and keys, without a terminal."""

from __future__ import annotations

from typing import Any

from client.keys import UI, Command, context_of
from client.screens import press, render
from client.screens.arena import member
from client.state import RaceState, apply

NOW = 1_000_000


def standing(n: int = 10, **extra: Any) -> dict[str, Any]:
    top = [{"rank": i, "name": f"player{i:02d}-with-a-long-name", "points": 40 - i, "races": 20,
            "wins": 12, "fire": i == 1, "claimed": True} for i in range(1, n + 1)]
    return {"t": "arena", "id": "K7QX2M", "name": "Four Seasons arena", "variant": "four-seasons",
            "phase": "running", "starts_at": NOW - 60_000, "ends_at": NOW + 3_540_000, "group": 2,
            "race_ms": 300_000, "server_time": NOW, "players": 250, "top": top,
            "me": {"rank": 123, "name": "me", "points": 7, "races": 5, "wins": 3, "fire": True,
                   "claimed": False}, "member": True, **extra}


def keys(state: RaceState, ui: UI, key: str) -> tuple[UI, list[Command]]:
    return press(ui, key, mode="lobby", view=None, ctx=context_of(state), state=state)


def text(state: RaceState, ui: UI, width: int = 80, height: int | None = 24) -> list[str]:
    return ["".join(t for _, t in line) for line in render(state, ui, now_ms=NOW, width=width,
                                                            height=height)]


def test_a_then_a_number_joins_an_arena() -> None:
    state = RaceState()
    ui, commands = keys(state, UI(), "a")
    assert ui.menu == "arenas" and commands == [Command("arenas")]
    apply(state, {"t": "arenas", "arenas": [
        {"id": "AAAAAA", "name": "Old", "variant": "klondike", "phase": "finished", "starts_at": 0,
         "ends_at": 1, "players": 3, "group": 2},
        {"id": "BBBBBB", "name": "Evening", "variant": "klondike", "phase": "running",
         "starts_at": 0, "ends_at": NOW + 60_000, "players": 9, "group": 2}]}, NOW)
    shown = "\n".join(text(state, ui))
    assert "Evening" in shown and "01:00 left" in shown and "9 players" in shown
    _, commands = keys(state, ui, "2")
    assert commands == [Command("arena_join", "BBBBBB")]
    _, commands = keys(state, ui, "1")  # a finished one: its final standing, nobody joins
    assert commands == [Command("arena_info", "AAAAAA")]
    back, commands = keys(state, ui, "escape")
    assert back.menu == "main" and commands == []


def test_the_standing_fits_80_by_24_and_shows_the_players_own_line() -> None:
    state = RaceState()
    apply(state, standing(), NOW)
    apply(state, {"t": "error", "code": "store_unavailable", "message": "the store is away " * 8}, NOW)
    lines = text(state, UI())
    assert len(lines) <= 24 and all(len(line) <= 80 for line in lines)
    shown = "\n".join(lines)
    assert "you: #123 · 7 points · 5 races · 3 wins · on fire" in shown
    assert "player10" in shown and "250 players in all" in shown
    assert "59:00 left" in shown and "l leave the arena" in shown


def test_while_in_an_arena_the_lobby_is_its_standing_and_l_leaves() -> None:
    state = RaceState()
    apply(state, standing(), NOW)
    assert member(state)
    ui, commands = keys(state, UI(), "l")
    assert commands == [Command("arena_leave")] and ui.menu == "main"
    _, commands = keys(state, UI(), "r")
    assert commands == [Command("arena_info", "K7QX2M")]
    _, commands = keys(state, UI(), "1")  # the main menu's keys are not live under the standing
    assert commands == []
    apply(state, standing(member=False), NOW)
    assert not member(state)
    assert "Quick race" in "\n".join(text(state, UI()))


def test_a_new_connection_is_in_no_arena() -> None:
    state = RaceState()
    apply(state, standing(), NOW)
    apply(state, {"t": "welcome", "proto": 1, "server_time": NOW}, NOW)
    assert not member(state)


def test_the_help_tells_about_arenas() -> None:
    state = RaceState()
    ui, _ = press(UI(), "?", mode="lobby", view=None, ctx=context_of(state), state=state)
    assert ui.help
    shown = " ".join(text(state, ui, height=None))
    assert "Arenas (a in the lobby" in shown
