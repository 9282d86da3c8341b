"""The terminal client's profile figures, a name's kept games and a kept game's
replay (pure): drawn from the server's answers, and the keys that ask for them."""

from __future__ import annotations

from typing import Any

from client.keys import UI, Command, context_of
from client.screens import press, render
from client.state import RaceState, apply
from client.text import text_lines
from tests.support.samples import VIEWS
from tests.unit.client.test_competition import lobby as lobby_state
from tests.unit.client.test_screen import T0

DAILY_LAST = [{"date": f"2026-11-{30 - i:02}", "variant": "czarina", "won": i % 2 == 0, "ranked": True,
               "foundation_cards": 30 + i, "total_cards": 52, "time_ms": 301_000 + i, "code": "D"}
              for i in range(10)]


def profile_state(variants: int) -> RaceState:
    """A claimed name rated in ``variants`` variants, each with a curve of changes."""
    st = lobby_state(True)
    ratings = {v.id: {"value": 25.0 - i, "deviation": 1.5 + i / 10, "races": 3 + i, "provisional": i % 3 == 0,
                      "curve": [[T0 + k, 20.0 + k] for k in range(6)]}
               for i, v in enumerate(st.variants[:variants])}
    apply(st, {"t": "profile", "name": "ann", "claimed": True, "ratings": ratings,
               "streaks": {"days": 4, "best": 12, "wins": 30}}, T0)
    return st


def figures_state(variants: int = 18) -> RaceState:
    st = profile_state(variants)
    assert st.profile is not None
    per = {v.id: {"races": 10 + i, "wins": 3, "win_rate": round(3 / (10 + i), 3), "best_ms": 185_000 + i,
                  "best_code": "ABCDEF"} for i, v in enumerate(st.variants[:variants])}
    st.profile["stats"] = {"races": 400, "wins": 54, "win_rate": 0.135, "games": 500,
                           "played": {"race": 300, "arena": 100, "daily": 90, "ghost": 5, "solo": 5},
                           "variants": per, "daily": {"played": 90, "won": 41, "last": DAILY_LAST},
                           "arenas": {"played": 12, "races": 100, "wins": 20}}
    return st


def game(i: int) -> dict[str, Any]:
    return {"code": f"G{i:05}", "at": T0 - i * 3_600_000, "variant": "four-seasons-redeal",
            "mode": ("race", "arena", "daily", "ghost", "solo")[i % 5], "private": False, "daily": None,
            "arena": None, "player": 1,
            "players": ["Annabelle-the-Quick", "Carla Montgomery", "dan"][: 1 + i % 3],
            "place": 1 + i % 3, "won": i % 4 == 0, "status": "won" if i % 4 == 0 else "timed_out",
            "foundation_cards": 37, "total_cards": 52, "time_ms": 754_000, "moves": 140, "ranked": i % 2 == 0,
            "rating_before": 12.5 if i % 2 == 0 else None, "rating_after": 10.25 if i % 2 == 0 else None}


def games_state() -> RaceState:
    st = figures_state()
    apply(st, {"t": "games", "name": "ann", "offset": 12, "total": 500,
               "games": [game(i) for i in range(12)]}, T0)
    return st


def kept_state() -> RaceState:
    st = games_state()
    apply(st, {"t": "replay", "name": "ann", "code": "G00003", "player": 1, "index": 7, "total": 140,
               "move": "t3-f1", "ms": 61_000, "view": VIEWS["simplicity"]}, T0)
    return st


def keys(state: RaceState, seq: list[str], ui: UI) -> tuple[UI, list[Command]]:
    sent: list[Command] = []
    for key in seq:
        ui, more = press(ui, key, mode="lobby", state=state, ctx=context_of(state))
        sent += more
    return ui, sent


def shown(st: RaceState, ui: UI) -> str:
    return "\n".join(text_lines(render(st, ui, now_ms=T0, width=80, height=24)))


def test_the_profile_shows_the_figures() -> None:
    text = shown(figures_state(3), UI(menu="profile"))
    first = figures_state(3).variants[0].name
    row = next(line for line in text.splitlines() if first in line)
    assert "25.00" in row and "3/10" in row and "30%" in row and "03:05" in row and "20.0 -> 25.0 (5)" in row
    assert "races 400 \u00b7 wins 54 (14%)" in text and "games kept 500" in text and "arenas 12" in text
    assert "daily: 90 played, 41 won" in text and "11-30 won 05:01" in text and "11-29 31/52" in text


def test_g_lists_the_names_games_and_a_game_opens_as_a_replay_or_a_ghost() -> None:
    st = figures_state(3)
    ui, sent = keys(st, ["g"], UI(menu="profile"))
    assert ui.menu == "games" and sent == [Command("games", "ann", 0)]
    st = games_state()
    text = shown(st, UI(menu="games", board_offset=12))
    assert "Games \u00b7 ann \u00b7 13-24 of 500" in text and "won 12:34" in text and "-2.25" in text
    ui, sent = keys(st, ["down", "down", "enter"], UI(menu="games", board_offset=12))
    assert ui.menu == "kept" and sent == [Command("game_replay", "G00002", 0, scope="ann")]
    _, sent = keys(st, ["down", "g"], UI(menu="games", board_offset=12))
    assert sent == [Command("game_ghost", "G00001", scope="ann")]
    _, sent = keys(st, ["n"], UI(menu="games", board_offset=12))
    assert sent == [Command("games", "ann", 24)]
    ui, sent = keys(st, ["p", "p"], UI(menu="games", board_offset=12))
    assert sent == [Command("games", "ann", 0)] and "no more games" in ui.note
    ui, _ = keys(st, ["escape"], UI(menu="games"))
    assert ui.menu == "profile"


def test_a_kept_game_steps_through_its_moves() -> None:
    st = kept_state()
    text = shown(st, UI(menu="kept"))
    assert "ann's game G00003" in text and "after move 7 of 140" in text and "t3-f1 at 01:01" in text
    _, sent = keys(st, ["right", "left", "b", "e", "g"], UI(menu="kept"))
    step = [Command("game_replay", "G00003", i, scope="ann") for i in (8, 6, 0, 2**31 - 1)]
    assert sent == [*step, Command("game_ghost", "G00003", scope="ann")]
    ui, _ = keys(st, ["escape"], UI(menu="kept"))
    assert ui.menu == "games"
    # a live room's replay is not a kept one: it does not land on this screen
    apply(st, {"t": "replay", "code": "OTHER1", "player": 1, "index": 1, "total": 2,
               "view": VIEWS["four-seasons"]}, T0)
    assert st.kept is not None and st.kept["code"] == "G00003"


def test_results_open_ones_own_profile() -> None:
    from tests.unit.client.test_screen_fit import results
    st = results(True)
    st.claimed = True
    ui, sent = press(UI(), "p", mode="results", state=st, ctx=context_of(st))
    assert ui.menu == "profile" and sent == [Command("leave"), Command("profile", st.name)]
    st.claimed = False
    assert press(UI(), "p", mode="results", state=st, ctx=context_of(st))[1] == []
