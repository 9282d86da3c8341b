"""Deal numbers of the PySolFC-exact games of issue 15: simplicity-pysol (PySolFC 437),
czarina-pysol (483), corners-pysol (417) and les-quatre-coins-pysol (620).

Each layout is held to (a) the hand-transcribed vectors of rules.md section 7 and
(b) the independent pysol-cards shuffle, dealt here by PySolFC's procedure for the
game, written again from PySolFC's deal (not from our engine), bias included."""

from __future__ import annotations

import pytest

from server.game import engine
from server.game.cards import card_text
from tests.support.game import stock_next_first, texts, words
from tests.unit.game.test_golden_deals import EXTRA_NUMBERS, LAYOUTS, _deal_arg, pysol_cards_array

NUMBERS = ["1", "24", "31999", "32000", "123456789", "ms100000", *EXTRA_NUMBERS]
FOUNDATION_OF_SUIT = {"C": "f1", "S": "f2", "H": "f3", "D": "f4"}
GOLDEN_NUMBERS = ["1", "24", "31999", "32000", "123456789", "ms100000", "99999999999999999999"]
NEW = ("simplicity-pysol", "czarina-pysol", "corners-pysol", "les-quatre-coins-pysol")


def top_first(array: list[int]) -> list[str]:
    return [card_text(i % 52) for i in reversed(array)]


def corners_hook(array: list[int]) -> list[int]:
    """PySolFC 417's _shuffleHook: the first card of each suit met from index 0
    (the bottom of the talon) is taken out; they go on top sorted by descending
    suit number, so clubs (suit 0) ends up topmost."""
    suits: list[int] = []
    taken: list[int] = []
    rest = list(array)
    for c in array:
        if c // 13 not in suits:
            suits.append(c // 13)
            rest.remove(c)
            taken.append(c)
            if len(suits) == 4:
                break
    return rest + sorted(taken, key=lambda c: -(c // 13))


def test_the_golden_file_has_the_new_games_for_every_number() -> None:
    for v in NEW:
        deals = {d for vv, d in LAYOUTS if vv == v}
        assert set(GOLDEN_NUMBERS) <= deals, v


@pytest.mark.parametrize("variant", NEW)
@pytest.mark.parametrize("deal", GOLDEN_NUMBERS)
def test_golden_rows_are_what_the_engine_deals(variant: str, deal: str) -> None:
    s = engine.new_game(variant, _deal_arg(deal))
    rows = LAYOUTS[variant, deal]
    for pile, cards in rows.items():
        assert (stock_next_first(s) if pile == "s" else texts(s, pile)) == cards, pile


# -- rules.md section 7, transcribed by hand ------------------------------------------------
def test_section_7_simplicity_pysol_1() -> None:
    s = engine.new_game("simplicity-pysol", 1)
    assert texts(s, "f4") == ["JD"] and s.base == 11
    assert [c for k in range(1, 13) for c in texts(s, f"t{k}")] == \
        words("2D 9H JC 5D 7H 7C 5H KD KC 9S 5S AD")
    assert texts(s, "w") == ["QC"] and len(s.stock) == 38  # PySolFC turns the 14th card


def test_section_7_czarina_pysol_1_is_four_seasons_pysol_1() -> None:
    s, t = engine.new_game("czarina-pysol", 1), engine.new_game("four-seasons-pysol", 1)
    assert s.piles == t.piles and s.base == t.base
    assert texts(s, "w") == ["7C"] and stock_next_first(s)[0] == "5H"


def test_section_7_corners_pysol_1() -> None:
    s = engine.new_game("corners-pysol", 1)
    assert [texts(s, f) for f in ("f1", "f2", "f3", "f4")] == [["9C"], ["6S"], ["6H"], ["3D"]]
    assert [c for k in range(1, 6) for c in texts(s, f"t{k}")] == words("JD 2D 9H JC 5D")
    assert texts(s, "w") == ["7H"]
    assert stock_next_first(s) == words(
        "7C 5H KD KC 9S 5S AD QC KH 3H 2S KS 9D QD JS AS AH 3C 4C 5C TS QH 4H AC 4D 7S 3S TD "
        "4S TH 8H 2C JH 7D 6D 8S 8D QS 6C 8C TC 2H")


def test_section_7_les_quatre_coins_pysol_1() -> None:
    s = engine.new_game("les-quatre-coins-pysol", 1)
    left = [texts(s, f"t{k}") for k in range(1, 7)]
    right = [texts(s, f"t{k}") for k in range(7, 13)]
    assert left == [[c] for c in words("3D 5H JC KH 5S 5H")]  # L0..L5
    assert right == [[c] for c in words("KC KC 8D JD AS 8C")]  # R0..R5
    assert len(s.stock) == 92 and stock_next_first(s)[:12] == words("6C 6H TC 8D 4C JS QC 4H KD 2H TD 8S")
    s = engine.play(s, "deal")
    assert texts(s, "t1") == ["3D", "6C"] and len(s.stock) == 80


# -- the independent shuffle, dealt by PySolFC's procedure -------------------------------
@pytest.mark.parametrize("deal", NUMBERS)
def test_simplicity_pysol_follows_the_pysol_cards_shuffle(deal: str) -> None:
    # startGame: base card to its suit's foundation, dealRow to the 12 rows, dealCards to the waste
    order = top_first(pysol_cards_array(deal, 1))
    s = engine.new_game("simplicity-pysol", _deal_arg(deal))
    assert texts(s, FOUNDATION_OF_SUIT[order[0][1]]) == order[:1]
    assert [c for k in range(1, 13) for c in texts(s, f"t{k}")] == order[1:13]
    assert texts(s, "w") == order[13:14] and stock_next_first(s) == order[14:]


@pytest.mark.parametrize("deal", NUMBERS)
def test_czarina_pysol_follows_the_pysol_cards_shuffle(deal: str) -> None:
    order = top_first(pysol_cards_array(deal, 1))
    s = engine.new_game("czarina-pysol", _deal_arg(deal))
    assert texts(s, FOUNDATION_OF_SUIT[order[0][1]]) == order[:1]
    assert [c for k in range(1, 6) for c in texts(s, f"t{k}")] == order[1:6]
    assert texts(s, "w") == order[6:7] and stock_next_first(s) == order[7:]


@pytest.mark.parametrize("deal", NUMBERS)
def test_corners_pysol_follows_the_pysol_cards_shuffle_and_hook(deal: str) -> None:
    # startGame: dealRow to the foundations (clubs, spades, hearts, diamonds), dealRow to the
    # five cells, dealCards to the waste; the hook ran on pysol-cards' array first
    order = top_first(corners_hook(pysol_cards_array(deal, 1)))
    s = engine.new_game("corners-pysol", _deal_arg(deal))
    assert [c for f in ("f1", "f2", "f3", "f4") for c in texts(s, f)] == order[:4]
    assert [c[1] for c in order[:4]] == ["C", "S", "H", "D"]
    assert [c for k in range(1, 6) for c in texts(s, f"t{k}")] == order[4:9]
    assert texts(s, "w") == order[9:10] and stock_next_first(s) == order[10:]


@pytest.mark.parametrize("deal", NUMBERS)
def test_corners_pysol_keeps_the_hooks_bias(deal: str) -> None:
    # each foundation card is the first of its suit from the bottom of the talon: no card of
    # that suit lies deeper in the shuffled array (what a uniform deal would not guarantee)
    array = [card_text(i % 52) for i in pysol_cards_array(deal, 1)]
    s = engine.new_game("corners-pysol", _deal_arg(deal))
    for f, letter in (("f1", "C"), ("f2", "S"), ("f3", "H"), ("f4", "D")):
        first = next(c for c in array if c[1] == letter)
        assert texts(s, f) == [first]


@pytest.mark.parametrize("deal", NUMBERS)
def test_les_quatre_coins_pysol_follows_the_pysol_cards_shuffle(deal: str) -> None:
    # 104 cards, no ms_rearrange effect; startGame deals one round: rows[:1]+rows[4:8]+rows[2:3]
    # +rows[1:2]+rows[8:]+rows[3:4] of PySolFC's rows, i.e. L0..L5 then R0..R5
    order = top_first(pysol_cards_array(deal, 2))
    s = engine.new_game("les-quatre-coins-pysol", _deal_arg(deal))
    assert [c for k in range(1, 13) for c in texts(s, f"t{k}")] == order[:12]
    assert stock_next_first(s) == order[12:]
