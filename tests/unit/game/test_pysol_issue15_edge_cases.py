"""rules.md 2.8-2.11 for the PySolFC-exact cross games of issue 15: `simplicity-pysol`
(PySolFC 437), `czarina-pysol` (483) and `corners-pysol` (417), each case named by its
number where the spec numbers it. The cases they share with the book rules run in
test_cross_edge_cases.py, parametrized over every cross variant."""

from __future__ import annotations

import pytest

from server.game import engine
from server.game.engine import play
from tests.support.game import (
    build,
    fresh_engine_caches,
    illegal,
    legal,
    plain_dead,
    stock_next_first,
    texts,
    words,
)
from tests.unit.game.test_cross_edge_cases import quiet

SIMPLICITY, CZARINA, CORNERS = "simplicity-pysol", "czarina-pysol", "corners-pysol"


# == simplicity-pysol ===========================================================================
def test_2_11_5_simplicity_pysol_foundation_top_comes_back_where_it_fits() -> None:
    # 2.10 / 2.11 Simplicity (e): 7H from its foundation onto 8S is legal, onto 8D it is not
    s = build(SIMPLICITY, quiet(SIMPLICITY, s="2S 3S", f3="5H 6H 7H", t1="8S", t2="8D"), base="5")
    after = legal(s, "f3-t1")
    assert texts(after, "t1") == ["8S", "7H"] and texts(after, "f3") == ["5H", "6H"]
    illegal(s, "f3-t2", "does not go on", "alternating colours")
    # and it may go home again
    assert texts(legal(after, "t1-f3"), "f3") == words("5H 6H 7H")


def test_simplicity_pysol_foundation_card_into_a_space_but_not_to_another_foundation() -> None:
    s = build(SIMPLICITY, quiet(SIMPLICITY, s="2S 3S", f3="5H", t4=""), base="5")
    assert texts(legal(s, "f3-t4"), "t4") == ["5H"]  # any card fills a space, the base card too
    illegal(s, "f3-f1", "stay there", "back to the tableau")
    illegal(s, "f3-w", "waste")


def test_simplicity_pysol_empty_foundation_takes_the_base_again() -> None:
    s = build(SIMPLICITY, quiet(SIMPLICITY, s="2S 3S", f3="5H", t4=""), base="5")
    s = legal(s, "f3-t4")
    assert texts(s, "f3") == [] and texts(legal(s, "t4-f3"), "f3") == ["5H"]


def test_2_11_2_simplicity_pysol_base_ace_king_on_ace() -> None:
    # Simplicity (d): with base A, KS on AH is legal in simplicity-pysol (illegal in simplicity)
    s = build(SIMPLICITY, quiet(SIMPLICITY, s="2S 3S", t1="AH", t2="KS"), base="A")
    assert texts(legal(s, "t2-t1"), "t1") == ["AH", "KS"]


def test_2_11_12_simplicity_pysol_colours() -> None:
    s = build(SIMPLICITY, quiet(SIMPLICITY, s="2S 3S", t1="6S", t2="6D", t3="5H", t4="AS", t5="KH",
                                t6="KC", t7="QS", t8="2C", t9="AD"), base="5")
    assert texts(legal(s, "t3-t1"), "t1") == ["6S", "5H"]
    illegal(s, "t3-t2", "alternating colours")
    assert texts(legal(s, "t5-t4"), "t4") == ["AS", "KH"]
    illegal(s, "t7-t6", "alternating colours")  # (b) QS on KC: same colour
    assert texts(legal(s, "t9-t8"), "t8") == ["2C", "AD"]  # (c)


def test_simplicity_pysol_a_twelve_piles_and_drawing_with_a_space_open() -> None:
    s = engine.new_game(SIMPLICITY, 5)
    assert all(len(texts(s, f"t{k}")) == 1 for k in range(1, 13)) and len(texts(s, "w")) == 1
    s = build(SIMPLICITY, quiet(SIMPLICITY, s="2S 3S", t4=""), base="5")
    assert texts(legal(s, "draw"), "w") == ["3S"]


def test_simplicity_pysol_one_pass() -> None:
    s = build(SIMPLICITY, quiet(SIMPLICITY, w="2S 3S", f1="5C", t5="6C"), base="5")
    illegal(s, "redeal", "no redeal")


def _simplicity_endgame(t3: str) -> dict[str, str]:
    # f1 wants 7C, buried under 6H; no pile takes 6H and nothing else moves, unless 7S
    # comes down from its foundation onto 8D: 6H goes on it, 7C home, then (t3) 8C home
    piles = {f"t{k}": "JD" for k in range(1, 13)}
    piles.update(f1="5C 6C", f2="5S 6S 7S", t1="JD 7C 6H", t2="8D", t3=t3)
    return piles


def test_dead_rule_simplicity_pysol_alive_only_through_a_foundation_card() -> None:
    s = build(SIMPLICITY, _simplicity_endgame("8C"), base="5")
    with fresh_engine_caches():
        assert [str(m) for m in engine.legal_moves(s)] == ["f2-t2"]
        assert engine.status(s) == engine.IN_PROGRESS
        assert plain_dead(s) is False
        # the line: 7S down, 6H onto it, 7C home (back to the start's count), 8C home (one more)
        for m in ("f2-t2", "t1-t2", "t1-f1", "t3-f1"):
            s = play(s, m)
        assert engine.foundation_cards(s) == 6


def test_dead_rule_simplicity_pysol_taking_a_card_down_and_back_is_not_progress() -> None:
    # without 8C the same line only gets back to five foundation cards: dead, although
    # foundation moves stay possible (7S down and up, 7C home)
    s = build(SIMPLICITY, _simplicity_endgame("JD"), base="5")
    with fresh_engine_caches():
        assert [str(m) for m in engine.rules_of(s).legal_moves(s)] == ["f2-t2"]
        assert engine.status(s) == engine.DEAD
        assert plain_dead(s) is True


# == czarina-pysol ===============================================================================
def test_2_11_6_czarina_pysol_space_takes_the_waste_top() -> None:
    s = build(CZARINA, quiet(CZARINA, s="KH QH", w="3S 4D", t3="5C"), base="5")
    after = legal(s, "t3-f1")
    assert texts(after, "t3") == ["4D"] and texts(after, "w") == ["3S"]
    assert stock_next_first(after) == ["QH", "KH"]  # the stock is not touched


def test_2_11_6_czarina_pysol_last_waste_card_into_the_space_turns_a_stock_card() -> None:
    s = build(CZARINA, quiet(CZARINA, s="KH QH", w="4D", t3="5C"), base="5")
    after = legal(s, "t3-f1")
    assert texts(after, "t3") == ["4D"] and texts(after, "w") == ["QH"] and stock_next_first(after) == ["KH"]


def test_czarina_pysol_a_moving_a_lone_pile_onto_another_also_fills() -> None:
    s = build(CZARINA, quiet(CZARINA, s="KH", w="3S", t1="6D", t2="TS", t4="5C"), base="5")
    after = legal(s, "t4-t1")  # 5C on 6D empties t4
    assert texts(after, "t4") == ["3S"] and texts(after, "w") == ["KH"] and after.stock == ()


def test_czarina_pysol_b_the_filled_card_is_never_played_for_you() -> None:
    s = build(CZARINA, quiet(CZARINA, s="KH", w="6C", f1="5C", t3="TD", t2="9S"), base="5")
    after = legal(s, "t2-t3")  # 9S on TD: t2 takes 6C, which fits f1, and stays put
    assert texts(after, "t2") == ["6C"] and texts(after, "f1") == ["5C"]
    assert texts(legal(after, "t2-f1"), "f1") == ["5C", "6C"]


def test_czarina_pysol_d_playing_the_last_waste_card_turns_the_next() -> None:
    s = build(CZARINA, quiet(CZARINA, s="KH QH", w="6C", f1="5C"), base="5")
    after = legal(s, "w-f1")
    assert texts(after, "w") == ["QH"] and stock_next_first(after) == ["KH"]


def test_czarina_pysol_e_a_base_card_arriving_by_fill_starts_a_corner() -> None:
    s = build(CZARINA, quiet(CZARINA, s="KH", w="5D", f1="5C", t1="6C"), base="5")
    after = legal(s, "t1-f1")
    assert texts(after, "t1") == ["5D"]
    assert texts(legal(after, "t1-f4"), "f4") == ["5D"]


def test_czarina_pysol_7_nothing_left_to_fill_leaves_the_space_open() -> None:
    s = build(CZARINA, quiet(CZARINA, f1="5C", t3="6C"), base="5")
    after = legal(s, "t3-f1")
    assert texts(after, "t3") == []
    assert texts(legal(after, "t1-t3"), "t3") == ["7C"]  # then any card may go there


def test_czarina_pysol_drawing_is_always_allowed_and_one_pass() -> None:
    s = build(CZARINA, quiet(CZARINA, s="KH", w="3S", f1="5C", t2="6C"), base="5")
    s = legal(s, "draw")
    assert texts(s, "w") == ["3S", "KH"]
    illegal(s, "redeal", "no redeal")


def test_2_11_2_czarina_pysol_base_ace_king_on_ace() -> None:
    s = build(CZARINA, quiet(CZARINA, s="TH JH", w="3S", t1="AD", t2="KC"), base="A")
    after = legal(s, "t2-t1")
    assert texts(after, "t1") == ["AD", "KC"]


# == corners-pysol ===============================================================================
def _corners(**piles: str) -> dict[str, str]:
    out = {"f1": "9C", "f2": "6S", "f3": "6H", "f4": "3D"}
    out.update(t1="JD", t2="2D", t3="9H", t4="JC", t5="5D")
    out.update(piles)
    return out


def test_2_11_11_corners_pysol_cells() -> None:
    s = build(CORNERS, _corners(s="KH", w="8H", t2="9C"))
    illegal(s, "w-t2", "one card")  # the waste top onto an occupied cell
    illegal(s, "w-t1", "one card")
    illegal(s, "t2-t1", "one card")
    # 9C home from its cell: the cell takes the waste top, the waste the next stock card
    s = build(CORNERS, _corners(s="KH", w="4D 8H", f1="9C", t2="TC"))
    after = legal(s, "t2-f1")
    assert texts(after, "t2") == ["8H"] and texts(after, "w") == ["4D"] and stock_next_first(after) == ["KH"]


def test_corners_pysol_a_a_foundation_from_its_dealt_card_round_the_corner() -> None:
    rest = words("TC JC QC KC AC 2C 3C 4C 5C 6C 7C 8C")
    s = build(CORNERS, _corners(s="KH", w=" ".join(reversed(rest + ["9C"]))))
    for c in rest:
        assert texts(s, "w")[-1] == c
        s = legal(s, "w-f1")
    assert len(texts(s, "f1")) == 13 and texts(s, "w") == ["9C"]
    illegal(s, "w-f1", "complete")


def test_corners_pysol_b_no_empty_foundation_and_suits_fixed() -> None:
    for deal in (1, 2, 3, 24, 32000):
        s = engine.new_game(CORNERS, deal)
        assert [len(texts(s, f)) for f in ("f1", "f2", "f3", "f4")] == [1, 1, 1, 1]
        assert [texts(s, f)[0][1] for f in ("f1", "f2", "f3", "f4")] == ["C", "S", "H", "D"]
    s = build(CORNERS, _corners(s="KH", w="7S"))
    illegal(s, "w-f3", "spades foundation")  # 7S after 6H: wrong suit
    assert texts(legal(s, "w-f2"), "f2") == ["6S", "7S"]


def test_corners_pysol_c_refill_from_the_waste_top_not_the_stock() -> None:
    s = build(CORNERS, _corners(s="AH", w="KS QS", t1="4D"))
    after = legal(s, "t1-f4")
    assert texts(after, "t1") == ["QS"] and stock_next_first(after) == ["AH"]


def test_corners_pysol_d_stock_empty_cells_still_refill_from_the_waste() -> None:
    s = build(CORNERS, _corners(w="KS QS", t1="4D"), redeals=1)
    after = legal(s, "t1-f4")
    assert texts(after, "t1") == ["QS"] and texts(after, "w") == ["KS"]


def test_2_11_10_corners_pysol_e_two_redeals_order_kept_then_none() -> None:
    s = build(CORNERS, _corners(w="KS QS 8H", t1="4D"))
    for n in (1, 2):
        s = legal(s, "redeal")
        assert s.redeals == n and texts(s, "w") == [] and stock_next_first(s) == ["KS", "QS", "8H"]
        for _ in range(3):
            s = legal(s, "draw")
    illegal(s, "redeal", "no redeals left")
    illegal(build(CORNERS, _corners(t1="4D")), "redeal", "waste is empty")


def test_corners_pysol_after_a_redeal_nothing_is_turned_and_a_space_waits() -> None:
    # PySolFC turns the waste over and stops: no card is turned for you, and a cell
    # emptied now stays empty until you fill it (any one card: the cells are free cells)
    s = build(CORNERS, _corners(w="KS QS 8H", t1="4D"))
    s = legal(s, "redeal")
    after = legal(s, "t1-f4")
    assert texts(after, "t1") == [] and texts(after, "w") == []
    after = legal(after, "draw")
    assert texts(after, "t1") == [] and texts(after, "w") == ["KS"]
    filled = legal(after, "w-t1")  # the waste top into the empty cell, by hand
    assert texts(filled, "t1") == ["KS"] and texts(filled, "w") == ["QS"]  # and the waste refills
    moved = legal(after, "t2-t1")  # or a cell card: its own cell then takes the waste top
    assert texts(moved, "t1") == ["2D"] and texts(moved, "t2") == ["KS"] and texts(moved, "w") == ["QS"]


def test_corners_pysol_cell_cards_go_only_to_foundations_or_an_empty_cell() -> None:
    s = build(CORNERS, _corners(s="KH", w="8H", t2="9C"))
    illegal(s, "t2-t3", "one card")
    illegal(s, "f1-t1", "foundation")


def test_corners_pysol_last_waste_card_home_turns_a_stock_card() -> None:
    s = build(CORNERS, _corners(s="KH QH", w="TC"))
    after = legal(s, "w-f1")
    assert texts(after, "w") == ["QH"] and stock_next_first(after) == ["KH"]


@pytest.mark.parametrize("variant", [SIMPLICITY, CZARINA, CORNERS])
def test_the_turned_card_is_dealt(variant: str) -> None:
    s = engine.new_game(variant, 7)
    assert len(texts(s, "w")) == 1
