"""Names, the daily challenge, boards and ratings: messages -> state -> screen, without a terminal."""

from __future__ import annotations

import hashlib
from typing import Any

from client.competition import board_id, reveal_check
from client.keys import UI
from client.screens import render
from client.state import RaceState, RatingChange, apply, mode
from client.text import text_lines
from tests.support.serverdata import welcome

T0 = 1_800_000_000_000
DEAL, SALT = "12345678901234567890", "ab" * 16
COMMIT = hashlib.sha256(f"{DEAL}|{SALT}".encode()).hexdigest()
SHARE = "Patience Race daily #334 \u00b7 Czarina \u00b7 won \u00b7 3:41 \u00b7 112 moves"
EVIL = "\x1b[2J\x1b]0;pwned\x07"


def lobby(claimed: bool = False, name: str = "ann") -> RaceState:
    st = RaceState(server="ws://h:1", name=name, claimed=claimed)
    apply(st, welcome(T0), T0)
    return st


def info(yesterday: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"t": "daily_info", "variant": "czarina", "date": "2026-11-30", "day": 334, "commitment": "f" * 64,
            "ends_at": T0 + 3_723_000, "yesterday": yesterday}


def revealed(**changes: Any) -> dict[str, Any]:
    y = {"date": "2026-11-29", "day": 333, "deal": DEAL, "salt": SALT, "commitment": COMMIT, "par": None,
         "check": True}
    y.update(changes)
    return y


def screen(st: RaceState, ui: UI | None = None, ascii_only: bool = False) -> str:
    return "\n".join(text_lines(render(st, ui or UI(), now_ms=T0, ascii_only=ascii_only)))


def in_daily_room(st: RaceState, ranked: bool) -> None:
    apply(st, {"t": "joined", "code": "DAY123", "player": 1, "token": "x"}, T0)
    apply(st, {"t": "room", "code": "DAY123", "variant": "czarina", "phase": "lobby", "players_max": 1,
               "private": True, "players": [{"player": 1, "name": st.name, "ready": False}],
               "daily": "2026-11-30", "ranked": ranked, "server_time": T0}, T0)


def daily_results(st: RaceState, ranked: bool, streaks: dict[str, int] | None = None) -> None:
    apply(st, {"t": "results", "code": "DAY123", "variant": "czarina", "deal": None, "daily": "2026-11-30",
               "ranked": ranked, "share": SHARE + ("" if ranked else " (practice)"), "streaks": streaks,
               "ranking": [{"place": 1, "player": 1, "name": st.name, "won": True, "status": "won",
                            "time_ms": 221_000, "foundation_cards": 52, "total_cards": 52,
                            "moves": 112}]}, T0)


# -- state ------------------------------------------------------------------------------------------
def test_claimed_daily_info_and_boards_fold_into_the_state() -> None:
    st = lobby()
    apply(st, {"t": "claimed", "name": "Ann", "key": "k"}, T0)
    assert st.claimed and st.name == "Ann" and not st.notice_error
    apply(st, info(), T0)
    assert st.daily_info["czarina"]["day"] == 334 and mode(st) == "lobby"
    apply(st, {"t": "board", "kind": "rating", "offset": 0, "total": 2,
               "entries": [{"rank": 1, "name": "Bob", "value": 2.5},
                           {"rank": 2, "name": "ann", "value": True}]},
          T0)
    assert st.board is not None and st.ratings_seen == {"bob": 2.5}


def test_rating_changes_use_the_ratings_seen_before() -> None:
    st = lobby(claimed=True)
    st.ratings_seen["ann"] = 1.0
    apply(st, {"t": "joined", "code": "R1", "player": 1, "token": "x"}, T0)
    results = {"t": "results", "code": "R1", "ranking": [], "ratings": {"ann": 2.0, "Bob": -0.5, "x": "?"}}
    apply(st, results, T0)
    assert st.rating_changes == [RatingChange("ann", 2.0, 1.0), RatingChange("Bob", -0.5, None)]
    apply(st, results, T0)  # sent again after a resume: no change of a change
    assert st.rating_changes[0] == RatingChange("ann", 2.0, 1.0)
    apply(st, {"t": "joined", "code": "R2", "player": 1, "token": "y"}, T0)
    assert st.rating_changes == []
    apply(st, {"t": "results", "code": "R2", "ranking": [], "ratings": {"ann": 2.5, "bob": 0.0}}, T0)
    assert st.rating_changes == [RatingChange("ann", 2.5, 2.0), RatingChange("bob", 0.0, -0.5)]


def test_board_ids_match_the_server_names() -> None:
    assert board_id({"kind": "rating", "variant": "czarina"}, None) == "rating:czarina"
    assert board_id({"kind": "rating"}, None) is None
    assert board_id({"kind": "wins", "variant": "czarina"}, None) == "wins:czarina"
    assert board_id({"kind": "daily", "variant": "czarina"}, {"date": "2026-11-30"}) == \
        "daily:2026-11-30:czarina"
    assert board_id({"kind": "daily", "variant": "czarina", "date": "2026-11-01"}, None) == \
        "daily:2026-11-01:czarina"
    assert board_id({"kind": "daily", "variant": "czarina"}, None) is None


def test_the_reveal_is_checked_here() -> None:
    assert reveal_check(revealed(), COMMIT) == (True, True, True)
    assert reveal_check(revealed(salt="other"), None) == (False, True, None)
    assert reveal_check(revealed(), "9" * 64).seen is False
    assert reveal_check(revealed(deal=None, check=None), None) == (None, None, None)


# -- screens ---------------------------------------------------------------------------------------
def test_lobby_shows_who_you_are_and_the_new_items() -> None:
    text = screen(lobby())
    assert "connected to ws://h:1 as ann (guest)" in text
    for item in ("5  Today's challenge", "6  Boards", "7  Claim your name"):
        assert item in text
    claimed = screen(lobby(claimed=True))
    assert "as ann (claimed)" in claimed and "7  Your name" in claimed and "ann is yours" in claimed
    typing = screen(lobby(), UI(text="ann", text_purpose="name"))
    assert "name to claim (Enter claims it): ann" in typing


def test_daily_screen_before_and_after_the_info() -> None:
    st = lobby()
    ui = UI(menu="daily", variant="czarina")
    assert "asking the server for today's deal" in screen(st, ui)
    apply(st, info(revealed()), T0)
    st.seen_commitments["2026-11-29|czarina"] = COMMIT
    text = screen(st, ui)
    assert "Today's challenge \u00b7 Czarina" in text
    assert "Day #334 \u00b7 2026-11-30 \u00b7 ends in 1:02:03" in text
    assert "Commitment  ffffffffffffffff\u2026 " in text and "f" * 17 not in text
    assert "Practice: guests are never ranked" in text
    assert f"deal {DEAL}   salt {SALT}" in text
    assert f"checked here: SHA-256(deal|salt) matches the commitment {COMMIT[:16]}\u2026" in text
    assert "the server's own check agrees" in text
    assert "the commitment this client was shown during that day" in text
    assert f"patience-server deal czarina {DEAL}" in text
    assert "Enter start" in text and "b today's board" in text
    st.claimed = True
    assert "Ranked if it is your first attempt today" in screen(st, ui)  # a server that does not say
    apply(st, {**info(revealed()), "ranked": True}, T0)
    assert "Ranked: this attempt goes on today's board" in screen(st, ui)
    apply(st, {**info(revealed()), "ranked": False}, T0)  # played already (as a guest, say)
    text = screen(st, ui)
    assert "Practice: today's deal was played already" in text and "Ranked" not in text


def test_a_reveal_that_does_not_check_out_says_so() -> None:
    st = lobby()
    apply(st, info(revealed(salt="tampered", check=False, par=31)), T0)
    st.seen_commitments["2026-11-29|czarina"] = "9" * 64
    text = screen(st, UI(menu="daily", variant="czarina"))
    assert "FAILED: SHA-256(deal|salt) does not match" in text
    assert "this client was shown another commitment that day: 9999999999999999\u2026" in text
    assert "par 31 foundation cards" in text
    apply(st, info(None), T0)
    assert "Yesterday: nothing to reveal" in screen(st, UI(menu="daily", variant="czarina"))


def test_daily_board_page_escapes_names_and_marks_yours() -> None:
    st = lobby(claimed=True)
    ui = UI(menu="board", board_kind="daily", variant="czarina")
    assert "loading\u2026" in screen(st, ui)
    apply(st, {"t": "board", "kind": "daily", "variant": "czarina", "date": "2026-11-30", "offset": 0,
               "total": 2, "entries": [
                   {"rank": 1, "name": "Ann", "won": True, "time_ms": 221_000, "moves": 112,
                    "foundation_cards": 52},
                   {"rank": 2, "name": "bob" + EVIL, "won": False, "time_ms": 100_000, "moves": 40,
                    "foundation_cards": 12}]}, T0)
    model = render(st, ui, now_ms=T0)
    text = "\n".join(text_lines(model))
    assert "Today's board \u00b7 Czarina \u00b7 2026-11-30" in text
    assert "\x1b" not in text and "\x07" not in text and "pwned" not in text  # the OSC went whole
    mine = next(line for line in model if "Ann *" in "".join(t for _, t in line))
    assert mine[0][0] == "class:me" and "won" in mine[0][1] and "03:41" in mine[0][1]
    assert "not won    01:40     40     12" in text
    assert "1-2 of 2 \u00b7 r refresh" in text and "n next page" not in text  # one page only
    # a page of another board (or offset) is not shown as this one
    assert "loading" in screen(st, UI(menu="board", board_kind="daily", variant="corners"))
    apply(st, {"t": "board", "kind": "daily", "variant": "czarina", "date": "2026-11-30", "offset": 0,
               "total": 0, "entries": []}, T0)
    assert "nobody has finished today's deal yet" in screen(st, ui)


def test_rating_and_wins_boards_page() -> None:
    st = lobby()
    entries = [{"rank": 16 + i, "name": f"p{16 + i}", "value": 10.5 - i, "provisional": i == 1}
               for i in range(15)]
    apply(st, {"t": "board", "kind": "rating", "variant": "czarina", "offset": 15, "total": 40,
               "entries": entries}, T0)
    text = screen(st, UI(menu="board", board_kind="rating", variant="czarina", board_offset=15))
    assert "Ratings \u00b7 Czarina" in text and "? provisional" in text
    assert "16-30 of 40 \u00b7 n next page \u00b7 p previous" in text
    assert "16    p16                      10.50 " in text
    assert "17    p17                       9.50?" in text  # too few races to be sure
    apply(st, {"t": "board", "kind": "wins", "variant": "czarina", "offset": 0, "total": 1,
               "entries": [{"rank": 1, "name": "ann", "value": 3.0}]}, T0)
    wins = screen(st, UI(menu="board", board_kind="wins", variant="czarina"))
    assert "Daily wins \u00b7 Czarina" in wins and "  1     ann *                        3" in wins


def test_boards_menu() -> None:
    text = screen(lobby(), UI(menu="boards"))
    assert "1  Today's daily board" in text and "2  Ratings" in text and "3  Daily wins" in text


def test_a_daily_room_says_ranked_or_practice() -> None:
    st = lobby(claimed=True)
    apply(st, info(), T0)
    in_daily_room(st, ranked=True)
    text = screen(st)
    assert "daily, ranked" in text.splitlines()[0]
    assert "Today's challenge \u00b7 Czarina \u00b7 day #334 \u00b7 2026-11-30" in text
    assert "Ranked attempt: your result goes on today's board." in text and "r start" in text
    assert "Share this code" not in text
    again = lobby(claimed=True)
    in_daily_room(again, ranked=False)
    assert "Practice: only your first attempt of the day is ranked" in screen(again)
    guest = lobby()
    in_daily_room(guest, ranked=False)
    assert "guests are never ranked; claim your name (7 in the lobby)" in screen(guest)
    assert "daily, practice" in screen(guest).splitlines()[0]
    odd = lobby()  # a guest is never ranked, whatever a room says
    in_daily_room(odd, ranked=True)
    assert "Practice: guests are never ranked" in screen(odd)


def test_daily_results_show_the_share_line_and_streaks() -> None:
    st = lobby(claimed=True)
    apply(st, info(), T0)
    in_daily_room(st, ranked=True)
    daily_results(st, ranked=True, streaks={"streak_days": 3, "win_streak": 1})
    text = screen(st)
    assert "Results \u00b7 today's challenge #334 \u00b7 ranked" in text and "deal #" not in text
    assert f"Share:  {SHARE} " in text
    assert "Streaks: 3 days in a row with a ranked attempt \u00b7 1 day in a row with a win" in text
    assert "c copy the share line \u00b7 b today's board" in text and "m rematch" not in text
    practice = lobby()
    in_daily_room(practice, ranked=False)
    daily_results(practice, ranked=False)
    text = screen(practice)
    assert "practice" in text.splitlines()[2] and "Not on today's board" in text
    assert "(practice)" in text and "Streaks" not in text
    assert all(ord(ch) < 128 for ch in screen(practice, ascii_only=True))


def test_race_results_show_rating_changes() -> None:
    st = lobby(claimed=True)
    st.ratings_seen["ann"] = 3.2
    apply(st, {"t": "joined", "code": "R1", "player": 1, "token": "x"}, T0)
    apply(st, {"t": "results", "code": "R1", "variant": "czarina", "deal": "999", "ranking": [
        {"place": 1, "player": 1, "name": "ann", "status": "won", "time_ms": 1000, "moves": 3},
        {"place": 2, "player": 2, "name": "bob" + EVIL, "status": "resigned", "time_ms": 900, "moves": 1}],
        "ratings": {"ann": 4.0, "bob" + EVIL: -0.25}}, T0)
    text = screen(st)
    assert "Ratings (OpenSkill ordinal; ? provisional)" in text
    assert "ann *                   4.00  (+0.80)" in text
    assert "-0.25  (no earlier rating seen here)" in text and "\x1b" not in text
    assert "m rematch \u00b7 n no rematch \u00b7 b ratings" in text


def test_rating_changes_take_the_servers_before_and_mark_provisional_ratings() -> None:
    st = lobby(claimed=True)
    st.ratings_seen["ann"] = 30.0  # another variant's rating, seen on a board: not this one's
    apply(st, {"t": "joined", "code": "R1", "player": 1, "token": "x"}, T0)
    apply(st, {"t": "results", "code": "R1", "variant": "czarina", "deal": "999", "ranking": [],
               "ratings": {"ann": 4.0, "bob": -0.25}, "ratings_before": {"ann": 3.5, "bob": 0.0},
               "rating_variant": "czarina", "provisional": ["bob"]}, T0)
    assert st.rating_changes == [RatingChange("ann", 4.0, 3.5, False), RatingChange("bob", -0.25, 0.0, True)]
    text = screen(st)
    assert "Ratings \u00b7 Czarina (OpenSkill ordinal; ? provisional)" in text
    assert "4.00  (+0.50)" in text and "-0.25? (-0.25)" in text


def test_a_players_neighbours_on_this_seasons_board() -> None:
    st = lobby(claimed=True)
    entries = [{"rank": 10 + i, "name": "ann" if i == 5 else f"p{i}", "value": 20.0 - i} for i in range(11)]
    apply(st, {"t": "board", "kind": "rating", "variant": "czarina", "season": "2026-12-01", "offset": 9,
               "total": 400, "near": "ann", "me": 15, "entries": entries}, T0)
    text = screen(st, UI(menu="board", board_kind="rating", variant="czarina", board_scope="near,season"))
    assert "season 2026-12-01" in text and "you: 15 of 400" in text and "n next page" not in text
    assert "15    ann *" in text and "s all time" in text and "m pages" in text
    # the same answer is not shown for the all-time pages
    assert "loading" in screen(st, UI(menu="board", board_kind="rating", variant="czarina"))
    apply(st, {"t": "board", "kind": "rating", "variant": "czarina", "season": None, "offset": 0,
               "total": 400, "near": "ann", "me": None, "entries": []}, T0)
    text = screen(st, UI(menu="board", board_kind="rating", variant="czarina", board_scope="near"))
    assert "you are not on this board yet" in text and "all time" in text


def test_the_daily_shows_its_difficulty_and_par_and_a_room_its_grade() -> None:
    st = lobby()
    ui = UI(menu="daily", variant="czarina")
    apply(st, {**info(revealed()), "difficulty": 4, "pars": [6, 12, 20, 31, 40]}, T0)
    text = screen(st, ui)
    assert "Difficulty hard \u00b7 par L1 6, L2 12, L3 20, L4 31, L5 40" in text
    apply(st, {**info(revealed()), "difficulty": None, "pars": []}, T0)
    assert "par L1" not in screen(st, ui) and "Difficulty" not in screen(st, ui)
    in_daily_room(st, ranked=True)
    assert "difficulty" not in screen(st).splitlines()[0]
    assert st.room is not None
    apply(st, {**st.room, "difficulty": 2}, T0)
    assert "difficulty fair" in screen(st).splitlines()[0]
