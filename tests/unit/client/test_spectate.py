"""Watching, ghosts and replays in the client, without a terminal or a server."""

from __future__ import annotations

from client.keys import UI, Command, Context
from client.screens import press, render
from client.screens.line import ghost_target
from client.screens.replay import answer as replay_press
from client.screens.replay import diverged, open_replay
from client.state import RaceState, apply, mode, players_of
from client.text import text_lines

T0 = 1_000_000


def results_state(me: int | None = 1) -> RaceState:
    st = RaceState(name="ann")
    if me is not None:
        apply(st, {"t": "joined", "code": "R1", "player": me, "token": "x"}, T0)
    else:
        apply(st, {"t": "watching", "code": "R1"}, T0)
    apply(st, {"t": "results", "code": "R1", "variant": "four-seasons", "deal": "7", "ranking": [
        {"place": 1, "player": 2, "name": "bob"}, {"place": 2, "player": 1, "name": "ann"}]}, T0)
    return st


def test_paths_diverge_at_the_first_differing_entry() -> None:
    assert diverged(["a", "b", "c"], ["a", "b", "d"]) == 2
    assert diverged(["x"], ["y"]) == 0
    assert diverged(["a", "b"], ["a", "b", "c"]) == 2  # one went on: the paths part there
    assert diverged(["a", "b"], ["a", "b"]) is None


def test_a_ghost_is_named_by_a_code_and_maybe_a_player() -> None:
    assert ghost_target("abc234") == ("ABC234", 0)
    assert ghost_target(" abc234 2 ") == ("ABC234", 2)
    assert ghost_target("ABC234.3") == ("ABC234", 3)
    assert ghost_target("ABC 234 x") is None and ghost_target("ABC234 9") is None


def test_lobby_keys_open_the_code_lines_and_enter_sends() -> None:
    st, ctx = RaceState(name="ann"), Context()
    ui, commands = press(UI(), "w", mode="lobby", view=None, ctx=ctx, state=st)
    assert ui.text_purpose == "watch" and not commands
    ui = UI(text="ab12cd", text_purpose="watch")
    ui, commands = press(ui, "enter", mode="lobby", view=None, ctx=ctx, state=st)
    assert commands == [Command("watch", "AB12CD")] and ui.text is None
    ui, commands = press(UI(text="ab12cd 2", text_purpose="ghost"), "enter", mode="lobby", view=None,
                         ctx=ctx, state=st)
    assert commands == [Command("ghost", "AB12CD", 2)]
    # the cursor on the menu item and Enter is the same as the key
    from client.keys import LOBBY_ITEMS
    cursor = [k for k, _, _ in LOBBY_ITEMS].index("g")
    ui, _ = press(UI(cursor=cursor), "enter", mode="lobby", view=None, ctx=ctx, state=st)
    assert ui.text_purpose == "ghost"


def test_a_spectator_sees_every_player_and_no_seat_keys() -> None:
    st = RaceState(name="cyd")
    apply(st, {"t": "watching", "code": "R1"}, T0)
    apply(st, {"t": "room", "code": "R1", "variant": "four-seasons", "phase": "racing", "starts_at": T0,
               "ends_at": T0 + 60_000, "server_time": T0, "total_cards": 52, "players": [
                   {"player": 1, "name": "ann", "connected": True},
                   {"player": 2, "name": "bob", "connected": False}]}, T0)
    apply(st, {"t": "progress", "player": 1, "status": "in_progress", "foundation_cards": 9,
               "total_cards": 52, "moves": 12, "connected": True}, T0)
    assert st.watching == "R1" and mode(st) == "countdown"
    text = "\n".join(text_lines(render(st, UI(), now_ms=T0 + 5_000)))
    assert "watching" in text and "00:55 left" in text
    assert "ann" in text and "9/52" in text and "12 moves" in text
    assert "bob" in text and "disconnected" in text
    ui, commands = press(UI(), "r", mode="countdown", view=None, ctx=Context(), state=st)
    assert not commands  # a spectator has no seat to be ready in
    _, commands = press(UI(), "l", mode="countdown", view=None, ctx=Context(), state=st)
    assert commands == [Command("leave")]


def test_a_ghost_is_a_row_like_an_opponents() -> None:
    st = RaceState(name="cyd")
    apply(st, {"t": "joined", "code": "G1", "player": 1, "token": "x"}, T0)
    apply(st, {"t": "room", "code": "G1", "players": [{"player": 1, "name": "cyd"}]}, T0)
    apply(st, {"t": "ghost", "code": "G1", "player": 2, "name": "ann", "source": "R1"}, T0)
    assert [p["name"] for p in players_of(st)] == ["cyd", "ghost: ann"]
    apply(st, {"t": "joined", "code": "G2", "player": 1, "token": "y"}, T0)
    assert st.ghost is None  # a new room: the old ghost is gone


def test_replay_keys_step_switch_and_jump_to_the_divergence() -> None:
    st = results_state()
    assert open_replay(st) == (1, 2)  # one's own game first, compared with the winner's
    ui, commands = press(UI(), "v", mode="results", view=None, ctx=Context(), state=st)
    assert commands == [Command("replay_open")]
    st.replaying = {"code": "R1", "player": 1, "index": 0, "with": 2}
    apply(st, {"t": "replay", "code": "R1", "player": 1, "index": 3, "total": 9, "move": "draw",
               "view": {"piles": {}}}, T0)
    assert st.replaying is not None and st.replaying["with"] == 2 and st.replaying["index"] == 3
    assert replay_press(st, "right")[1] == [Command("replay", "1", 4)]
    assert replay_press(st, "left")[1] == [Command("replay", "1", 2)]
    assert replay_press(st, "2")[1] == [Command("replay", "2", 3)]
    assert replay_press(st, "7")[1] == []
    note, commands = replay_press(st, "d")
    assert not commands and "on their way" in note
    apply(st, {"t": "record", "player": 1, "record": {"moves": ["a", "b", "c"]}}, T0)
    apply(st, {"t": "record", "player": 2, "record": {"moves": ["a", "x"]}}, T0)
    assert replay_press(st, "d")[1] == [Command("replay", "1", 1)]
    assert replay_press(st, "escape")[1] == [Command("replay_close")]
    text = "\n".join(text_lines(render(st, UI(), now_ms=T0)))
    assert "Replay" in text and "after move 3 of 9" in text and "paths diverge after 1 common" in text


def test_a_daily_has_no_ghost_from_its_results_and_leaving_forgets_the_replay() -> None:
    st = results_state()
    ui, commands = press(UI(), "g", mode="results", view=None, ctx=Context(daily=True), state=st)
    assert not commands and "once the day is over" in ui.note
    _, commands = press(UI(), "g", mode="results", view=None, ctx=Context(), state=st)
    assert commands == [Command("ghost", "R1")]
    st.replaying = {"code": "R1", "player": 1, "index": 0}
    st.leave_room()
    assert st.replaying is None and st.records == {} and st.watching is None
