"""rules.md 2.11: edge cases of the Four Seasons (cross) family, plus the extra
per-game lists for Czarina, Corners and Simplicity. Each test names its case.

Positions are built by hand. Pile names: t1 top, t2 left, t3 centre, t4 right,
t5 bottom (rules.md's T0..T4); foundations are keyed by suit: f1 clubs,
f2 spades, f3 hearts, f4 diamonds. A stock card is kept wherever the game
must stay alive (``play`` refuses every move once a game is over).
"""

from __future__ import annotations

import random

import pytest

from server.game import engine
from server.game.engine import play
from server.game.moves import REDEAL, parse
from server.game.state import State
from server.game.variants import get_rules
from tests.support.game import (
    BOOK_WRAP_VARIANTS,
    BUILDING_VARIANTS,
    CROSS_VARIANTS,
    build,
    illegal,
    legal,
    stock_next_first,
    texts,
    top,
    words,
)

# Quiet cards for the cross piles a test does not look at, and for Simplicity's
# seven extra piles: ranks 7, 9 and J only, so none builds on another and none
# starts a foundation of the bases used here (A, 3, 5, K).
QUIET_CROSS = {"t1": "7C", "t2": "9C", "t3": "JC", "t4": "7D", "t5": "9D"}
QUIET_EXTRA = {f"t{k}": "JD" for k in range(6, 13)}


def quiet(variant: str, **piles: str) -> dict[str, str]:
    """A full tableau (so no space is open and no auto-fill fires), overridden by ``piles``."""
    out = dict(QUIET_CROSS)
    if get_rules(variant).spec.tableau == 12:
        out.update(QUIET_EXTRA)
    out.update(piles)
    return out



# -- 2.11.1 ------------------------------------------------------------------
@pytest.mark.parametrize("variant", CROSS_VARIANTS)
def test_2_11_1_wrap_with_base_5(variant: str) -> None:
    # the spade foundation 5S..KS takes AS, then 2S..4S, and is complete at 13;
    # a duplicate 5S under them in the waste probes the full foundation.
    s = build(variant, quiet(variant, s="KH QH", w="5S 4S 3S 2S AS", f2="5S 6S 7S 8S 9S TS JS QS KS"),
              base="5")
    for _ in range(4):
        s = legal(s, "w-f2")
    assert texts(s, "f2") == words("5S 6S 7S 8S 9S TS JS QS KS AS 2S 3S 4S")
    illegal(s, "w-f2", "complete")

    # an empty foundation takes the base rank (5H) and nothing else (6H)
    s5 = build(variant, quiet(variant, s="KH QH", w="5H"), base="5")
    assert texts(legal(s5, "w-f3"), "f3") == ["5H"]
    s6 = build(variant, quiet(variant, s="KH QH", w="6H"), base="5")
    illegal(s6, "w-f3", "base rank")


# -- 2.11.2 ------------------------------------------------------------------
@pytest.mark.parametrize("variant", BOOK_WRAP_VARIANTS)
def test_2_11_2_base_ace_no_king_on_ace(variant: str) -> None:
    s = build(variant, quiet(variant, s="TH JH", t1="AD", t2="KC", t4="QH"), base="A")
    illegal(s, "t2-t1", "King", "Ace")  # K on A: not while the Aces are the base
    after = legal(s, "t4-t2")  # Q on K is fine
    assert texts(after, "t2") == ["KC", "QH"]


@pytest.mark.parametrize("variant", CROSS_VARIANTS)
def test_2_11_2_base_ace_foundation_ends_at_king(variant: str) -> None:
    # A..Q of clubs takes KC and is then complete (no wrap onto a second A).
    s = build(variant, quiet(variant, s="TH JH", w="AC KC", f1="AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC"),
              base="A")
    s = legal(s, "w-f1")
    assert texts(s, "f1")[-1] == "KC" and len(texts(s, "f1")) == 13
    illegal(s, "w-f1", "complete")


# -- 2.11.3 ------------------------------------------------------------------
@pytest.mark.parametrize("variant", CROSS_VARIANTS)
def test_2_11_3_base_king_foundation_goes_k_a_2_to_q(variant: str) -> None:
    s = build(variant, quiet(variant, s="TH JH", w="2C AC", f1="KC"), base="K")
    s = legal(s, "w-f1")
    s = legal(s, "w-f1")
    assert texts(s, "f1") == ["KC", "AC", "2C"]
    full = build(variant, quiet(variant, s="TH JH", w="QC", f1="KC AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC"),
                 base="K")
    full = legal(full, "w-f1")
    assert len(texts(full, "f1")) == 13 and top(full, "f1") == "QC"


@pytest.mark.parametrize("variant", BUILDING_VARIANTS)
def test_2_11_3_base_king_tableau_wraps_king_on_ace(variant: str) -> None:
    s = build(variant, quiet(variant, s="TH JH", t1="AS", t2="KD"), base="K")
    assert texts(legal(s, "t2-t1"), "t1") == ["AS", "KD"]


@pytest.mark.parametrize("variant", BUILDING_VARIANTS)
def test_2_11_1_tableau_wraps_with_base_5(variant: str) -> None:
    # the same wrap rule in the tableau: K on A is legal whenever the base is not A
    s = build(variant, quiet(variant, s="TH JH", t1="AS", t2="KD"), base="5")
    assert texts(legal(s, "t2-t1"), "t1") == ["AS", "KD"]


# -- 2.11.4 ------------------------------------------------------------------
@pytest.mark.parametrize("variant", CROSS_VARIANTS)
def test_2_11_4_single_card_rule(variant: str) -> None:
    s = build(variant, quiet(variant, s="2S 3S", t2="TD 9C", t4="JS"), base="5")
    if variant == "four-seasons-1883":
        after = legal(s, "t2-t4:2")
        assert texts(after, "t4") == ["JS", "TD", "9C"]
        assert texts(after, "t2") == []
        assert after.vacancy == get_rules(variant).index["t2"]  # and it must be filled at once
    else:
        illegal(s, "t2-t4:2", "one card at a time")


def test_2_11_4_1883_run_needs_a_real_run() -> None:
    s = build("four-seasons-1883", quiet("four-seasons-1883", s="2S 3S", t2="TD 8C", t4="JS"), base="5")
    illegal(s, "t2-t4:2", "not a descending run")
    s = build("four-seasons-1883", quiet("four-seasons-1883", s="2S 3S", t2="TD 9C", t4="QS"), base="5")
    illegal(s, "t2-t4:2", "does not go on")


# -- 2.11.5 ------------------------------------------------------------------
# (simplicity-pysol lets a foundation card come back: test_pysol_issue15_edge_cases.py)
@pytest.mark.parametrize("variant", [v for v in CROSS_VARIANTS if v != "simplicity-pysol"])
def test_2_11_5_foundation_lock(variant: str) -> None:
    # 6C on 7D would fit the tableau (even by colour), but it is on a foundation
    s = build(variant, quiet(variant, s="2S 3S", f1="5C 6C", t1="7D"), base="5")
    illegal(s, "f1-t1", "foundation")
    illegal(s, "f1-f2", "foundation")


# -- 2.11.6 ------------------------------------------------------------------
def test_2_11_6_czarina_fill_comes_from_the_stock() -> None:
    s = build("czarina", quiet("czarina", s="4C 9S", w="8C 2D", t3="5H"), base="5")
    after = legal(s, "t3-f3")
    assert texts(after, "f3") == ["5H"]
    assert texts(after, "t3") == ["9S"]  # X, the stock's top card
    assert texts(after, "w") == ["8C", "2D"]  # Y still on the waste
    assert len(after.stock) == len(s.stock) - 1


# -- 2.11.7 ------------------------------------------------------------------
def test_2_11_7_czarina_after_stock_exhaustion_fills_from_waste() -> None:
    s = build("czarina", quiet("czarina", w="8C 2D", t3="5H"), base="5")
    after = legal(s, "t3-f3")
    assert texts(after, "t3") == ["2D"]
    assert texts(after, "w") == ["8C"]


def test_2_11_7_czarina_with_stock_and_waste_empty_space_stays_open() -> None:
    # 5D on t5 keeps a foundation move in reach, so the game goes on
    s = build("czarina", quiet("czarina", t1="9S", t3="5H", t5="5D"), base="5")
    after = legal(s, "t3-f3")
    assert texts(after, "t3") == []
    after = legal(after, "t1-t3")  # any cross top may now fill the space
    assert texts(after, "t3") == ["9S"]
    assert texts(after, "t1") == []


# -- 2.11.8 ------------------------------------------------------------------
def _emptied_t5(waste: str) -> State:
    v = "four-seasons-1883"
    s = build(v, {"s": "QS 4H", "w": waste, "t1": "KS", "t2": "8C", "t3": "2D", "t4": "9D", "t5": "5H"},
              base="5")
    assert parse("t2-t4") in engine.legal_moves(s)  # normally fine
    after = legal(s, "t5-f3")
    assert after.vacancy == get_rules(v).index["t5"]
    return after


def test_2_11_8_1883_must_fill_with_waste() -> None:
    s = _emptied_t5("3C JD")
    illegal(s, "draw", "must be filled")
    illegal(s, "t2-t4", "must be filled")
    illegal(s, "s-t5")  # deal_to_vacancy only while the waste is empty
    illegal(s, "w-f4", "must be filled")
    assert {str(m) for m in engine.legal_moves(s)} == {"t1-t5", "t2-t5", "t3-t5", "t4-t5", "w-t5"}
    after = legal(s, "w-t5")
    assert texts(after, "t5") == ["JD"] and after.vacancy == -1
    assert texts(legal(s, "t2-t5"), "t5") == ["8C"]


def test_2_11_8_1883_deal_to_vacancy_with_empty_waste() -> None:
    s = _emptied_t5("")
    illegal(s, "w-t5", "empty")
    after = legal(s, "s-t5")
    assert texts(after, "t5") == ["4H"]
    assert stock_next_first(after) == ["QS"]
    assert after.vacancy == -1


def test_2_11_8_1883_obligation_carries_over_and_lapses() -> None:
    v = "four-seasons-1883"
    # filling t5 from t2's only card empties t2: now t2 must be filled
    s = build(v, {"s": "QS", "w": "3C", "t1": "KS", "t2": "8C", "t3": "2D", "t4": "9D", "t5": "5H"}, base="5")
    s = legal(s, "t5-f3")
    s = legal(s, "t2-t5")
    assert s.vacancy == get_rules(v).index["t2"]
    # with nothing anywhere to fill from, the obligation lapses
    lone = build(v, {"f3": "5H 6H 7H 8H 9H TH JH QH KH AH 2H 3H", "t1": "4H"}, base="5")
    after = legal(lone, "t1-f3")
    assert after.vacancy == -1 and texts(after, "t1") == []


# -- 2.11.9 ------------------------------------------------------------------
def test_2_11_9_vanishing_cross_no_draw_while_a_space_is_open() -> None:
    v = "vanishing-cross"
    s = build(v, quiet(v, s="4H 9S", w="3C", t1=""), base="5")
    illegal(s, "draw", "fill")
    filled = legal(s, "w-t1")
    assert texts(legal(filled, "draw"), "w") == ["9S"]
    # with an empty waste there is nothing to fill from, so drawing is allowed
    s = build(v, quiet(v, s="4H 9S", t1=""), base="5")
    assert texts(legal(s, "draw"), "w") == ["9S"]


# -- 2.11.10 -----------------------------------------------------------------
def test_2_11_10_four_seasons_rejects_redeal() -> None:
    s = build("four-seasons", quiet("four-seasons", w="3C 9D", t3="5H"), base="5")
    illegal(s, "redeal", "no redeal")


def test_2_11_10_four_seasons_redeal_allows_exactly_one() -> None:
    v = "four-seasons-redeal"
    s = build(v, quiet(v, w="3C 9D KS", t3="5H"), base="5")
    s = legal(s, "redeal")
    assert s.redeals == 1 and texts(s, "w") == []
    assert stock_next_first(s) == ["3C", "9D", "KS"]  # order kept: first drawn is drawn first again
    for _ in range(3):
        s = legal(s, "draw")
    assert texts(s, "w") == ["3C", "9D", "KS"]
    illegal(s, "redeal", "no redeals left")


def test_2_11_10_four_seasons_redeal_pass_2_order_is_pass_1_minus_played() -> None:
    v = "four-seasons-redeal"
    rng = random.Random(2011)
    s = engine.new_game(v, 7)
    pass1: list[str] = []
    played: set[str] = set()
    while s.stock:
        s = play(s, "draw")
        pass1.append(top(s, "w") or "")
        waste_moves = [m for m in engine.legal_moves(s) if m.src == "w"]
        while waste_moves and rng.random() < 0.7:
            played.add(top(s, "w") or "")
            s = play(s, rng.choice(waste_moves))
            waste_moves = [m for m in engine.legal_moves(s) if m.src == "w"]
    assert played, "the test position should play some waste cards"
    s = play(s, "redeal")
    pass2: list[str] = []
    while s.stock:
        s = play(s, "draw")
        pass2.append(top(s, "w") or "")
    assert pass2 == [c for c in pass1 if c not in played]


def test_2_11_10_redeal_with_empty_waste_rejected() -> None:
    v = "four-seasons-redeal"
    s = build(v, quiet(v, t3="5H"), base="5")
    reason = illegal(s, "redeal", "waste is empty")
    assert get_rules(v).why_illegal(s, REDEAL) == reason


# -- 2.11.12 -----------------------------------------------------------------
def test_2_11_12_simplicity_colours() -> None:
    v = "simplicity"
    s = build(v, quiet(v, s="2S 3S", t1="6S", t2="5H", t3="6D", t4="AS", t5="KH"), base="3")
    assert texts(legal(s, "t2-t1"), "t1") == ["6S", "5H"]
    illegal(s, "t2-t3", "alternating colours")
    assert texts(legal(s, "t5-t4"), "t4") == ["AS", "KH"]  # base 3: K on A wraps


# -- Czarina extras ------------------------------------------------------------
def test_czarina_a_move_onto_cross_pile_triggers_fill() -> None:
    s = build("czarina", quiet("czarina", s="4C QD", w="3S", t1="8H", t2="9S"), base="5")
    after = legal(s, "t1-t2")
    assert texts(after, "t2") == ["9S", "8H"]
    assert texts(after, "t1") == ["QD"]
    assert texts(after, "w") == ["3S"]


def test_czarina_b_filled_card_is_never_auto_played() -> None:
    s = build("czarina", quiet("czarina", s="4C 7H", f3="5H", t3="6H"), base="5")
    after = legal(s, "t3-f3")
    assert texts(after, "f3") == ["5H", "6H"]
    assert texts(after, "t3") == ["7H"]  # it fits f3, and it stays where it landed
    assert parse("t3-f3") in engine.legal_moves(after)


def test_czarina_c_waste_cannot_fill_a_space_while_the_stock_lasts() -> None:
    s = build("czarina", quiet("czarina", s="4C 2S", w="9D", t3="5H"), base="5")
    after = legal(s, "t3-f3")
    assert all(after.piles[i] for i in get_rules("czarina").tableau_range)  # no space to fill
    assert texts(after, "t3") == ["2S"]
    illegal(after, "w-t3", "does not go on")  # 9D meets 2S, not a space
    assert not [m for m in engine.legal_moves(after) if m.src == "w" and m.dst.startswith("t")]


def test_czarina_e_base_card_from_fill_can_start_a_corner() -> None:
    s = build("czarina", quiet("czarina", s="4C 5C", t3="5H"), base="5")
    after = legal(s, "t3-f3")
    assert texts(after, "t3") == ["5C"] and texts(after, "f1") == []
    after = legal(after, "t3-f1")
    assert texts(after, "f1") == ["5C"]
    assert texts(after, "t3") == ["4C"]


# -- Corners extras ------------------------------------------------------------
def test_corners_b_no_foundation_takes_another_suits_base_card() -> None:
    # (b)'s first half (no foundation starts empty) is corners-pysol's deal; the
    # `corners` deal is the cross deal: only the base card's corner is started.
    first = engine.new_game("corners", 1)
    assert [len(texts(first, f)) for f in ("f1", "f2", "f3", "f4")] == [0, 0, 0, 1]
    s = build("corners", {"s": "2S 3S", "t1": "5H", "t2": "2H", "t3": "3H", "t4": "8D", "t5": "9D",
                          "f4": "5D"}, base="5")
    for f in ("f1", "f2", "f4"):
        illegal(s, f"t1-{f}", "hearts foundation")
    assert texts(legal(s, "t1-f3"), "f3") == ["5H"]


def test_corners_f_refill_from_stock_top_even_with_waste() -> None:
    s = build("corners", {"s": "2S QS", "w": "3C 9D", "t1": "2H", "t2": "5H", "t3": "3H", "t4": "8D",
                          "t5": "9D"}, base="5")
    after = legal(s, "t2-f3")
    assert texts(after, "t2") == ["QS"]
    assert texts(after, "w") == ["3C", "9D"]
    assert stock_next_first(after) == ["2S"]


def test_corners_cells_take_no_cards() -> None:
    s = build("corners", {"s": "2S QS", "w": "8H", "t1": "9C", "t2": "5H", "t3": "3H", "t4": "8D",
                          "t5": "9D"}, base="5")
    illegal(s, "w-t1", "cells")
    illegal(s, "t4-t1", "cells")
    assert not [m for m in engine.legal_moves(s) if m.dst.startswith("t")]


def test_corners_refill_from_waste_once_the_stock_is_gone() -> None:
    s = build("corners", {"w": "3C 9D", "t1": "2H", "t2": "5H", "t3": "3H", "t4": "8D", "t5": "9D"},
              base="5")
    after = legal(s, "t2-f3")
    assert texts(after, "t2") == ["9D"] and texts(after, "w") == ["3C"]


# -- Simplicity extras ---------------------------------------------------------
def test_simplicity_a_twelve_piles_and_optional_space_fill() -> None:
    s = engine.new_game("simplicity", 1)
    assert [len(texts(s, f"t{k}")) for k in range(1, 13)] == [1] * 12
    assert len(s.stock) == 52 - 1 - 12 and texts(s, "w") == []
    s = build("simplicity", quiet("simplicity", s="2S 3S", w="4D", t1="5H"), base="5")
    s = legal(s, "t1-f3")
    assert texts(s, "t1") == []
    s = legal(s, "draw")  # the space may stay open
    assert texts(s, "t1") == [] and top(s, "w") == "3S"


def test_simplicity_b_same_colour_refused() -> None:
    s = build("simplicity", quiet("simplicity", s="2S 3S", t1="KC", t2="QS"), base="5")
    illegal(s, "t2-t1", "alternating colours")


def test_simplicity_c_ace_on_two() -> None:
    s = build("simplicity", quiet("simplicity", s="2S 3S", t1="2C", t2="AD"), base="5")
    assert texts(legal(s, "t2-t1"), "t1") == ["2C", "AD"]


def test_simplicity_d_base_ace_no_king_on_ace() -> None:
    s = build("simplicity", quiet("simplicity", s="2S 3S", t1="AH", t2="KS"), base="A")
    illegal(s, "t2-t1", "King")


# -- the moves the cross family never has ------------------------------------------
@pytest.mark.parametrize("variant", CROSS_VARIANTS)
def test_cross_nothing_goes_to_stock_or_waste_and_no_deal_action(variant: str) -> None:
    s = build(variant, quiet(variant, s="2S 3S", w="4D"), base="5")
    illegal(s, "t1-w", "waste")
    illegal(s, "t1-s", "stock")
    illegal(s, "deal", "no deal")
    illegal(s, "t1-i1", "no pile")
    illegal(s, "t1-f2", "clubs foundation")  # 7C belongs on f1 (where it does not fit either)


def test_four_seasons_redeal_space_is_filled_from_the_waste_only() -> None:
    v = "four-seasons-redeal"
    s = build(v, quiet(v, s="2S 3S", w="4D", t1=""), base="5")
    illegal(s, "t2-t1", "only from the waste")
    assert texts(legal(s, "w-t1"), "t1") == ["4D"]
    # in the default rules any card may fill a space, at any time
    s = build("four-seasons", quiet("four-seasons", s="2S 3S", w="4D", t1=""), base="5")
    assert texts(legal(s, "t2-t1"), "t1") == ["9C"]
    assert texts(legal(s, "draw"), "t1") == []
