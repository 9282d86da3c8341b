"""The end of a game (rules.md 1.3): won, dead (no sequence of moves can put
another card on a foundation), resigned; nothing can be played afterwards."""

from __future__ import annotations

import pytest

from server.game import engine
from server.game.engine import DEAD, IN_PROGRESS, RESIGNED, WON, GameOver, play
from server.game.state import State
from server.game.variants import get_rules
from tests.support.game import ALL_VARIANTS, build, random_game

CLUBS = "AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC"
SPADES = "AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS"
HEARTS_TO_J = "AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH"


def assert_over(state: State, status: str, reason: str) -> None:
    assert engine.status(state) == status
    assert engine.legal_moves(state) == []
    assert engine.status_and_moves(state) == (status, [])
    for text in ("draw", "redeal", "resign", "t1-f1", "w-f1", "deal"):
        with pytest.raises(GameOver, match=reason):
            play(state, text)


# -- won -----------------------------------------------------------------------------
def test_won_four_seasons() -> None:
    s = build("four-seasons", {
        "f1": "5C 6C 7C 8C 9C TC JC QC KC AC 2C 3C 4C",
        "f2": "5S 6S 7S 8S 9S TS JS QS KS AS 2S 3S 4S",
        "f3": "5H 6H 7H 8H 9H TH JH QH KH AH 2H 3H 4H",
        "f4": "5D 6D 7D 8D 9D TD JD QD KD AD 2D 3D",
        "t3": "4D",
    }, base="5")
    assert engine.status(s) == IN_PROGRESS
    s = play(s, "t3-f4")
    assert engine.foundation_cards(s) == 52
    assert_over(s, WON, "won")


def test_won_czarina_from_the_waste() -> None:
    s = build("czarina", {
        "f1": CLUBS, "f2": SPADES, "f3": HEARTS_TO_J + " QH KH",
        "f4": "AD 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD", "w": "KD",
    }, base="A")
    assert_over(play(s, "w-f4"), WON, "won")


def test_won_betsy_ross() -> None:
    s = build("betsy-ross", {
        "i1": "AC", "i2": "2H", "i3": "3D", "i4": "4S",
        "f1": "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC",
        "f2": "4D 6D 8D TD QD AD 3D 5D 7D 9D JD KD",
        "f3": "6H 9H QH 2H 5H 8H JH AH 4H 7H TH KH",
        "f4": "8S QS 3S 7S JS 2S 6S TS AS 5S 9S KS",
        "w": "KC",
    }, redeals=2)
    assert engine.foundation_cards(s) == 47
    s = play(s, "w-f1")
    assert engine.foundation_cards(s) == 48 == get_rules("betsy-ross").spec.total_cards
    assert_over(s, WON, "won")


def test_won_corner_stones() -> None:
    up = {"C": CLUBS, "S": SPADES, "H": CLUBS.replace("C", "H"), "D": CLUBS.replace("C", "D")}
    down = {k: " ".join(reversed(v.split())) for k, v in up.items()}
    piles = {f"f{k + 1}": up[s] for k, s in enumerate("CSHD")}
    piles.update({f"f{k + 5}": down[s] for k, s in enumerate("CSHD")})
    piles["f5"] = "KC QC JC TC 9C 8C 7C 6C 5C 4C 3C 2C"
    piles["t4"] = "AC"
    s = build("corner-stones", piles)
    assert engine.status(s) == IN_PROGRESS
    s = play(s, "t4-f5")
    assert engine.foundation_cards(s) == 104
    assert_over(s, WON, "won")


# -- dead ------------------------------------------------------------------------------
def test_dead_four_seasons_with_pointless_moves_left() -> None:
    # QH (for f3) and AD (for f4) lie under kings that can never move: three
    # moves shuffle diamonds about, none of them frees anything
    s = build("four-seasons", {
        "f1": CLUBS, "f2": SPADES, "f3": HEARTS_TO_J,
        "t1": "QH KH", "t2": "AD KD", "t3": "2D 3D 4D JD", "t4": "5D 6D 8D 9D", "t5": "TD 7D QD",
    }, base="A")
    assert get_rules("four-seasons").legal_moves(s), "moves remain, but none leads anywhere"
    assert_over(s, DEAD, "dead")


def test_not_dead_when_a_foundation_move_is_reachable() -> None:
    # no foundation move now, but JD onto QD uncovers QH for f3
    s = build("four-seasons", {
        "f1": CLUBS, "f2": SPADES, "f3": HEARTS_TO_J,
        "t1": "QH JD", "t2": "KD QD", "t3": "2D 3D 4D KH", "t4": "5D 6D 7D 8D", "t5": "AD 9D TD",
    }, base="A")
    rules = get_rules("four-seasons")
    assert not [m for m in rules.legal_moves(s) if m.dst.startswith("f")]
    assert engine.status(s) == IN_PROGRESS
    s = play(s, "t1-t2")
    s = play(s, "t1-f3")
    assert engine.foundation_cards(s) == 38


def test_not_dead_while_the_stock_has_cards() -> None:
    # the same stuck cross, but the stock still holds the spades from 7S up
    s = build("four-seasons", {
        "s": "KS QS JS TS 9S 8S 7S", "f1": CLUBS, "f2": "AS 2S 3S 4S 5S 6S", "f3": HEARTS_TO_J,
        "t1": "QH KH", "t2": "AD KD", "t3": "2D 3D 4D JD", "t4": "5D 6D 8D 9D", "t5": "TD 7D QD",
    }, base="A")
    assert not [m for m in get_rules("four-seasons").legal_moves(s) if m.dst.startswith("f")]
    assert engine.status(s) == IN_PROGRESS
    s = play(play(s, "draw"), "w-f2")
    assert engine.foundation_cards(s) == 13 + 7 + 11


def test_dead_betsy_ross() -> None:
    # the third pass is over and 7D fits no foundation (they want 3, 6, 9 and Q)
    s = build("betsy-ross", {
        "i1": "AC", "i2": "2H", "i3": "3D", "i4": "4S",
        "f1": "2C", "f2": "4D", "f3": "6H", "f4": "8C", "w": "3S 7D",
    }, redeals=2)
    assert_over(s, DEAD, "dead")
    # one redeal earlier the game would go on
    assert engine.status(s._replace(redeals=1)) == IN_PROGRESS


def test_dead_corners() -> None:
    # stock gone; the cells hold KH and 2D..5D, the waste shows KD: f3 wants QH
    # and f4 wants AD, both buried in the waste
    s = build("corners", {
        "f1": CLUBS, "f2": SPADES, "f3": HEARTS_TO_J,
        "t1": "KH", "t2": "2D", "t3": "3D", "t4": "4D", "t5": "5D",
        "w": "AD QH 6D 7D 8D 9D TD JD QD KD",
    }, base="A")
    assert_over(s, DEAD, "dead")


def test_dead_four_seasons_redeal_only_after_its_redeal() -> None:
    piles = {"f1": CLUBS, "f2": SPADES, "f3": HEARTS_TO_J,
             "t1": "QH KH", "t2": "AD KD", "t3": "2D 3D 4D JD", "t4": "5D 6D 8D", "t5": "TD 7D QD",
             "w": "9D"}
    s = build("four-seasons-redeal", piles, base="A")
    assert engine.status(s) == IN_PROGRESS  # a redeal is left
    assert_over(build("four-seasons-redeal", piles, base="A", redeals=1), DEAD, "dead")


def test_dead_game_by_play_to_the_end() -> None:
    # the engine reaches the same verdict on a position reached by real play
    s = engine.new_game("betsy-ross", 3)
    while engine.status(s) == IN_PROGRESS:
        moves = engine.legal_moves(s)
        s = play(s, next((m for m in moves if m.kind == "move"), moves[0]))
    assert engine.status(s) in (DEAD, WON)
    assert engine.legal_moves(s) == []


# -- resigned --------------------------------------------------------------------------
@pytest.mark.parametrize("variant", ["four-seasons", "corner-stones", "betsy-ross", "four-seasons-1883"])
def test_resign(variant: str) -> None:
    s = engine.new_game(variant, 1)
    r = play(s, "resign")
    assert r.resigned and not s.resigned
    assert r.piles == s.piles
    assert_over(r, RESIGNED, "resigned")
    assert engine.status(s) == IN_PROGRESS  # the old state is untouched


@pytest.mark.parametrize("variant", ALL_VARIANTS)
def test_status_and_moves_agrees_with_status_and_legal_moves(variant: str) -> None:
    """The server's one-pass form gives what the two separate calls give, in order."""
    for seed in range(6):
        trace = random_game(variant, 1000 + seed, seed)
        for state in trace.states:
            assert engine.status_and_moves(state) == (engine.status(state),
                                                      engine.legal_moves(state))
        assert engine.status(trace.states[-1]) != IN_PROGRESS or len(trace.states) == 301


def test_play_takes_the_callers_status_instead_of_working_it_out() -> None:
    """The server passes the status it already has, so no move re-runs a dead search."""
    live = engine.new_game("four-seasons", 24)
    move = str(engine.legal_moves(live)[0])
    with pytest.raises(GameOver, match="dead"):
        play(live, move, known_status=DEAD)
    assert play(live, move, known_status=IN_PROGRESS) == play(live, move)


def test_a_positions_first_verdict_sticks() -> None:
    """Two searches of one position may run at once (two players of a race with the
    same position); whatever the second finds, the first answer stays."""
    from server.game.dead import _decided

    engine.clear_caches()
    state = engine.new_game("four-seasons", "7")
    assert _decided(state, True) is True
    assert _decided(state, False) is True
    engine.clear_caches()
