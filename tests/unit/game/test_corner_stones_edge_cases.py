"""rules.md 3.7: Corner Stones edge cases (1-8, and the `corner-stones` half of 10),
plus the deal action. Piles: t1..t6 = L0..L5, t7..t12 = R0..R5, f1..f4 = the
Ace foundations A1..A4 of rows 1..4, f5..f8 = the King foundations K1..K4.
Side pile Lk (t{k+1}) feeds Ak, Rk (t{k+7}) feeds Kk; corner stones are
t1, t6, t7, t12. The deal runs L0, R0..R5, L5..L1.
"""

from __future__ import annotations

from server.game import engine
from server.game.deals import deal_order
from server.game.moves import parse
from server.game.variants import get_rules
from server.game.views import view
from tests.support.game import build, illegal, legal, stock_next_first, texts, words

V = "corner-stones"
DEALING = "2H 3H"  # a stock that is not empty: the deal phase



SPADES_A_TO_6 = "AS 2S 3S 4S 5S 6S"


def test_3_7_1_side_restriction() -> None:
    # L3 (t4) feeds only A3 (f3) during the deal
    s = build(V, {"s": DEALING, "f2": SPADES_A_TO_6, "t4": "7S"})
    illegal(s, "t4-f2", "during the deal", "f3")
    # the same 7S on L2 (t3, beside A2) or on the corner stone L0 (t1) is legal
    for pile in ("t3", "t1"):
        s = build(V, {"s": DEALING, "f2": SPADES_A_TO_6, pile: "7S"})
        assert texts(legal(s, f"{pile}-f2"), "f2")[-1] == "7S"
    # once the last card is dealt, the side restriction is gone
    s = build(V, {"f2": SPADES_A_TO_6, "t4": "7S"})
    assert texts(legal(s, "t4-f2"), "f2")[-1] == "7S"


def test_3_7_2_right_side_adjacency() -> None:
    # R2 (t9) feeds only K2 (f6), never the Ace foundation A2 (f2) of its row
    s = build(V, {"s": DEALING, "f2": "AH 2H 3H 4H 5H 6H 7H 8H", "t9": "9H"})
    illegal(s, "t9-f2", "f6")
    s = build(V, {"f2": "AH 2H 3H 4H 5H 6H 7H 8H", "t9": "9H"})
    assert texts(legal(s, "t9-f2"), "f2")[-1] == "9H"


def test_3_7_3_base_card_exemption() -> None:
    # the first AD on R3 (t10), rows 1-2 taken by clubs and spades: A3 or A4
    s = build(V, {"s": DEALING, "f1": "AC", "f2": "AS", "t10": "AD"})
    assert texts(legal(s, "t10-f3"), "f3") == ["AD"]
    assert texts(legal(s, "t10-f4"), "f4") == ["AD"]
    illegal(s, "t10-f1")  # occupied by clubs (and not beside R3)
    illegal(s, "t10-f5", "King")  # and never on a King foundation
    # with KD already on K4 (f8), AD must go to row 4
    s = build(V, {"s": DEALING, "f1": "AC", "f2": "AS", "f8": "KD", "t10": "AD"})
    illegal(s, "t10-f3", "row 4")
    assert texts(legal(s, "t10-f4"), "f4") == ["AD"]


def test_3_7_3_row_pairing_for_kings() -> None:
    # a King may not start a row whose Ace foundation holds another suit
    s = build(V, {"s": DEALING, "f1": "AC", "t1": "KS"})
    illegal(s, "t1-f5", "row 1 belongs to clubs")
    assert texts(legal(s, "t1-f6"), "f6") == ["KS"]
    # the first KS from a side pile (L1 feeds A1 only) is still a base card
    s = build(V, {"s": DEALING, "f2": "AS", "t2": "KS"})
    illegal(s, "t2-f5", "row 2")
    assert texts(legal(s, "t2-f6"), "f6") == ["KS"]


def test_3_7_4_second_copies() -> None:
    s = build(V, {"s": DEALING, "f1": "AC", "f5": "KC", "t1": "AC"})
    illegal(s, "t1-f2", "ordinary card")  # another empty Ace foundation
    illegal(s, "t1-f1")  # A on A
    illegal(s, "t1-f5")  # K1 shows KC, not 2C
    s = build(V, {"s": DEALING, "f1": "AC", "f5": "KC QC JC TC 9C 8C 7C 6C 5C 4C 3C 2C", "t1": "AC"})
    after = legal(s, "t1-f5")
    assert len(texts(after, "f5")) == 13 and texts(after, "f5")[-1] == "AC"


def test_3_7_4_second_king_ends_the_ace_foundation() -> None:
    s = build(V, {"s": DEALING, "f1": "AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC", "f5": "KC", "t1": "KC"})
    illegal(s, "t1-f6", "ordinary card")
    assert texts(legal(s, "t1-f1"), "f1")[-1] == "KC"


def test_3_7_5_no_tableau_building_during_the_deal() -> None:
    s = build(V, {"s": DEALING, "t1": "5H", "t7": "6C"})
    illegal(s, "t1-t7", "until every card is dealt")
    assert not [m for m in engine.legal_moves(s) if m.dst.startswith("t")]
    s = build(V, {"t1": "5H", "t7": "6C", "t2": "AH"})
    assert texts(legal(s, "t1-t7"), "t7") == ["6C", "5H"]
    assert texts(legal(s, "t7-t1"), "t1") == ["5H", "6C"]  # up as well as down


def test_3_7_6_wrap_after_the_deal() -> None:
    s = build(V, {"t1": "KH", "t2": "AC", "t3": "AS", "t4": "KD", "t5": "2D"})
    assert texts(legal(s, "t1-t2"), "t2") == ["AC", "KH"]
    assert texts(legal(s, "t3-t4"), "t4") == ["KD", "AS"]
    assert texts(legal(s, "t3-t5"), "t5") == ["2D", "AS"]
    illegal(s, "t1-t5", "up or down by one")  # K and 2 do not touch


def test_3_7_7_empty_pile_after_the_deal_is_never_filled() -> None:
    s = build(V, {"t2": "5H", "t3": "AH"})
    illegal(s, "t2-t10", "never filled")
    assert not [m for m in engine.legal_moves(s) if m.dst == "t10"]


def test_3_7_8_empty_piles_still_receive_cards_during_the_deal() -> None:
    # 20 cards dealt: the next one goes to L4 (t5), the 9th pile of the round
    stock = list(reversed(deal_order(1, 2)[20:]))
    s = build(V, {"s": stock, "t5": "AH"})
    assert view(s)["next_deal_pile"] == "t5"
    s = legal(s, "t5-f4")  # L4 feeds A4; AH is a base card anyway
    assert texts(s, "t5") == []
    nxt = stock_next_first(s)[0]
    s = legal(s, "deal")
    assert texts(s, "t5") == [nxt]  # the empty pile was not skipped


def test_3_7_10_no_foundation_transfer() -> None:
    s = build(V, {"s": DEALING, "f1": "AC 2C 3C 4C 5C 6C 7C", "f5": "KC QC JC TC 9C 8C"})
    illegal(s, "f1-f5", "foundation")
    illegal(s, "f5-f1", "foundation")
    after = build(V, {"f1": "AC 2C 3C 4C 5C 6C 7C", "f5": "KC QC JC TC 9C 8C", "t1": "7C"})
    illegal(after, "f1-t1", "foundation")


def test_corner_stones_corner_stone_feeds_any_foundation_during_the_deal() -> None:
    s = build(V, {"s": DEALING, "f1": "AC 2C", "f6": "KS QS", "t12": "3C", "t7": "JS"})
    assert texts(legal(s, "t12-f1"), "f1")[-1] == "3C"  # R5, far from row 1
    assert texts(legal(s, "t7-f6"), "f6")[-1] == "JS"
    s = build(V, {"s": DEALING, "f6": "KS QS", "t2": "JS"})
    illegal(s, "t2-f6", "f1")  # L1 feeds A1 only


def test_corner_stones_foundations_follow_suit_without_wrap() -> None:
    s = build(V, {"s": DEALING, "f1": "AC 2C", "f5": "KC", "t1": "3S", "t6": "AC", "t7": "QC"})
    illegal(s, "t1-f1", "suit")
    illegal(s, "t6-f5", "builds down")  # K then A would be a wrap
    assert texts(legal(s, "t7-f5"), "f5") == ["KC", "QC"]


# -- the deal action -------------------------------------------------------------
def test_corner_stones_starts_with_every_card_in_the_stock() -> None:
    s = engine.new_game(V, 1)
    assert len(s.stock) == 104
    assert all(not p for p in s.piles[1:])
    assert stock_next_first(s)[:12] == words("3D 5H JC KH 5S 5H KC KC 8D JD AS 8C")


def test_corner_stones_deal_one_card_then_a_round_clockwise() -> None:
    s = engine.new_game(V, 1)
    s = legal(s, "deal")
    assert texts(s, "t1") == ["3D"] and len(s.stock) == 103
    s = legal(s, "deal:round")  # to the end of the round: 11 more
    assert len(s.stock) == 92
    clockwise = ("t1", "t7", "t8", "t9", "t10", "t11", "t12", "t6", "t5", "t4", "t3", "t2")
    got = {p: texts(s, p) for p in clockwise}
    assert got == {"t1": ["3D"], "t7": ["5H"], "t8": ["JC"], "t9": ["KH"], "t10": ["5S"], "t11": ["5H"],
                   "t12": ["KC"], "t6": ["KC"], "t5": ["8D"], "t4": ["JD"], "t3": ["AS"], "t2": ["8C"]}
    s = legal(s, "deal")
    assert texts(s, "t1") == ["3D", "6C"]  # the second round starts at L0 again


def test_corner_stones_deal_all_and_the_short_last_round() -> None:
    s = engine.new_game(V, 24)
    for _ in range(8):
        s = legal(s, "deal:round")
    assert len(s.stock) == 8
    s = legal(s, "deal:round")  # 104 = 8 x 12 + 8: the last round reaches 8 piles
    assert len(s.stock) == 0
    counts = [len(texts(s, f"t{k}")) for k in range(1, 13)]
    # L0, R0..R5, L5 get 9 cards; L4..L1 get 8
    assert counts == [9, 8, 8, 8, 8, 9, 9, 9, 9, 9, 9, 9]
    assert get_rules(V).why_illegal(s, parse("deal")) == "every card has been dealt"
    assert parse("deal") not in get_rules(V).legal_moves(s)
    all_at_once = legal(engine.new_game(V, 24), "deal:all")
    assert all_at_once == s


def test_corner_stones_has_no_draw_or_redeal_and_moves_single_cards() -> None:
    s = build(V, {"s": DEALING, "t1": "AH", "t7": "2H"})
    illegal(s, "draw", "no draw")
    illegal(s, "redeal", "no redeal")
    illegal(s, "s-t1", "no pile s")
    illegal(s, "t1-w", "no pile w")
    s = build(V, {"t1": "AH 2S", "t7": "3H", "t2": "AD"})
    illegal(s, "t1-t7:2", "one card at a time")
