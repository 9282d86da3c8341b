"""Key presses + the current view -> move text and UI actions, without a terminal."""

from __future__ import annotations

import copy
from dataclasses import replace
from typing import Any

from client.keys import (
    UI,
    Command,
    Context,
    choose_move,
    context_of,
    draw_action,
    pile_key,
    settle,
    targets,
)
from client.screens import press
from client.state import BOARD_PAGE, RaceState
from tests.support.samples import VIEWS
from tests.support.serverdata import VARIANTS


def view_with(legal: list[str], base: str = "four-seasons", **extra: Any) -> dict[str, Any]:
    view = copy.deepcopy(VIEWS[base])
    view["legal_moves"] = legal
    view.update(extra)
    return view


def keys(seq: list[str], *, mode: str = "race", view: dict[str, Any] | None = None,
         ui: UI | None = None, ctx: Context | None = None) -> tuple[UI, list[Command]]:
    ui = ui or UI()
    ctx = ctx or Context()
    ctx = ctx._replace(variants=ctx.variants or VARIANTS)  # what the server's welcome listed
    sent: list[Command] = []
    for k in seq:
        ui, commands = press(ui, k, mode=mode, view=view, ctx=ctx)
        sent += commands
    return ui, sent


def moves(commands: list[Command]) -> list[str]:
    return [c.arg for c in commands if c.name == "move"]


# -- pile keys ------------------------------------------------------------------------------------
def test_pile_key_then_target_sends_the_move() -> None:
    view = view_with(["t3-f1", "t2-t1", "draw"])
    ui, sent = keys(["2", "1"], view=view)
    assert moves(sent) == ["t2-t1"] and ui.pending is None
    _, sent = keys(["w", "3"], view=view)
    assert moves(sent) == ["w-t3"]  # not legal here: still sent, the server says why
    _, sent = keys(["s", "4"], view=view)
    assert moves(sent) == ["s-t4"]


def test_first_key_selects_and_highlights_legal_targets() -> None:
    view = view_with(["t3-f1", "t3-t2", "t5-t1", "draw"])
    ui, sent = keys(["3"], view=view)
    assert sent == [] and ui.pending == "t3"
    assert targets(ui, view) == {"f1", "t2"}
    ui, _ = keys(["4"], view=view)
    assert ui.pending == "t4" and targets(ui, view) == frozenset() and "no legal move" in ui.note
    assert targets(UI(), view) == frozenset()


def test_escape_and_the_same_key_cancel() -> None:
    view = view_with(["t3-f1"])
    ui, sent = keys(["3", "escape"], view=view)
    assert ui.pending is None and sent == []
    ui, sent = keys(["3", "3"], view=view)
    assert ui.pending is None and sent == []


def test_f_picks_the_one_legal_foundation_or_asks_which() -> None:
    view = view_with(["t3-f1", "draw"])
    _, sent = keys(["3", "f"], view=view)
    assert moves(sent) == ["t3-f1"]
    two = view_with(["w-f1", "w-f3"], base="betsy-ross")
    ui, sent = keys(["w", "f"], view=two)
    assert sent == [] and ui.want_foundation and targets(ui, two) == {"f1", "f3"}
    _, sent = keys(["3"], view=two, ui=ui)
    assert moves(sent) == ["w-f3"]
    # no legal foundation: a digit still names one and the server explains
    _, sent = keys(["2", "f", "4"], view=view)
    assert moves(sent) == ["t2-f4"]
    # f then a digit as the source: only where a foundation card may move (Corner Stones' PySolFC rules)
    ui, _ = keys(["f", "2"], view=view)
    assert ui.pending is None and "no card can move from f2" in ui.note
    ui, _ = keys(["f", "2"], view=view_with(["f2-f6"], base="corner-stones-play"))
    assert ui.pending == "f2"


def test_twelve_pile_keys() -> None:
    view = view_with(["t9-t12", "t10-t11"], base="simplicity")
    assert moves(keys(["9", "="], view=view)[1]) == ["t9-t12"]
    assert moves(keys(["0", "-"], view=view)[1]) == ["t10-t11"]
    assert [pile_key(f"t{k}") for k in range(1, 13)] == list("1234567890-=")
    assert pile_key("f3") == "f3" and pile_key("w") == "w"
    # in the cross there is no t11: '-' after a pile key starts typing the move
    ui, sent = keys(["w", "-"], view=view_with([]))
    assert sent == [] and ui.text == "w-" and ui.text_purpose == "move"


def test_runs_choose_the_longest_legal_run() -> None:
    legal = ["t1-t4", "t1-t4:3", "t1-t4:2", "t2-t4"]
    assert choose_move("t1", "t4", legal) == "t1-t4:3"
    assert choose_move("t2", "t4", legal) == "t2-t4"
    assert choose_move("t3", "t4", legal) == "t3-t4"


# -- actions --------------------------------------------------------------------------------------
def test_space_draws_or_deals_and_a_redeal_has_its_own_key() -> None:
    assert moves(keys([" "], view=view_with(["t3-f1", "draw"]))[1]) == ["draw"]
    # a redeal spends a pass: space never does it, it only says how
    empty = view_with(["redeal"], stock_count=0, waste_count=9, passes_left=2)
    ui, sent = keys([" "], view=empty)
    assert sent == [] and ui.note == "the stock is empty: R turns the waste over (2 left)"
    assert moves(keys(["R"], view=empty)[1]) == ["redeal"]
    cs = view_with(["deal", "deal:round", "deal:all"], base="corner-stones-deal")
    assert moves(keys([" "], view=cs)[1]) == ["deal"]
    assert moves(keys(["n"], view=cs)[1]) == ["deal:round"]
    assert moves(keys(["N"], view=cs)[1]) == ["deal:all"]
    # nothing legal: a sensible guess, which the server answers with its reason
    assert draw_action(view_with([], stock_count=0, waste_count=3)) == "draw"
    assert draw_action(view_with([])) == "draw"
    assert draw_action(view_with([], base="corner-stones-play")) == "deal"


def test_typed_moves() -> None:
    view = view_with(["t3-f1"])
    _, sent = keys([":", "t", "3", "-", "f", "1", "enter"], view=view)
    assert moves(sent) == ["t3-f1"]
    # a letter that is no hotkey starts the input line by itself
    ui, sent = keys(list("t1-t4:3"), view=view)
    assert sent == [] and ui.text == "t1-t4:3"
    ui, sent = keys(["enter"], view=view, ui=ui)
    assert moves(sent) == ["t1-t4:3"] and ui.text is None
    _, sent = keys(list("draw") + ["enter"], view=view_with(["t3-f1", "draw"]))
    assert moves(sent) == ["draw"]
    # a letter that starts no legal move is no move: it says so and leaves the digits to the piles
    ui, sent = keys(["z", "3", "4"], view=view_with(["t3-f1", "t3-t4"]))
    assert moves(sent) == ["t3-t4"] and ui.text is None
    ui, sent = keys(["z"], view=view)
    assert sent == [] and ui.text is None and ui.note.startswith("z is not a key here")
    _, sent = keys(["enter"] + list("DEAL:ALL") + ["enter"], view=view)
    assert moves(sent) == ["deal:all"]
    ui, sent = keys([":", "x", "y", "backspace", "escape"], view=view)
    assert sent == [] and ui.text is None
    ui, _ = keys([":", "a", "b", "backspace"], view=view)
    assert ui.text == "a"


def test_resign_and_quit_ask_first() -> None:
    view = view_with([])
    ui, sent = keys(["X"], view=view)
    assert sent == [] and ui.confirm == "resign"
    _, sent = keys(["y"], view=view, ui=ui)
    assert sent == [Command("resign")]
    _, sent = keys(["X", "n"], view=view)
    assert sent == []
    _, sent = keys(["q", "y"], view=view)
    assert sent == [Command("quit")]
    assert keys(["c-c"], view=view)[1] == [Command("quit")]


def test_help_toggles() -> None:
    ui, _ = keys(["?"], view=view_with([]))
    assert ui.help
    ui, sent = keys(["3"], view=view_with([]), ui=ui)
    assert not ui.help and ui.pending is None and sent == []  # the key only closed the help


# -- lobby, room, results ------------------------------------------------------------------------------
def test_lobby_quick_race_picks_a_variant() -> None:
    ui, sent = keys(["1"], mode="lobby")
    assert ui.menu == "pick" and ui.purpose == "quick" and sent == []
    _, sent = keys(["1", "enter"], mode="lobby")
    assert sent == [Command("quick", "four-seasons")]
    _, sent = keys(["1", "down", "down", "enter"], mode="lobby")
    assert sent == [Command("quick", VARIANTS[2].id)]
    _, sent = keys(["1", "9"], mode="lobby")
    assert sent == [Command("quick", "betsy-ross")]
    ui, sent = keys(["1", "escape"], mode="lobby")
    assert ui.menu == "main" and sent == []


def test_lobby_create_asks_for_players() -> None:
    ui, sent = keys(["2", "8"], mode="lobby")
    assert sent == [] and ui.text_purpose == "players" and ui.variant == "corner-stones"
    _, sent = keys(["enter"], mode="lobby", ui=ui)
    assert sent == [Command("create", "corner-stones", 2)]
    _, sent = keys(["4", "enter"], mode="lobby", ui=ui)
    assert sent == [Command("create", "corner-stones", 4)]
    ui2, sent = keys(["9", "enter"], mode="lobby", ui=ui)
    assert sent == [] and "2 to 8" in ui2.note


def test_lobby_join_by_code_and_menu_keys() -> None:
    _, sent = keys(["3", "k", "7", "q", "x", "2", "m", "enter"], mode="lobby")
    assert sent == [Command("join", "K7QX2M")]
    _, sent = keys(["down", "down", "enter", "a", "enter"], mode="lobby")
    assert sent == [Command("join", "A")]
    ui, sent = keys(["4"], mode="lobby")
    assert ui.purpose == "browse"
    ui, sent = keys(["3"], mode="lobby", ui=ui)
    assert sent == [] and ui.cursor == 2  # browsing only moves the cursor
    assert keys(["q"], mode="lobby")[1] == [Command("quit")]


def test_room_and_results_keys() -> None:
    assert keys(["r"], mode="room")[1] == [Command("ready")]
    assert keys(["l"], mode="room")[1] == [Command("leave")]
    assert keys(["r"], mode="countdown")[1] == []
    assert keys(["m"], mode="results")[1] == [Command("rematch")]
    assert keys(["n"], mode="results")[1] == [Command("decline")]  # no rematch (or withdraw one)
    assert keys(["l"], mode="results")[1] == [Command("leave")]
    assert keys(["q"], mode="results")[1] == [Command("quit")]


def test_a_new_screen_drops_the_old_selection() -> None:
    ui = UI(menu="pick", cursor=3, pending="t3", want_foundation=True, confirm="resign", note="x",
            text="t3-", text_purpose="move", help=True)
    fresh = settle(ui)
    assert (fresh.menu, fresh.cursor, fresh.pending, fresh.want_foundation, fresh.confirm, fresh.note,
            fresh.text) == ("main", 0, None, False, "", "", None)


# -- names, the daily, boards ------------------------------------------------------------------------
def test_lobby_claim_your_name() -> None:
    ctx = Context(name="ann")
    ui, sent = keys(["7"], mode="lobby", ctx=ctx)
    assert sent == [] and ui.text == "ann" and ui.text_purpose == "name"
    _, sent = keys(["enter"], mode="lobby", ui=ui, ctx=ctx)
    assert sent == [Command("claim", "ann")]
    typed, _ = keys(["backspace"] * 3 + list("Zed"), mode="lobby", ui=ui, ctx=ctx)
    _, sent = keys(["enter"], mode="lobby", ui=typed, ctx=ctx)
    assert sent == [Command("claim", "Zed")]
    too_long = replace(ui, text="x" * 25)
    ui2, sent = keys(["enter"], mode="lobby", ui=too_long, ctx=ctx)
    assert sent == [] and "1 to 24" in ui2.note
    ui3, sent = keys(["7"], mode="lobby", ctx=Context(name="ann", claimed=True))
    assert sent == [] and ui3.text is None and "already yours" in ui3.note


def test_todays_challenge_picks_a_variant_then_starts_it() -> None:
    ui, sent = keys(["5"], mode="lobby")
    assert ui.menu == "pick" and ui.purpose == "daily" and sent == []
    ui, sent = keys(["5"], mode="lobby", ui=ui)  # Czarina
    assert ui.menu == "daily" and ui.variant == "czarina" and sent == [Command("daily_info", "czarina")]
    assert keys(["r"], mode="lobby", ui=ui)[1] == [Command("daily_info", "czarina")]
    started, sent = keys(["enter"], mode="lobby", ui=ui)
    assert sent == [Command("daily", "czarina")] and "few seconds" in started.note
    assert keys(["s"], mode="lobby", ui=ui)[1] == [Command("daily", "czarina")]
    board, sent = keys(["b"], mode="lobby", ui=ui)
    assert sent == [Command("board", "czarina", 0, "daily")] and board.menu == "board"
    wins, sent = keys(["w"], mode="lobby", ui=ui)
    assert sent == [Command("board", "czarina", 0, "wins")] and wins.board_kind == "wins"
    back, _ = keys(["escape"], mode="lobby", ui=ui)
    assert back.menu == "pick" and back.purpose == "daily" and back.cursor == 4


def test_boards_menu_and_paging() -> None:
    ui, sent = keys(["6"], mode="lobby")
    assert ui.menu == "boards" and sent == []
    picking, sent = keys(["2"], mode="lobby", ui=ui)
    assert (picking.menu, picking.purpose, sent) == ("pick", "board-rating", [])  # ratings are per variant
    rating, sent = keys(["1", "enter"], mode="lobby", ui=picking)  # 1 could begin 1x: Enter ends it
    assert sent == [Command("board", "four-seasons", 0, "rating")]
    assert (rating.menu, rating.board_kind) == ("board", "rating")
    ctx = Context(board_total=40)
    page2, sent = keys(["n"], mode="lobby", ui=rating, ctx=ctx)
    assert sent == [Command("board", "four-seasons", BOARD_PAGE, "rating")]
    assert page2.board_offset == BOARD_PAGE
    page3, sent = keys(["right"], mode="lobby", ui=page2, ctx=ctx)
    assert sent == [Command("board", "four-seasons", 2 * BOARD_PAGE, "rating")]
    last, sent = keys(["n"], mode="lobby", ui=page3, ctx=ctx)
    assert sent == [] and "last page" in last.note and last.board_offset == 2 * BOARD_PAGE
    _, sent = keys(["p"], mode="lobby", ui=page3, ctx=ctx)
    assert sent == [Command("board", "four-seasons", BOARD_PAGE, "rating")]
    first, sent = keys(["p"], mode="lobby", ui=rating, ctx=ctx)
    assert sent == [] and "first page" in first.note
    again = keys(["r"], mode="lobby", ui=page2, ctx=ctx)[1]
    assert again == [Command("board", "four-seasons", BOARD_PAGE, "rating")]
    left, sent = keys(["escape"], mode="lobby", ui=page2, ctx=ctx)
    assert sent == [Command("unwatch")] and left.menu == "boards"
    # the daily board and the wins board go through a variant
    _, sent = keys(["6", "1", "2"], mode="lobby")
    assert sent == [Command("board", "four-seasons-1883", 0, "daily")]
    _, sent = keys(["6", "3", "9"], mode="lobby")
    assert sent == [Command("board", "betsy-ross", 0, "wins")]
    picking, _ = keys(["6", "1", "escape"], mode="lobby")
    assert picking.menu == "boards"


def test_results_of_a_daily_share_and_show_the_board() -> None:
    share = "Patience Race daily #334 \u00b7 Czarina \u00b7 won"
    ctx = Context(daily=True, variant="czarina", share=share)
    ui, sent = keys(["c"], mode="results", ctx=ctx)
    assert sent == [Command("share", share)] and "copied" in ui.note
    ui, sent = keys(["m"], mode="results", ctx=ctx)
    assert sent == [] and "no rematch" in ui.note
    ui, sent = keys(["b"], mode="results", ctx=ctx)
    assert sent == [Command("leave"), Command("board", "czarina", 0, "daily")]
    assert (ui.menu, ui.board_kind, ui.variant) == ("board", "daily", "czarina")
    # back in the lobby, the board screen asked for survives the change of screen
    assert settle(ui, "lobby").menu == "board" and settle(ui, "room").menu == "main"
    # a race between claimed names: b shows the ratings of the race's variant
    _, sent = keys(["b"], mode="results", ctx=Context(variant="czarina"))
    assert sent == [Command("leave"), Command("board", "czarina", 0, "rating")]
    assert keys(["c"], mode="results", ctx=Context())[1] == []


def test_context_of_a_state() -> None:
    st = RaceState(name="ann", claimed=True)
    st.code = "K"
    st.room = {"variant": "czarina", "daily": "2026-11-30"}
    st.results = {"variant": "czarina", "daily": "2026-11-30", "share": "line"}
    st.board = {"kind": "rating", "total": 7}
    assert context_of(st) == Context(name="ann", claimed=True, daily=True, variant="czarina", share="line",
                                     board_total=7)
    assert context_of(RaceState()) == Context()


def test_a_ladder_board_shows_this_season_and_the_players_neighbours() -> None:
    rating, _ = keys(["6", "2", "1", "enter"], mode="lobby")
    season, sent = keys(["s"], mode="lobby", ui=rating)
    assert sent == [Command("board", "four-seasons", 0, "rating", "season")]
    near, sent = keys(["m"], mode="lobby", ui=season)
    assert sent == [Command("board", "four-seasons", 0, "rating", "near,season")]
    ui, sent = keys(["n"], mode="lobby", ui=near, ctx=Context(board_total=40))
    assert sent == [] and "around you" in ui.note  # no pages around one's own rank
    again = keys(["r"], mode="lobby", ui=near)[1]
    assert again == [Command("board", "four-seasons", 0, "rating", "near,season")]
    back, sent = keys(["s"], mode="lobby", ui=near)
    assert sent == [Command("board", "four-seasons", 0, "rating", "near")]
    # a daily board is a day's: no season, no neighbours by these keys
    daily, sent = keys(["6", "1", "1", "enter"], mode="lobby")
    assert sent == [Command("board", "four-seasons", 0, "daily")] and daily.menu == "board"
    assert keys(["s"], mode="lobby", ui=daily)[1] == []
