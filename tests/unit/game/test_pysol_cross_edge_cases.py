"""rules.md 2.11 for the PySolFC-exact cross games, `four-seasons-pysol` and
`florentine-pysol` (sections 2.7 and 5.1): the cases where they differ from the
book rules, each named by its number. The cases they share with the book rules
run in test_cross_edge_cases.py, parametrized over every cross variant."""

from __future__ import annotations

import pytest

from server.game import engine
from server.game.engine import play
from tests.support.game import build, illegal, legal, stock_next_first, texts, top, words
from tests.unit.game.test_cross_edge_cases import quiet

PYSOL = ("four-seasons-pysol", "florentine-pysol")


# -- 2.11.2: base Ace ---------------------------------------------------------------
@pytest.mark.parametrize("variant", PYSOL)
def test_2_11_2_base_ace_king_on_ace_is_legal(variant: str) -> None:
    s = build(variant, quiet(variant, s="TH JH", t1="AD", t2="KC", t4="QH"), base="A")
    after = legal(s, "t2-t1")  # PySolFC's tableau always wraps
    assert texts(after, "t1") == ["AD", "KC"]
    assert texts(legal(s, "t4-t2"), "t2") == ["KC", "QH"]


@pytest.mark.parametrize("variant", PYSOL)
def test_2_11_2_base_ace_king_on_ace_is_offered_by_the_generator(variant: str) -> None:
    s = build(variant, quiet(variant, s="TH JH", t1="AD", t2="KC"), base="A")
    assert "t2-t1" in [str(m) for m in engine.legal_moves(s)]


def test_2_11_2_four_seasons_refuses_what_the_pysol_version_allows() -> None:
    s = build("four-seasons", quiet("four-seasons", s="TH JH", t1="AD", t2="KC"), base="A")
    illegal(s, "t2-t1", "King", "Ace")


# -- 2.11.5: foundations stay locked ----------------------------------------------------------
@pytest.mark.parametrize("variant", PYSOL)
def test_2_11_5_foundation_cards_stay(variant: str) -> None:
    s = build(variant, quiet(variant, s="TH JH", f1="5C", t1="6D"), base="5")
    illegal(s, "f1-t1", "foundation")


# -- 2.11.10: redeals -------------------------------------------------------------------------
def test_2_11_10_four_seasons_pysol_rejects_redeal() -> None:
    v = "four-seasons-pysol"
    s = build(v, quiet(v, w="3C 9D", t3="5H"), base="5")
    illegal(s, "redeal", "no redeal")


def test_2_11_10_florentine_pysol_allows_exactly_one_redeal_in_order() -> None:
    v = "florentine-pysol"
    s = build(v, quiet(v, w="3C 9D KS", t3="5H"), base="5")
    s = legal(s, "redeal")
    assert s.redeals == 1 and texts(s, "w") == []
    assert stock_next_first(s) == ["3C", "9D", "KS"]  # the first drawn is drawn first again
    for _ in range(3):
        s = legal(s, "draw")
    illegal(s, "redeal", "no redeals left")


def test_2_11_10_florentine_pysol_pass_2_is_pass_1_minus_played() -> None:
    s = engine.new_game("florentine-pysol", 7)
    pass1 = [top(s, "w") or ""]  # the card turned at the deal is the first of the pass
    played: set[str] = set()
    while s.stock:
        foundation = [m for m in engine.legal_moves(s) if m.src == "w" and m.dst.startswith("f")]
        if foundation:
            played.add(top(s, "w") or "")
            s = play(s, foundation[0])
            continue
        s = play(s, "draw")
        pass1.append(top(s, "w") or "")
    s = play(s, "redeal")
    pass2: list[str] = []
    while s.stock:
        s = play(s, "draw")
        pass2.append(top(s, "w") or "")
    assert pass2 == [c for c in pass1 if c not in played]


def test_2_11_10_florentine_pysol_redeal_needs_a_waste() -> None:
    v = "florentine-pysol"
    illegal(build(v, quiet(v, t3="5H"), base="5"), "redeal", "waste is empty")


# -- 2.7: any card into a gap, the turned card ----------------------------------------------
@pytest.mark.parametrize("variant", PYSOL)
def test_2_7_any_card_fills_a_gap_at_any_time(variant: str) -> None:
    s = build(variant, quiet(variant, s="TH JH", w="4S", t3=""), base="5")
    assert texts(legal(s, "t2-t3"), "t3") == ["9C"]  # from another cross pile
    assert texts(legal(s, "w-t3"), "t3") == ["4S"]  # or from the waste
    assert texts(legal(s, "draw"), "t3") == []  # or not at all: drawing is fine with a gap open


@pytest.mark.parametrize("variant", PYSOL)
def test_2_11_13_deal_1_turns_7c_onto_the_waste(variant: str) -> None:
    s = engine.new_game(variant, 1)
    assert texts(s, "f4") == ["JD"]
    assert [c for k in range(1, 6) for c in texts(s, f"t{k}")] == words("2D 9H JC 5D 7H")
    assert texts(s, "w") == ["7C"] and stock_next_first(s)[:2] == ["5H", "KD"] and len(s.stock) == 45


@pytest.mark.parametrize("variant", PYSOL)
def test_2_7_the_turned_card_plays_at_once(variant: str) -> None:
    # #1: JC to its corner empties the centre, and the turned 7C can fill it straight away
    s = legal(engine.new_game(variant, 1), "t3-f1")
    assert texts(legal(s, "w-t3"), "t3") == ["7C"]
