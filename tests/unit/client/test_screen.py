"""Server messages -> screen model, without a terminal."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from client.board import card
from client.keys import UI
from client.screens import render
from client.state import RaceState, apply, mode
from client.text import Screen, clean, text_lines
from tests.support.samples import VIEWS
from tests.support.serverdata import layout, welcome

T0 = 1_000_000  # local clock in the tests (ms)
GLYPHS = "\u2663\u2660\u2665\u2666\u00b7\u2588\u2591\u2500\u2026\u00d7"


def racing(view: dict[str, Any], *, names: tuple[str, ...] = ("ann", "bob"), offset: int = 0,
           progress: dict[int, int] | None = None) -> RaceState:
    """A state in the middle of a race (started 61 s ago on the server's clock)."""
    st = RaceState(server="ws://test", name=names[0])
    server_now = T0 + offset
    apply(st, welcome(server_now), T0)
    apply(st, {"t": "joined", "code": "K7QX2M", "player": 1, "token": "x"}, T0)
    players = [{"player": i + 1, "name": n, "ready": True, "connected": True} for i, n in enumerate(names)]
    apply(st, {"t": "room", "code": "K7QX2M", "variant": view["variant"], "phase": "racing",
               "players": players, "starts_at": server_now - 61_000, "ends_at": server_now + 839_000,
               "total_cards": view["total_cards"], "server_time": server_now,
               "layout": layout(view["variant"])}, T0)
    apply(st, {"t": "view", "v": 3, "seq": None, "view": view}, T0)
    for n, fc in (progress or {}).items():
        apply(st, {"t": "progress", "player": n, "foundation_cards": fc, "total_cards": view["total_cards"],
                   "moves": 12, "status": "in_progress"}, T0)
    return st


def lines(st: RaceState, ui: UI | None = None, **kw: Any) -> list[str]:
    return text_lines(render(st, ui or UI(), now_ms=T0, **kw))


def line_with(rows: list[str], *needles: str) -> str:
    for row in rows:
        if all(n in row for n in needles):
            return row
    raise AssertionError(f"no line has all of {needles}:\n" + "\n".join(rows))


def in_order(row: str, *parts: str) -> bool:
    at = -1
    for p in parts:
        i = row.find(p, at + 1)
        if i < 0:
            return False
        at = i
    return True


def frags(screen: Screen) -> list[tuple[str, str]]:
    return [f for line in screen for f in line]


# -- layouts ----------------------------------------------------------------------------------
def test_cross_layout_puts_foundations_in_the_corners() -> None:
    rows = lines(racing(VIEWS["four-seasons"]))
    top = line_with(rows, "[f1]", "[f2]")
    middle = line_with(rows, "[2]", "[3]", "[4]")
    bottom = line_with(rows, "[f3]", "[f4]")
    assert in_order(top, "[f1]", "[1]", "[f2]")
    assert in_order(middle, "[2]", "[3]", "[4]")
    assert in_order(bottom, "[f3]", "[5]", "[f4]")
    assert rows.index(top) < rows.index(middle) < rows.index(bottom)
    assert " 2\u2666" in top  # t1 (top of the cross) holds 2D
    assert in_order(middle, "[2]", "9\u2665", "[3]", "J\u2663", "[4]", "5\u2666")
    assert in_order(bottom, "[5]", "7\u2665", "[f4]", "J\u2666")  # the base card in the diamonds corner
    stock = line_with(rows, "stock")
    assert "stock 46" in stock and "no redeal left" in stock and "base J" in stock
    assert "Four Seasons" in rows[0] and "K7QX2M" in rows[0]


@pytest.mark.parametrize("variant", ["four-seasons-1883", "vanishing-cross", "four-seasons-redeal",
                                     "czarina", "corners"])
def test_every_cross_variant_uses_the_cross(variant: str) -> None:
    view = copy.deepcopy(VIEWS["four-seasons"])
    view["variant"] = variant
    rows = lines(racing(view))
    assert in_order(line_with(rows, "[f1]"), "[f1]", "[1]", "[f2]")


def test_simplicity_has_two_rows_of_six() -> None:
    view = VIEWS["simplicity"]
    rows = lines(racing(view))
    found = line_with(rows, "[f1]", "[f2]", "[f3]", "[f4]")
    top = line_with(rows, "[1]", "[6]")
    bottom = line_with(rows, "[7]", "[=]")
    assert in_order(top, "[1]", "[2]", "[3]", "[4]", "[5]", "[6]")
    assert in_order(bottom, "[7]", "[8]", "[9]", "[0]", "[-]", "[=]")
    assert rows.index(found) < rows.index(top) < rows.index(bottom)
    # cards sit under their pile's label, in columns
    top_cards = rows[rows.index(top) + 1]
    assert top_cards.index("2\u2666") - top.index("[1]") == top_cards.index("9\u2665") - top.index("[2]")
    bottom_cards = rows[rows.index(bottom) + 1]
    assert in_order(bottom_cards, "5\u2665", "K\u2666", "K\u2663", "9\u2660", "5\u2660", "A\u2666")


def test_simplicity_long_columns_show_every_card() -> None:
    view = copy.deepcopy(VIEWS["simplicity"])
    view["piles"]["t1"] = ["KS", "QH", "JC", "TD", "9S", "8H", "7C", "6D", "5S"]
    rows = lines(racing(view), height=40)
    top = line_with(rows, "[1]", "[6]")
    column = [r[:8] for r in rows[rows.index(top) + 1: rows.index(top) + 10]]
    assert column == [f" {c:>3}" .ljust(8)[:8] for c in
                      ("K\u2660", "Q\u2665", "J\u2663", "10\u2666", "9\u2660", "8\u2665", "7\u2663",
                       "6\u2666", "5\u2660")]
    # at 80x24 the columns would not fit: the piles lie down in rows, every card still there
    rows = lines(racing(view), height=24)
    assert len(rows) <= 24
    assert in_order(line_with(rows, "[1]"), "K\u2660", "Q\u2665", "J\u2663", "10\u2666", "9\u2660")
    assert "5\u2660" in "\n".join(rows)


def test_corner_stones_columns_with_the_foundations_between() -> None:
    view = copy.deepcopy(VIEWS["corner-stones-play"])
    view["piles"]["f5"] = ["KD", "QD"]
    view["piles"]["f4"] = ["AC"]
    rows = lines(racing(view))
    left_keys, right_keys = "123456", "7890-="
    board = [line_with(rows, f"[{left_keys[r]}]", f"[{right_keys[r]}]") for r in range(6)]
    for r, row in enumerate(board):
        assert row.lstrip().startswith(f"[{left_keys[r]}]")
        assert row.rstrip().endswith(f"[{right_keys[r]}]")
        if 1 <= r <= 4:
            assert in_order(row, f"[{left_keys[r]}]", f"[f{r}]", f"[f{r + 4}]", f"[{right_keys[r]}]")
        else:
            assert "[f" not in row
    assert in_order(board[1], "[f1]", "[f5]", "Q\u2666", "[8]")  # row 1's King foundation
    assert in_order(board[4], "[f4]", "A\u2663", "[f8]", "[-]")  # row 4's Ace foundation
    # every card is there: t1's nine on two lines, its top card last; t7 mirrored, its top by the centre
    first = rows.index(board[0])
    assert in_order(board[0], "3\u2666", "6\u2663", "A\u2663", "6\u2665", "4\u2665", "4\u2660")
    assert rows[first + 1][:30].split() == ["6\u2660", "K\u2660", "K\u2665"]
    assert board[0][30:].split()[:3] == ["5\u2666", "5\u2666", "3\u2663"]  # t7 = ... 3C 5D 5D
    assert "+" not in "".join(board)
    assert "the deal is done" in "\n".join(rows)


def test_corner_stones_deal_phase_shows_the_next_pile() -> None:
    view = VIEWS["corner-stones-deal"]
    st = racing(view)
    screen = render(st, UI(), now_ms=T0)
    rows = text_lines(screen)
    assert "dealing: next card to [7]" in "\n".join(rows)
    assert ("class:next", "[7]") in frags(screen)
    assert "space deals one, n a round, N all" in "\n".join(rows)


def test_betsy_ross_indicators_above_the_foundations() -> None:
    view = VIEWS["betsy-ross"]
    rows = lines(racing(view))
    ind = line_with(rows, "i1", "i2", "i3", "i4")
    found = line_with(rows, "[f1]", "[f2]", "[f3]", "[f4]")
    assert rows.index(ind) + 1 == rows.index(found)
    assert in_order(ind, "i1", "A\u2663", "i2", "2\u2665", "i3", "3\u2666", "i4", "4\u2660")
    assert in_order(found, "[f1]", "2\u2663", "[f2]", "4\u2666", "[f3]", "6\u2665", "[f4]", "8\u2663")
    stock = line_with(rows, "stock")
    assert "stock 43" in stock and "J\u2666" in stock and "(1)" in stock and "redeals left 2" in stock


# -- cards, colours, ascii ---------------------------------------------------------------------------
def test_cards_are_rank_and_suit_glyph_in_red_and_black() -> None:
    assert card("JD") == ("class:card.red", " J\u2666")
    assert card("TH") == ("class:card.red", "10\u2665")
    assert card("AS") == ("class:card.black", " A\u2660")
    assert card("7C") == ("class:card.black", " 7\u2663")
    assert card("TS", ascii_only=True) == ("class:card.black", " TS")
    assert card("X\x1b[2J\x07Y") == ("class:card", " XY")  # junk is shown as clean text, never obeyed


def test_ascii_mode_draws_no_glyphs() -> None:
    for name, view in VIEWS.items():
        st = racing(view, progress={2: 20})
        text = "\n".join(lines(st, UI(pending="t1"), ascii_only=True))
        assert not any(g in text for g in GLYPHS), name
        assert text.isascii(), name
    text = "\n".join(lines(racing(VIEWS["four-seasons"]), ascii_only=True))
    assert " JD" in text and " 2D" in text and "#" in "\n".join(
        lines(racing(VIEWS["four-seasons"], progress={2: 26}), ascii_only=True))


# -- escaping ---------------------------------------------------------------------------------------------
EVIL = "\x1b]0;owned\x07ev\x1b[31mil\x9b2J\u202e\x00\r\n\x1bc"


def test_clean_strips_escape_and_control_characters() -> None:
    assert clean(EVIL) == "evil  "
    assert clean("a\tb") == "a b"
    assert clean("\x1bP+q\x1b\\ok") == "ok"
    assert clean("nam\u200be") == "name"  # zero-width and bidi controls go too
    assert clean("x" * 30, 10) == "x" * 9 + "\u2026"
    assert clean(12) == "12"


def test_names_and_server_texts_are_neutralised() -> None:
    st = racing(VIEWS["four-seasons"], names=("ann", EVIL), progress={2: 3})
    apply(st, {"t": "error", "code": "illegal_move", "message": "bad \x1b[2Jthing\x07", "seq": 4}, T0)
    screen = render(st, UI(), now_ms=T0)
    for _, text in frags(screen):
        assert not any(ch in text for ch in "\x1b\x07\x9b\u202e\x00\r\n"), repr(text)
    rows = text_lines(screen)
    assert "evil" in line_with(rows, "12 moves")
    assert "bad thing" in "\n".join(rows)
    # in the room list and the results as well
    room_state = RaceState(server="ws://x", name="ann")
    apply(room_state, {"t": "joined", "code": "K7\x1b[5mQX", "player": 1, "token": "t"}, T0)
    apply(room_state, {"t": "room", "code": "K7\x1b[5mQX", "variant": "czarina\x1b[1m", "phase": "lobby",
                       "players": [{"player": 1, "name": "ann"}, {"player": 2, "name": EVIL}]}, T0)
    for st2 in (room_state,):
        for _, text in frags(render(st2, UI(), now_ms=T0)):
            assert "\x1b" not in text and "\x07" not in text
    apply(room_state, {"t": "results", "code": "K7\x1b[5mQX", "deal": "1\x1b[H",
                       "ranking": [{"place": 1, "player": 2, "name": EVIL, "status": "won\x1b[2J"}]}, T0)
    for _, text in frags(render(room_state, UI(), now_ms=T0)):
        assert "\x1b" not in text and "\x07" not in text


# -- highlights and input line -------------------------------------------------------------------------------
def test_legal_targets_are_highlighted_after_the_first_key() -> None:
    view = copy.deepcopy(VIEWS["four-seasons"])
    view["legal_moves"] = ["t3-f1", "t3-t2", "draw"]
    st = racing(view)
    plain = frags(render(st, UI(), now_ms=T0))
    assert not any(style == "class:target" for style, _ in plain)
    chosen = frags(render(st, UI(pending="t3"), now_ms=T0))
    assert ("class:selected", "[3]") in chosen
    assert {text for style, text in chosen if style == "class:target"} == {"[f1]", "[2]"}
    only_f = frags(render(st, UI(pending="t3", want_foundation=True), now_ms=T0))
    assert {text for style, text in only_f if style == "class:target"} == {"[f1]"}


def test_typed_move_and_notes_are_shown() -> None:
    st = racing(VIEWS["four-seasons"])
    rows = lines(st, UI(text="t3-f", text_purpose="move"))
    assert "move: t3-f" in "\n".join(rows)
    rows = lines(st, UI(note="which foundation? press its number"))
    assert "which foundation?" in "\n".join(rows)


def test_help_screen() -> None:
    rows = lines(racing(VIEWS["four-seasons"]), UI(help=True))
    text = "\n".join(rows)
    assert "How to play" in text and "w-t3" in text and "deal:round" in text


# -- clock, progress, status ---------------------------------------------------------------------------------
def test_race_clock_uses_the_server_clock() -> None:
    # the local clock is 5 minutes behind the server's: the clock must not care
    st = racing(VIEWS["four-seasons"], offset=300_000)
    assert "01:01 elapsed" in lines(st)[0] and "13:59 left" in lines(st)[0]
    assert st.clock_offset_ms == 300_000


def test_opponents_are_progress_bars_with_status() -> None:
    st = racing(VIEWS["four-seasons"], names=("ann", "bob", "cy"), progress={2: 26})
    apply(st, {"t": "progress", "player": 3, "foundation_cards": 52, "total_cards": 52, "moves": 80,
               "status": "won"}, T0)
    rows = lines(st)
    bob = line_with(rows, "bob")
    assert "\u2588" * 10 + "\u2591" * 10 in bob and "26/52" in bob and "racing" in bob
    cy = line_with(rows, "cy ")
    assert "\u2588" * 20 in cy and "won" in cy and "80 moves" in cy
    me = line_with(rows, "(you)")
    assert "1/52" in me


def test_own_game_over_is_announced() -> None:
    view = copy.deepcopy(VIEWS["four-seasons"])
    view["status"] = "dead"
    assert "No moves left" in "\n".join(lines(racing(view)))


def test_reconnecting_banner() -> None:
    st = racing(VIEWS["four-seasons"])
    st.conn, st.attempt = "reconnecting", 3
    assert "reconnecting\u2026 (attempt 3)" in lines(st)[1]
    assert "reconnecting... (attempt 3)" in lines(st, ascii_only=True)[1]


# -- other screens ---------------------------------------------------------------------------------
def test_lobby_and_variant_list() -> None:
    st = RaceState(server="ws://host:1", name="ann")
    apply(st, welcome(T0), T0)
    assert mode(st) == "lobby"
    text = "\n".join(lines(st))
    for item in ("Quick race", "Create a private room", "Join by code", "Variants and rules", "Quit"):
        assert item in text
    assert "connected to ws://host:1 as ann" in text
    picked = "\n".join(lines(st, UI(menu="pick", purpose="browse", cursor=8)))
    assert "Betsy Ross" in picked and "Corner Stones" in picked and "Simplicity" in picked
    assert "indicator row" in picked  # the selected variant's paragraph


def test_room_shows_the_code_to_share_then_the_countdown() -> None:
    st = RaceState(server="ws://x", name="ann")
    apply(st, {"t": "joined", "code": "K7QX2M", "player": 1, "token": "t"}, T0)
    apply(st, {"t": "room", "code": "K7QX2M", "variant": "four-seasons", "players_max": 2, "private": True,
               "phase": "lobby", "players": [{"player": 1, "name": "ann", "ready": False}],
               "starts_at": None, "ends_at": None, "server_time": T0}, T0)
    assert mode(st) == "room"
    text = "\n".join(lines(st))
    assert "Share this code:  K7QX2M" in text and "ann (you)" in text and "not ready" in text
    apply(st, {"t": "room", "code": "K7QX2M", "variant": "four-seasons", "phase": "countdown",
               "players": [{"player": 1, "name": "ann", "ready": True}, {"player": 2, "name": "bob",
                                                                          "ready": True}],
               "starts_at": T0 + 2500, "ends_at": T0 + 902_500, "server_time": T0}, T0)
    assert mode(st) == "countdown"
    assert "Starting in 3" in "\n".join(lines(st))
    assert "Go!" in "\n".join(text_lines(render(st, UI(), now_ms=T0 + 2600)))


def test_results_table() -> None:
    st = racing(VIEWS["four-seasons"])
    apply(st, {"t": "results", "code": "K7QX2M", "variant": "four-seasons", "deal": "123",
               "ranking": [
                   {"place": 1, "player": 2, "name": "bob", "won": True, "status": "won", "time_ms": 252_000,
                    "foundation_cards": 52, "total_cards": 52, "moves": 153},
                   {"place": 2, "player": 1, "name": "ann", "won": False, "status": "timed_out",
                    "time_ms": 61_000, "foundation_cards": 31, "total_cards": 52, "moves": 201}]}, T0)
    assert mode(st) == "results"
    rows = lines(st)
    assert "deal #123" in "\n".join(rows)
    header = line_with(rows, "place", "player", "time", "moves", "foundation")
    first, second = rows[rows.index(header) + 1], rows[rows.index(header) + 2]
    assert in_order(first, "1", "bob", "04:12", "153", "52/52", "won")
    assert in_order(second, "2", "ann *", "01:01", "201", "31/52", "out of time")
    assert "m rematch" in "\n".join(rows)


def test_quiet_errors_and_accepted_moves_clear_the_complaint() -> None:
    st = racing(VIEWS["four-seasons"])
    apply(st, {"t": "error", "code": "stale_version", "message": "version 3, not 2", "seq": 5}, T0)
    assert st.notice == ""
    apply(st, {"t": "error", "code": "illegal_move", "message": "the waste is empty", "seq": 6}, T0)
    assert "the waste is empty" in "\n".join(lines(st))
    apply(st, {"t": "view", "v": 4, "seq": 7, "view": VIEWS["four-seasons"]}, T0)
    assert st.notice == "" and st.v == 4


def test_rematch_moves_to_the_new_room() -> None:
    st = racing(VIEWS["four-seasons"])
    apply(st, {"t": "results", "code": "K7QX2M", "ranking": []}, T0)
    apply(st, {"t": "rematch", "code": "P2ZT9A"}, T0)
    apply(st, {"t": "joined", "code": "P2ZT9A", "player": 1, "token": "t2"}, T0)
    assert st.view is None and st.results is None and mode(st) == "room"
    apply(st, {"t": "room", "code": "K7QX2M", "phase": "finished"}, T0)  # late news of the old room
    assert st.room is None


def test_an_older_progress_never_replaces_a_newer_one() -> None:
    state = RaceState()
    for moves, fc in ((3, 5), (2, 4), (3, 6)):  # the 2 comes late
        apply(state, {"t": "progress", "player": 2, "moves": moves, "foundation_cards": fc,
                      "total_cards": 52, "status": "in_progress"}, 0)
    assert state.progress[2]["moves"] == 3 and state.progress[2]["foundation_cards"] == 6
