"""rules.md 3.4 and 3.7 for `les-quatre-coins-pysol` (PySolFC 620), each case named by its
number where the spec numbers it. Piles: t1..t6 = L0..L5, t7..t12 = R0..R5; f1..f4 the
Ace foundations of rows 1..4 (clubs, spades, hearts, diamonds), f5..f8 the King ones."""

from __future__ import annotations

from server.game import engine
from server.game.views import view
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

LQC = "les-quatre-coins-pysol"
STOCK = "2D 3D 4D"  # some cards left to deal: the deal is still going on


def test_3_7_1_side_pile_feeds_only_its_started_neighbour_during_the_deal() -> None:
    spades = "AS 2S 3S 4S 5S 6S"
    s = build(LQC, {"s": STOCK, "f2": spades, "t4": "7S"})  # L3 sits beside f3, not f2
    illegal(s, "t4-f2", "feeds only f3")
    assert texts(legal(build(LQC, {"s": STOCK, "f2": spades, "t3": "7S"}), "t3-f2"), "f2")[-1] == "7S"
    assert texts(legal(build(LQC, {"s": STOCK, "f2": spades, "t1": "7S"}), "t1-f2"), "f2")[-1] == "7S"
    after = build(LQC, {"f2": spades, "t4": "7S"})  # every card dealt
    assert texts(legal(after, "t4-f2"), "f2")[-1] == "7S"


def test_3_7_2_right_side_feeds_the_king_foundation_beside_it() -> None:
    s = build(LQC, {"s": STOCK, "f3": "AH 2H 3H 4H 5H 6H 7H 8H", "t9": "9H"})  # R2 is beside f6
    illegal(s, "t9-f3", "feeds only f6")
    s = build(LQC, {"s": STOCK, "f6": "KS QS JS", "t9": "TS"})
    assert texts(legal(s, "t9-f6"), "f6") == words("KS QS JS TS")


def test_3_4_an_empty_foundation_takes_its_ace_or_king_from_any_pile() -> None:
    # PySolFC's LesQuatreCoins_Foundation checks the side only once the foundation holds
    # cards: AH on L1 (the clubs row) starts the hearts Ace foundation during the deal
    s = build(LQC, {"s": STOCK, "t2": "AH", "t8": "KD"})
    assert texts(legal(s, "t2-f3"), "f3") == ["AH"]
    assert texts(legal(s, "t8-f8"), "f8") == ["KD"]


def test_3_4_suits_are_fixed_per_row() -> None:
    s = build(LQC, {"s": STOCK, "t1": "AC", "t7": "KH"})
    illegal(s, "t1-f2", "spades foundation")
    illegal(s, "t7-f5", "clubs foundation")
    assert texts(legal(s, "t1-f1"), "f1") == ["AC"] and texts(legal(s, "t7-f7"), "f7") == ["KH"]


def test_3_7_4_a_second_ace_is_an_ordinary_card() -> None:
    s = build(LQC, {"s": STOCK, "f1": "AC", "f5": "KC QC JC TC 9C 8C 7C 6C 5C 4C 3C 2C", "t1": "AC"})
    illegal(s, "t1-f1", "does not go on")
    assert texts(legal(s, "t1-f5"), "f5")[-1] == "AC"


def test_3_7_5_no_tableau_building_during_the_deal() -> None:
    s = build(LQC, {"s": STOCK, "t1": "5H", "t7": "6C"})
    illegal(s, "t1-t7", "until every card is dealt")
    assert texts(legal(build(LQC, {"t1": "5H", "t7": "6C", "f1": "AC"}), "t1-t7"), "t7") == ["6C", "5H"]


def test_3_7_6_up_or_down_any_suit_no_wrap() -> None:
    s = build(LQC, {"t1": "KH", "t2": "AC", "t3": "QS", "t4": "2D", "f1": "AC"})
    illegal(s, "t1-t2", "no King on an Ace")
    illegal(s, "t2-t1", "no King on an Ace")
    assert texts(legal(s, "t3-t1"), "t1") == ["KH", "QS"]  # down
    assert texts(legal(s, "t2-t4"), "t4") == ["2D", "AC"]  # down
    assert texts(legal(s, "t4-t2"), "t2") == ["AC", "2D"]  # up


def test_3_7_7_an_empty_pile_is_never_filled() -> None:
    s = build(LQC, {"t2": "5H", "t9": "", "f1": "AC", "t3": "2C"})
    illegal(s, "t2-t9", "never filled")


def test_3_7_8_the_deal_reaches_empty_piles_too() -> None:
    s = build(LQC, {"s": " ".join(reversed(words("2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC"))), "t5": "AH"})
    s = legal(s, "t5-f3")
    s = legal(s, "deal")
    assert texts(s, "t5") == ["6C"] and [texts(s, f"t{k}") for k in (1, 12)] == [["2C"], ["KC"]]


def test_3_7_9_last_round_of_a_pass_then_the_gathered_round() -> None:
    s = engine.new_game(LQC, 1)  # the first round is dealt with the game
    for _ in range(7):
        s = legal(s, "deal")
    assert len(s.stock) == 8
    before = {f"t{k}": len(texts(s, f"t{k}")) for k in range(1, 13)}
    s = legal(s, "deal")  # the 9th round of pass 1: eight cards
    grown = [p for p in before if len(texts(s, p)) > before[p]]
    assert grown == ["t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8"] and s.stock == ()
    assert "deal" not in [str(m) for m in engine.legal_moves(s)]
    s = legal(s, "redeal")
    assert s.redeals == 1 and sum(len(texts(s, f"t{k}")) for k in range(1, 13)) == 12


def test_3_4_the_gathering_order() -> None:
    # rows in PySolFC's order (L0, R0, L5, R5, L1..L4, R1..R4), each taken from its top
    piles = {"t1": "AC 2C", "t7": "3C", "t6": "4C", "t12": "5C 6C", "t2": "7C", "t3": "8C",
             "t4": "9C", "t5": "TC", "t8": "JC", "t9": "QC", "t10": "KC", "t11": "AD 2D", "f2": "AS"}
    s = build(LQC, piles)
    s = legal(s, "redeal")
    gathered = words("2C AC 3C 4C 6C 5C 7C 8C 9C TC JC QC KC 2D AD")  # first gathered first
    dealt = list(reversed(gathered))  # the last gathered (R4's bottom card) is dealt first
    assert [c for k in range(1, 13) for c in texts(s, f"t{k}")] == dealt[:12]
    assert stock_next_first(s) == dealt[12:]


def test_3_4_two_redeals_then_none() -> None:
    s = build(LQC, {"t1": "5H", "t2": "9S", "f1": "AC", "t3": "2C"})
    s = legal(s, "redeal")
    s = build(LQC, {"t1": "5H", "t2": "9S", "t3": "2C", "f1": "AC"}, redeals=2)
    illegal(s, "redeal", "no redeals left")
    illegal(s, "deal", "every card has been dealt")


def test_3_4_one_round_per_deal_and_no_draw() -> None:
    s = engine.new_game(LQC, 24)
    illegal(s, "deal:all", "one round with every deal")
    illegal(s, "deal:round", "one round with every deal")  # PySolFC has one talon click
    illegal(s, "draw", "no draw")
    assert len(legal(s, "deal").stock) == len(s.stock) - 12


def test_3_7_10_foundation_transfer_between_a_suits_two_foundations() -> None:
    clubs_up, clubs_down = "AC 2C 3C 4C 5C 6C 7C", "KC QC JC TC 9C 8C"
    s = build(LQC, {"s": STOCK, "f1": clubs_up, "f5": clubs_down, "t1": "9H"})
    after = legal(s, "f1-f5")
    assert texts(after, "f5")[-1] == "7C" and texts(after, "f1")[-1] == "6C"
    assert texts(legal(after, "f5-f1"), "f1")[-1] == "7C"
    illegal(s, "f1-t1", "until every card is dealt")  # to the tableau only after the deal


def test_3_4_foundation_card_back_to_the_tableau_after_the_deal() -> None:
    s = build(LQC, {"f1": "AC 2C 3C", "t1": "4H", "t2": "KS", "f6": "KS QS"})
    after = legal(s, "f1-t1")
    assert texts(after, "t1") == ["4H", "3C"] and texts(after, "f1") == ["AC", "2C"]


def test_dead_rule_les_quatre_coins_pysol_shuffling_between_foundations_is_not_progress() -> None:
    # every club is home, split between its two foundations; no other foundation can start:
    # the clubs can move up and down and onto 9S, but no card is ever added
    piles = {"f1": "AC 2C 3C 4C 5C 6C 7C", "f5": "KC QC JC TC 9C 8C", "t1": "5H", "t2": "9S"}
    s = build(LQC, piles, redeals=2)
    with fresh_engine_caches():
        assert engine.rules_of(s).legal_moves(s)
        assert engine.status(s) == engine.DEAD and plain_dead(s) is True


def test_dead_rule_les_quatre_coins_pysol_alive_through_a_foundation_card() -> None:
    # AS lies under 2H, which no pile takes; 3C comes down from its foundation onto 4D,
    # 2H goes onto it, AS goes home (the start's count again) and 2S after it (one more)
    piles = {"f1": "AC 2C 3C", "t1": "AS 2H", "t2": "4D", "t3": "2S"}
    s = build(LQC, piles, redeals=2)
    with fresh_engine_caches():
        assert "f1-t2" in [str(m) for m in engine.rules_of(s).legal_moves(s)]
        assert engine.status(s) == engine.IN_PROGRESS and plain_dead(s) is False
        for m in ("f1-t2", "t1-t2", "t1-f2", "t3-f2"):
            s = engine.play(s, m)
        assert texts(s, "f2") == ["AS", "2S"] and engine.foundation_cards(s) == 4


def test_dead_rule_les_quatre_coins_pysol_a_card_home_for_one_taken_down_is_no_progress() -> None:
    # the same without 2S: AS can go home only after 3C came down, so three cards stay the most
    piles = {"f1": "AC 2C 3C", "t1": "AS 2H", "t2": "4D"}
    s = build(LQC, piles, redeals=2)
    with fresh_engine_caches():
        assert engine.status(s) == engine.DEAD and plain_dead(s) is True


def test_view_says_the_phase_the_next_pile_and_the_redeals_left() -> None:
    s = engine.new_game(LQC, 1)
    v = view(s)
    assert v["phase"] == "deal" and v["next_deal_pile"] == "t1" and v["passes_left"] == 2
    assert v["legal_moves"].count("deal") == 1 and "deal:round" not in v["legal_moves"]
    done = build(LQC, {"t1": "5H", "t2": "4H", "f1": "AC"}, redeals=1)
    v = view(done)
    assert v["phase"] == "play" and v["next_deal_pile"] is None and v["passes_left"] == 1
    assert "redeal" in v["legal_moves"] and v["stock_count"] == 0
