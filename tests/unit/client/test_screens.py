"""The screens' table: every screen the client can be on has one entry in
SCREENS, every key of the lobby's menu and every input line has its handler,
every command a key can ask for is carried out, and no screen wraps another."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import client.screens
from client.commands import COMMANDS
from client.keys import LOBBY_ITEMS, UI
from client.screens import LOBBY_MENUS, SCREENS, press, render, screen_of
from client.screens.line import ENTER, PROMPTS
from client.screens.lobby import MENU
from client.screens.picker import HEADINGS, PICKED
from client.state import MODES, RaceState, mode
from tests.support.serverdata import VARIANTS

CLIENT = Path(client.screens.__file__).resolve().parents[1]
APP_COMMANDS = {"quit", "share"}  # they act on the terminal: client/app.py keeps them


def states() -> dict[str, RaceState]:
    """A state in each mode of client/state.py, and in the variants of some."""
    room = {"t": "room", "code": "ABC123", "phase": "waiting", "players": []}
    return {
        "lobby": RaceState(),
        "recovery codes to show": RaceState(recovery_codes=["0000-0000-0000-0000"]),
        "arena member": RaceState(arena={"id": "K7", "member": True, "phase": "running"}),
        "room": RaceState(code="ABC123", room=room),
        "countdown": RaceState(code="ABC123", room={**room, "phase": "countdown"}),
        "watching": RaceState(code="ABC123", room=room, watching="ABC123"),
        "race": RaceState(code="ABC123", room=room, view={"piles": {}}),
        "solo": RaceState(code="ABC123", room={**room, "solo": True}, view={"piles": {}}),
        "results": RaceState(code="ABC123", room=room, results={"code": "ABC123"}),
        "replaying": RaceState(code="ABC123", room=room, results={"code": "ABC123"}, replaying={}),
    }


def test_every_mode_and_lobby_menu_has_a_screen_and_every_screen_is_reached() -> None:
    reached: set[str] = set()
    for name, state in states().items():
        for ui in [UI(), UI(help=True), *(UI(menu=menu) for menu in LOBBY_MENUS)]:
            screen = screen_of(state, ui, mode(state))
            assert screen in SCREENS, f"{name} with {ui.menu}: no screen {screen!r}"
            reached.add(screen)
    assert {mode(state) for state in states().values()} == set(MODES)  # every mode was tried
    assert reached == set(SCREENS), f"screens nothing leads to: {sorted(set(SCREENS) - reached)}"


def test_every_mode_draws_and_takes_keys_through_the_table() -> None:
    for state in states().values():
        state.variants = VARIANTS
        assert render(state, UI(), now_ms=0, width=80, height=24)
        for key in ("x", "escape", "enter"):
            press(UI(), key, mode=mode(state), view=state.view, state=state)


def test_every_lobby_item_and_picker_has_its_handler() -> None:
    assert [item[0] for item in LOBBY_ITEMS] == list(MENU)
    opened = {press(UI(), key, mode="lobby")[0] for key in MENU}
    purposes = {ui.purpose for ui in opened if ui.menu == "pick"}
    assert purposes <= set(HEADINGS)
    assert purposes - {"browse"} <= set(PICKED)  # browsing only reads the variants
    texts = {ui.text_purpose for ui in opened if ui.text is not None}
    assert texts <= set(ENTER)


def test_every_input_line_has_a_prompt_and_an_enter() -> None:
    assert set(PROMPTS) == set(ENTER)
    opened = set(re.findall(r'open_text\(\w+, "(\w+)"', _source()))
    opened |= set(re.findall(r'text_purpose="(\w+)"', _source()))
    assert opened - {""} <= set(ENTER)


def test_every_command_a_key_asks_for_is_carried_out() -> None:
    asked = set(re.findall(r'Command\("(\w+)"', _source()))
    asked |= set(re.findall(r'confirm="(\w+)"', _source()))  # y on the question sends it
    assert asked, "no commands found: the pattern is stale"
    assert not asked - set(COMMANDS) - APP_COMMANDS, "commands nothing carries out"
    assert not APP_COMMANDS & set(COMMANDS)


def test_no_screen_wraps_another() -> None:
    """A screen hands a key to another only where the table says so (a solo game is a race)."""
    allowed = {("solo", "race")}
    screens_dir = CLIENT / "screens"
    modules = {p.stem for p in screens_dir.glob("*.py")} - {"__init__"}
    shared = {"base", "chrome", "line", "offers"}
    for path in screens_dir.glob("*.py"):
        if path.stem in shared | {"__init__"}:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                names = [node.module] if node.module else [a.name for a in node.names]
                for target in names:
                    if target in modules and target not in shared:
                        assert (path.stem, target) in allowed, f"screens/{path.stem} wraps screens/{target}"


def _source() -> str:
    paths = [*(CLIENT / "screens").glob("*.py"), CLIENT / "ui.py"]
    return "\n".join(p.read_text(encoding="utf-8") for p in paths)
