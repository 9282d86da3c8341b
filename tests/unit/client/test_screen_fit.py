"""Every screen at exactly 80x24: no line cut, no word broken, in glyphs and in ASCII.

A line is cut when it is wider than the terminal (the app draws without
wrapping) or falls below its last row; a word is broken when a piece of it
shows that the same screen drawn on a very wide terminal does not contain.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from functools import partial
from typing import Any

import pytest

from client.keys import UI
from client.screens import render
from client.state import RaceState, apply
from client.text import text_lines, width_of
from tests.support.samples import VIEWS
from tests.support.serverdata import VARIANTS
from tests.unit.client import test_devices as devices_state
from tests.unit.client import test_history_screens as history_screens
from tests.unit.client.test_competition import daily_results, in_daily_room, info, revealed
from tests.unit.client.test_competition import lobby as lobby_state
from tests.unit.client.test_screen import T0, racing

COLS, ROWS = 80, 24
NAMES = ("Annabelle-the-Quick", "bob", "Carla Montgomery", "dan")  # long names, four players


def long_piles(view: dict[str, Any]) -> dict[str, Any]:
    """A board late in the game: long piles (every card of them must show) and full foundations."""
    view = copy.deepcopy(view)
    piles = view["piles"]
    for name in piles:
        if name.startswith("t") and view.get("phase") != "play":
            piles[name] = ["KS", "QH", "JC", "TD", "9S", "8H", "7C", "6D", "5S", "4H", "3C"][: 4 + len(name)]
        if name.startswith("f") and view["variant"] == "betsy-ross":
            piles[name] = piles[name] + ["3C", "4D", "5H", "6S", "7C", "8D", "9H", "TS", "JC", "QD"]
    return view


def race(view: dict[str, Any], **kw: Any) -> RaceState:
    st = racing(view, names=NAMES, progress={2: 20, 3: 1, 4: 0})
    for key, value in kw.items():
        setattr(st, key, value)
    return st


def with_error(st: RaceState) -> RaceState:
    apply(st, {"t": "error", "code": "illegal_move", "seq": 9, "message":
               "4H cannot go on 5S: a pile builds down regardless of suit, one card at a time, and this "
               "message is long on purpose so that it has to wrap"}, T0)
    return st


def room(countdown: bool = False) -> RaceState:
    st = lobby_state(name=NAMES[0])
    apply(st, {"t": "joined", "code": "K7QX2M", "player": 1, "token": "x"}, T0)
    players = [{"player": i + 1, "name": n, "ready": i % 2 == 0, "connected": i != 3}
               for i, n in enumerate(NAMES)]
    apply(st, {"t": "room", "code": "K7QX2M", "variant": "four-seasons-redeal", "phase": "lobby",
               "players_max": 8, "private": True, "players": players,
               "starts_at": T0 + 2500 if countdown else None, "ends_at": T0 + 902_500 if countdown else None,
               "server_time": T0}, T0)
    return st


def results(ratings: bool) -> RaceState:
    st = race(VIEWS["four-seasons"])
    ranking = [{"place": i + 1, "player": i + 1, "name": n, "status": s, "time_ms": 400_000 + i,
                "foundation_cards": 52 - 10 * i, "total_cards": 52, "moves": 1 + 80 * i}
               for i, (n, s) in enumerate(zip(NAMES, ("won", "frozen", "disconnected", "timed_out"),
                                              strict=True))]
    msg: dict[str, Any] = {"t": "results", "code": "K7QX2M", "variant": "four-seasons",
                           "deal": "12345678901234567890", "ranking": ranking}
    if ratings:
        msg["ratings"] = {n: 10.0 - i for i, n in enumerate(NAMES)}
    apply(st, msg, T0)
    return st


def analysed(st: RaceState) -> RaceState:
    from tests.unit.client.test_analysis import RACE_ANALYSIS
    apply(st, RACE_ANALYSIS, T0)
    return st


def daily_info_state(claimed: bool, **changes: Any) -> RaceState:
    st = lobby_state(claimed)
    apply(st, info(revealed(**changes)), T0)
    st.seen_commitments["2026-11-29|czarina"] = "9" * 64
    return st


def board_state(kind: str, season: str | None = None, near: bool = False) -> RaceState:
    st = lobby_state(True)
    entries = [{"rank": i + 1, "name": f"{NAMES[i % 4]}{i}", "won": i % 3 == 0, "time_ms": 200_000 + i,
                "moves": 100 + i, "foundation_cards": 40, "value": 30.5 - i, "provisional": i % 2 == 0}
               for i in range(11 if near else 15)]
    extra = {"near": NAMES[0], "me": 6} if near else {}
    apply(st, {"t": "board", "kind": kind, "variant": "czarina", "season": season,
               "date": "2026-11-30", "offset": 0, "total": 40, "entries": entries, **extra}, T0)
    return st


def profile_state(variants: int = 18) -> RaceState:
    """A claimed name rated in ``variants`` variants, each with a curve of changes."""
    st = lobby_state(True)
    ratings = {v.id: {"value": 25.0 - i, "deviation": 1.5 + i / 10, "races": 3 + i, "provisional": i % 3 == 0,
                      "curve": [[T0 + k, 20.0 + k] for k in range(6)]}
               for i, v in enumerate(st.variants[:variants])}
    apply(st, {"t": "profile", "name": "ann", "claimed": True, "ratings": ratings,
               "streaks": {"days": 4, "best": 12, "wins": 30}}, T0)
    return st


def friends_state(following: int = 12, waiting: int = 5) -> RaceState:
    """A claimed name following many names (some online, in rooms), with
    challenges waiting, names blocked and a notice just in."""
    st = lobby_state(True)
    rows = [{"name": f"{NAMES[i % 4][:20]}{i}", "online": i % 2 == 0, "in_room": i % 4 != 2,
             "room": "K7QX2M" if i % 4 == 0 else None} for i in range(following)]
    apply(st, {"t": "friends", "following": rows, "blocked": [f"pest{i}" for i in range(6)],
               "challenges": [{"name": f"Carla Montgomery{i}", "variant": st.variants[i].id,
                               "expires_at": T0 + 60_000} for i in range(waiting)],
               "max_following": 100}, T0)
    apply(st, {"t": "notice", "kind": "challenge", "name": "Annabelle-the-Quick", "variant": "czarina",
               "expires_at": T0 + 120_000}, T0)
    return st


def daily_room() -> RaceState:
    st = lobby_state()
    in_daily_room(st, False)
    return st


def race_long_piles(view: dict[str, Any]) -> RaceState:
    return race(long_piles(view))


def daily_race() -> RaceState:
    st = lobby_state(True)
    apply(st, info(), T0)
    in_daily_room(st, ranked=False)
    apply(st, {"t": "room", "code": "DAY123", "variant": "four-seasons-1883", "phase": "racing",
               "players_max": 1, "private": True, "players": [{"player": 1, "name": "ann", "ready": True}],
               "daily": "2026-11-30", "ranked": False, "starts_at": T0 - 61_000, "ends_at": T0 + 839_000,
               "server_time": T0}, T0)
    apply(st, {"t": "view", "v": 3, "seq": None, "view": VIEWS["four-seasons"]}, T0)
    return st


def daily_done() -> RaceState:
    st = lobby_state(True)
    in_daily_room(st, ranked=False)
    daily_results(st, ranked=False, streaks={"streak_days": 12, "win_streak": 1})
    return st


Case = tuple[Callable[[], RaceState], UI]
SCREENS: dict[str, Case] = {
    "lobby": (lambda: lobby_state(name=NAMES[0]), UI()),
    "lobby, claimed": (lambda: lobby_state(True, NAMES[0]), UI()),
    "lobby, typing a name": (lobby_state, UI(text="x" * 24, text_purpose="name")),
    **{f"pick {p}": (lobby_state, UI(menu="pick", purpose=p, cursor=c))
       for c, p in enumerate(("quick", "create", "browse", "daily", "board-daily", "board-rating",
                              "board-wins"))},
    "daily, waiting": (lobby_state, UI(menu="daily", variant="czarina")),
    "daily, guest": (lambda: daily_info_state(False), UI(menu="daily", variant="czarina")),
    "daily, claimed, failed check": (lambda: daily_info_state(True, salt="x", check=False, par=31),
                                     UI(menu="daily", variant="czarina")),
    "boards": (lobby_state, UI(menu="boards")),
    "daily board": (lambda: board_state("daily"), UI(menu="board", board_kind="daily", variant="czarina")),
    "rating board": (lambda: board_state("rating"), UI(menu="board", board_kind="rating", variant="czarina")),
    "rating board, this season, around me": (
        lambda: board_state("rating", "2026-12-01", near=True),
        UI(menu="board", board_kind="rating", variant="czarina", board_scope="near,season")),
    "wins board": (lambda: board_state("wins"), UI(menu="board", board_kind="wins", variant="czarina")),
    "profile, every variant rated": (profile_state, UI(menu="profile")),
    "profile, loading": (lobby_state, UI(menu="profile")),
    "profile, typing a name": (lobby_state, UI(menu="boards", text="ann", text_purpose="profile")),
    "friends, many names and challenges": (friends_state, UI(menu="friends")),
    "friends, loading": (lobby_state, UI(menu="friends")),
    "friends, guest": (lambda: lobby_state(False), UI(menu="friends")),
    "friends, typing a name to challenge": (friends_state, UI(menu="friends", text="x" * 24,
                                                               text_purpose="challenge")),
    "challenge, picking a variant": (friends_state, UI(menu="pick", purpose="challenge")),
    "room": (room, UI()),
    "countdown": (lambda: room(countdown=True), UI()),
    "daily room": (daily_room, UI()),
    "daily race": (daily_race, UI()),
    "race with an error": (lambda: with_error(race(VIEWS["four-seasons"])), UI(pending="t3")),
    "race, typing": (lambda: race(VIEWS["simplicity"]), UI(text="t1-t4:3", text_purpose="move")),
    "reconnecting": (lambda: race(VIEWS["betsy-ross"], conn="reconnecting", attempt=12), UI()),
    "results": (lambda: results(False), UI(note="asked for a rematch")),
    "results with ratings": (lambda: results(True), UI()),
    "daily results": (daily_done, UI()),
    "help": (lobby_state, UI(help=True)),
    "recovery codes at the claim": (devices_state.codes_shown, UI()),
    "devices, ten and a link code": (devices_state.many_devices, UI(menu="devices")),
    "devices, guest": (lobby_state, UI(menu="devices")),
    "devices, typing a recovery code": (lobby_state, UI(menu="devices", text="7KQ2-M9XD-4H7Q-2ZMB",
                                                        text_purpose="recover", target="x" * 24)),
    "help in a race": (lambda: race(VIEWS["corner-stones-play"]), UI(help=True)),
    "profile with its figures": (lambda: history_screens.figures_state(), UI(menu="profile")),
    "a name's games": (lambda: history_screens.games_state(), UI(menu="games", board_offset=12, cursor=3)),
    "a kept game's replay": (lambda: history_screens.kept_state(), UI(menu="kept")),
}
SCREENS["results with an analysis"] = (lambda: analysed(results(True)), UI())
for name, view in VIEWS.items():
    SCREENS[f"race {name}"] = (partial(race, view), UI())
    SCREENS[f"race {name}, long piles"] = (partial(race_long_piles, view), UI())
for v in VARIANTS:  # every variant's name in the header, on its layout
    base = {"simplicity": "simplicity", "corner-stones": "corner-stones-play", "betsy-ross": "betsy-ross",
            "calculation": "calculation", "fortunes-favor": "fortunes-favor", "florentine": "florentine",
            "simplicity-pysol": "simplicity", "les-quatre-coins-pysol": "corner-stones-play"}
    sample = copy.deepcopy(VIEWS[base.get(v.id, "four-seasons")])
    sample["variant"] = v.id
    SCREENS[f"variant {v.id}"] = (partial(race, sample), UI())


def words(rows: list[str]) -> set[str]:
    """The words shown; rules and progress bars grow with the terminal: no words."""
    return {w for row in rows for w in row.split() if w.strip("\u2500\u2588\u2591-#=")}


@pytest.mark.parametrize("ascii_only", [False, True], ids=["glyphs", "ascii"])
@pytest.mark.parametrize("name", list(SCREENS))
def test_every_screen_fits_80x24_without_cutting_a_word(name: str, ascii_only: bool) -> None:
    make, ui = SCREENS[name]
    rows = text_lines(render(make(), ui, now_ms=T0, width=COLS, height=ROWS, ascii_only=ascii_only))
    wide = text_lines(render(make(), ui, now_ms=T0, width=1000, ascii_only=ascii_only))
    shown = "\n".join(rows)
    assert len(rows) <= ROWS, f"{len(rows)} lines:\n{shown}"
    for row in rows:
        assert width_of(row) <= COLS, f"cut at {COLS}: {row!r}"
    broken = words(rows) - words(wide)
    assert not broken, f"words broken: {broken}\n{shown}"
    if ascii_only:
        assert all(ord(ch) < 128 for ch in shown), [ch for ch in shown if ord(ch) >= 128]


def test_a_bigger_terminal_gets_bigger_cells() -> None:
    st = race(long_piles(VIEWS["corner-stones-play"]))
    small = text_lines(render(st, UI(), now_ms=T0, width=80, height=24))
    big = text_lines(render(st, UI(), now_ms=T0, width=160, height=40))
    row = next(r for r in big if "[1]" in r)
    assert len(big[0]) > 100 and width_of(row) > 100  # the board spreads out
    assert sum("[" not in r and r.strip() != "" for r in big) <= sum("[" not in r and r.strip() != ""
                                                                       for r in small)


# -- the faults seen at 80 columns, one by one ------------------------------------------------------------
def screen_text(st: RaceState, ui: UI | None = None, ascii_only: bool = False) -> list[str]:
    return text_lines(render(st, ui or UI(), now_ms=T0, width=COLS, height=ROWS, ascii_only=ascii_only))


def test_the_daily_race_header_keeps_its_time_left() -> None:
    header = screen_text(daily_race())[0]
    assert "daily, practice" in header and header.rstrip().endswith("13:59 left \u00b7 01:01 elapsed")


def test_the_countdown_header_shows_the_race_length_not_time_left() -> None:
    header = screen_text(room(countdown=True))[0]
    assert header.rstrip().endswith("15:00 race") and "left" not in header


def test_counts_and_ranks_read_as_a_player_reads_them() -> None:
    st = race(VIEWS["four-seasons"])
    st.v = 1
    view = copy.deepcopy(VIEWS["four-seasons"])
    view["base_rank"] = "T"
    apply(st, {"t": "view", "v": 1, "seq": None, "view": view}, T0)
    text = "\n".join(screen_text(st))
    assert "  1 move  (you)" in text and "1 moves" not in text
    assert "base 10" in text and "next 10\u2663" in text
    assert "base T" in "\n".join(screen_text(st, ascii_only=True))
    assert "no redeal left" in text and "passes left" not in text


def test_server_errors_name_cards_as_the_board_does() -> None:
    st = with_error(race(VIEWS["four-seasons"]))
    assert "4\u2665 cannot go on 5\u2660" in "\n".join(screen_text(st))
    apply(st, {"t": "error", "code": "illegal_move", "seq": 10, "message": "TD is not on top"}, T0)
    assert "10\u2666 is not on top" in "\n".join(screen_text(st))
    assert "TD is not on top" in "\n".join(screen_text(st, ascii_only=True))


def test_betsy_ross_foundations_stand_apart_and_say_what_comes_next() -> None:
    view = long_piles(VIEWS["betsy-ross"])  # 11 cards on each foundation: x11 beside each top
    rows = screen_text(race(view))
    found = next(r for r in rows if "[f1]" in r)
    for k in range(2, 5):
        assert f" [f{k}]" in found and f"\u00d711[f{k}]" not in found
    fresh = next(r for r in screen_text(race(VIEWS["betsy-ross"])) if "[f1]" in r)
    # 2 needs 3 (+1), 4 needs 6 (+2), 6 needs 9 (+3), 8 needs Q (+4)
    assert [fresh.split("next ")[i].split()[0] for i in range(1, 5)] == ["3", "6", "9", "Q"]
    steps = next(r for r in screen_text(race(VIEWS["betsy-ross"])) if "i1" in r)
    assert "+1" in steps and "+4" in steps


def test_corner_stones_piles_show_every_card_even_when_long() -> None:
    view = copy.deepcopy(VIEWS["corner-stones-play"])
    view["piles"]["t1"] = ["KS", "QH", "JC", "TD", "9S", "8H", "7C", "6D", "5S", "4H", "3C", "2D", "AS"]
    screen = render(race(view), UI(), now_ms=T0, width=COLS, height=ROWS)
    text = "\n".join(text_lines(screen))
    first = text_lines(screen).index(next(r for r in text_lines(screen) if "[1]" in r))
    left = " ".join(r[:30] for r in text_lines(screen)[first:first + 3])
    assert left.split()[1:] == ["K\u2660", "Q\u2665", "J\u2663", "10\u2666", "9\u2660", "8\u2665", "7\u2663",
                                "6\u2666", "5\u2660", "4\u2665", "3\u2663", "2\u2666", "A\u2660"]
    assert "+" not in text
    tops = [t for line in screen for s, t in line if "class:top" in s]
    assert " A\u2660" in tops and len(tops) == 12  # each pile's top card is marked
