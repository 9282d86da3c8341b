"""Deal numbers: the project's golden file seeds/deals/deal_v1.tsv, the independent
pysol_cards package, and the vectors of rules.md section 7 (hard-coded here)."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pysol_cards.cards import ms_rearrange
from pysol_cards.random import LCRandom31, MTRandom

from server.game import engine
from server.game.cards import card_text, parse_card, rank, suit
from server.game.deals import (
    LC_LIMIT,
    MAX_DEAL,
    MS_MAX,
    BadDealNumber,
    canonical_deal_text,
    deal_order,
    parse_deal_number,
    shuffled_array,
)
from server.game.variants import get_rules, variant_ids
from tests.support.game import stock_next_first, texts, words

GOLDEN = Path(__file__).resolve().parents[3] / "seeds" / "deals" / "deal_v1.tsv"


def _load() -> tuple[dict[tuple[str, str], dict[str, list[str]]], list[tuple[str, str, list[str]]]]:
    layouts: dict[tuple[str, str], dict[str, list[str]]] = defaultdict(dict)
    orders: list[tuple[str, str, list[str]]] = []
    for line in GOLDEN.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        variant, deal, pile = fields[:3]
        cards = fields[3].split() if len(fields) > 3 else []
        if variant.startswith("order-"):
            assert pile == "order"
            orders.append((variant, deal, cards))
        else:
            assert pile not in layouts[variant, deal], f"duplicate row {variant} {deal} {pile}"
            layouts[variant, deal][pile] = cards
    return dict(layouts), orders


LAYOUTS, ORDERS = _load()


def _deal_arg(text: str) -> int | str:
    return int(text) if text.isdigit() else text


def test_golden_file_covers_every_variant_and_the_required_numbers() -> None:
    variants = {v for v, _ in LAYOUTS}
    assert variants == set(get_rules(v).spec.id for v in variants)
    assert len(variants) == len(variant_ids())
    for v in variants:
        deals = {d for vv, d in LAYOUTS if vv == v}
        assert {"1", "24", "31999", "32000", "123456789"} <= deals, v
    assert {(v, d) for v, d, _ in ORDERS} >= {
        (f"order-{k}deck", d) for k in (1, 2) for d in ("1", "24", "31999", "32000", "123456789")
    }


@pytest.mark.parametrize(("variant", "deal"), sorted(LAYOUTS), ids=[f"{v}-{d}" for v, d in sorted(LAYOUTS)])
def test_golden_layouts(variant: str, deal: str) -> None:
    rows = LAYOUTS[variant, deal]
    rules = get_rules(variant)
    assert set(rows) == set(rules.names), "the golden file lists every pile"
    state = engine.new_game(variant, _deal_arg(deal))
    for pile in rules.names:
        got = stock_next_first(state) if pile == "s" else texts(state, pile)
        assert got == rows[pile], f"{variant} #{deal} {pile}"
    if deal.isdigit():
        assert engine.new_game(variant, deal) == state  # the text form deals the same


@pytest.mark.parametrize(("kind", "deal", "cards"), ORDERS, ids=[f"{k}-{d}" for k, d, _ in ORDERS])
def test_golden_orders(kind: str, deal: str, cards: list[str]) -> None:
    decks = int(kind.removeprefix("order-").removesuffix("deck"))
    got = [card_text(c) for c in deal_order(_deal_arg(deal), decks)]
    assert got == cards
    assert len(cards) == 52 * decks


# -- the independent generator ------------------------------------------------------
def pysol_cards_array(deal: str, decks: int) -> list[int]:
    """pysol-cards' shuffled array of PySolFC card ids, bottom of the talon first:
    LCRandom31 for numbers below 32000 and ms<N>, MTRandom otherwise, and
    ms_rearrange on the LC path (a no-op for 104 cards)."""
    if deal.startswith("ms"):
        n, lc = int(deal[2:]), True
    else:
        n = int(deal)
        lc = n < 32000
    ids = list(range(52 * decks))
    rng: LCRandom31 | MTRandom
    if lc:
        rng = LCRandom31()
        rng.setSeed(n)
        ids = ms_rearrange(ids)
    else:
        rng = MTRandom()
        rng.setSeed(n)
    rng.shuffle(ids)
    return ids


def pysol_cards_order(deal: str, decks: int) -> list[str]:
    """Deal order from pysol_cards: the shuffled array is bottom first, so it is
    dealt reversed."""
    return [card_text(i % 52) for i in reversed(pysol_cards_array(deal, decks))]


@pytest.mark.parametrize(("kind", "deal", "cards"), ORDERS, ids=[f"{k}-{d}" for k, d, _ in ORDERS])
def test_golden_orders_match_pysol_cards(kind: str, deal: str, cards: list[str]) -> None:
    decks = int(kind.removeprefix("order-").removesuffix("deck"))
    assert pysol_cards_order(deal, decks) == cards


EXTRA_NUMBERS = ["2", "3", "617", "11982", "31998", "32001", "300000000000", "ms1", "ms31999", "ms32000",
                 f"ms{2**31 - 1}", f"ms{2**31}", f"ms{2**32 - 1}", f"ms{2**32}", f"ms{MS_MAX}",
                 str(10**16), str(MAX_DEAL)]


@pytest.mark.parametrize("decks", [1, 2])
@pytest.mark.parametrize("deal", EXTRA_NUMBERS)
def test_deal_order_matches_pysol_cards(deal: str, decks: int) -> None:
    assert [card_text(c) for c in deal_order(deal, decks)] == pysol_cards_order(deal, decks)


@settings(max_examples=40, deadline=None)
@given(
    deal=st.one_of(
        st.integers(1, LC_LIMIT - 1).map(str),
        st.integers(LC_LIMIT, MAX_DEAL).map(str),
        st.integers(1, MS_MAX).map(lambda n: f"ms{n}"),
    ),
    decks=st.sampled_from([1, 2]),
)
def test_deal_order_matches_pysol_cards_for_any_number(deal: str, decks: int) -> None:
    assert [card_text(c) for c in deal_order(deal, decks)] == pysol_cards_order(deal, decks)


def test_shuffled_array_is_bottom_first() -> None:
    assert shuffled_array(1)[::-1] == deal_order(1)
    assert shuffled_array(1)[-1] == parse_card("JD")  # the last element is dealt first


# -- rules.md section 7, transcribed by hand --------------------------------------------
ORDER_1 = ("JD 2D 9H JC 5D 7H 7C 5H KD KC 9S 5S AD QC KH 3H 2S KS 9D QD JS AS AH 3C 4C 5C TS QH 4H AC "
           "4D 7S 3S TD 4S TH 8H 2C JH 7D 6D 8S 8D QS 6C 3D 8C TC 6S 9C 2H 6H")
ORDER_123456789 = ("8H 2H JD 3D KH 6S 5D 6H 5S 3S 4S TS 9C JS AC 2D QH 9S KS JC 9H 8D 7S 3C AD 5H 2C TH "
                   "4D KC QS 7H QD 8C AS 9D 5C 4C TC 3H 2S AH QC 7C 6C KD 7D 6D JH 8S 4H TD")
# deal: (base, T0..T4, PySolFC's waste card = our stock's next card, the stock card after it)
CROSS_TABLE = {
    1: ("JD", "2D 9H JC 5D 7H", "7C", "5H"),
    2: ("QD", "QC KC 3C 4C 2C", "KD", "5C"),
    3: ("KC", "2D QC 7H 6S 8H", "TH", "4D"),
    24: ("4C", "5H QC 5D 2D 7H", "AH", "7S"),
    31999: ("JD", "JH AD QH KH 6S", "6D", "JC"),
    32000: ("7S", "4D JS 8D 6D 3H", "3D", "TH"),
    123456789: ("8H", "2H JD 3D KH 6S", "5D", "6H"),
}
CROSS_DEAL_VARIANTS = ("four-seasons", "vanishing-cross", "four-seasons-redeal", "czarina", "corners")
FOUNDATION_OF_SUIT = {"C": "f1", "S": "f2", "H": "f3", "D": "f4"}


def test_section_7_card_orders() -> None:
    assert " ".join(card_text(c) for c in deal_order(1)) == ORDER_1
    assert " ".join(card_text(c) for c in deal_order(123456789)) == ORDER_123456789
    # MS FreeCell #1 is the same order (its first row: JD 2D 9H JC 5D 7H 7C 5H)
    assert ORDER_1.split()[:8] == words("JD 2D 9H JC 5D 7H 7C 5H")


@pytest.mark.parametrize("variant", CROSS_DEAL_VARIANTS)
@pytest.mark.parametrize("deal", sorted(CROSS_TABLE))
def test_section_7_cross_table(variant: str, deal: int) -> None:
    base, cross, waste, nxt = CROSS_TABLE[deal]
    s = engine.new_game(variant, deal)
    f = FOUNDATION_OF_SUIT[base[1]]
    assert texts(s, f) == [base]
    assert all(texts(s, g) == [] for g in FOUNDATION_OF_SUIT.values() if g != f)
    assert s.base == rank(parse_card(base))
    assert [texts(s, f"t{k}") for k in range(1, 6)] == [[c] for c in cross.split()]
    assert texts(s, "w") == []  # the seed variants turn no card at the deal
    assert stock_next_first(s)[:2] == [waste, nxt]
    assert len(s.stock) == 46


PYSOL_CROSS_VARIANTS = ("four-seasons-pysol", "florentine-pysol")


@pytest.mark.parametrize("variant", PYSOL_CROSS_VARIANTS)
@pytest.mark.parametrize("deal", sorted(CROSS_TABLE))
def test_section_7_cross_table_pysol_turns_the_waste_card(variant: str, deal: int) -> None:
    base, cross, waste, nxt = CROSS_TABLE[deal]
    s = engine.new_game(variant, deal)
    assert texts(s, FOUNDATION_OF_SUIT[base[1]]) == [base]
    assert [texts(s, f"t{k}") for k in range(1, 6)] == [[c] for c in cross.split()]
    assert texts(s, "w") == [waste]  # PySolFC's turned card, as in games 484 and 696
    assert stock_next_first(s)[0] == nxt and len(s.stock) == 45


@pytest.mark.parametrize("variant", PYSOL_CROSS_VARIANTS)
@pytest.mark.parametrize("deal", ["1", "24", "32000", "123456789", "ms100000", *EXTRA_NUMBERS[:8]])
def test_pysol_cross_layouts_follow_the_pysol_cards_shuffle(variant: str, deal: str) -> None:
    # no shuffle hook in 484/696: base, the cross, the turned card, then the stock in talon order
    order = pysol_cards_order(deal, 1)
    s = engine.new_game(variant, _deal_arg(deal))
    assert texts(s, FOUNDATION_OF_SUIT[order[0][1]]) == order[:1]
    assert [c for k in range(1, 6) for c in texts(s, f"t{k}")] == order[1:6]
    assert texts(s, "w") == order[6:7] and stock_next_first(s) == order[7:]


def test_section_7_four_seasons_1883_deal_1_by_dicks_procedure() -> None:
    # JD is the base; 2D, 9H to the cross; JC starts the clubs; 5D, 7H, 7C fill the cross
    s = engine.new_game("four-seasons-1883", 1)
    assert texts(s, "f4") == ["JD"] and texts(s, "f1") == ["JC"]
    assert [texts(s, f"t{k}") for k in range(1, 6)] == [["2D"], ["9H"], ["5D"], ["7H"], ["7C"]]
    assert stock_next_first(s) == ORDER_1.split()[7:]


def test_section_7_simplicity_1() -> None:
    s = engine.new_game("simplicity", 1)
    assert texts(s, "f4") == ["JD"] and s.base == 11
    assert [c for k in range(1, 13) for c in texts(s, f"t{k}")] == \
        words("2D 9H JC 5D 7H 7C 5H KD KC 9S 5S AD")
    assert texts(s, "w") == [] and stock_next_first(s)[0] == "QC"


def test_section_7_betsy_ross_1() -> None:
    s = engine.new_game("betsy-ross", 1)
    assert [c for i in ("i1", "i2", "i3", "i4") for c in texts(s, i)] == words("AC 2H 3D 4S")
    assert [c for f in ("f1", "f2", "f3", "f4") for c in texts(s, f)] == words("2C 4D 6H 8C")
    assert texts(s, "w") == ["JD"]
    assert stock_next_first(s) == words(
        "2D 9H JC 5D 7H 7C 5H KD KC 9S 5S AD QC KH 3H 2S KS 9D QD JS AS AH 3C 4C 5C TS QH 4H "
        "7S 3S TD TH 8H JH 7D 6D 8S 8D QS 6C TC 6S 9C")


def test_section_7_corner_stones_1() -> None:
    first_24 = words("3D 5H JC KH 5S 5H KC KC 8D JD AS 8C 6C 6H TC 8D 4C JS QC 4H KD 2H TD 8S")
    assert [card_text(c) for c in deal_order(1, 2)][:24] == first_24
    s = engine.new_game("corner-stones", 1)
    assert stock_next_first(s)[:24] == first_24 and len(s.stock) == 104
    # PySolFC's first round (Cadogan order L0..L5, R0..R5) holds the first 12 cards;
    # ours deals the same 12 clockwise, and both start round two at L0 with 6C
    s = engine.play(s, "deal:round")
    clockwise = ("t1", "t7", "t8", "t9", "t10", "t11", "t12", "t6", "t5", "t4", "t3", "t2")
    assert [texts(s, p)[0] for p in clockwise] == first_24[:12]
    assert len(s.stock) == 92
    s = engine.play(s, "deal")
    assert texts(s, "t1") == ["3D", "6C"]


def test_base_card_goes_to_its_own_suits_corner() -> None:
    for deal in range(1, 60):
        s = engine.new_game("four-seasons", deal)
        base = engine.rules_of(s).names.index(FOUNDATION_OF_SUIT[card_text(deal_order(deal)[0])[1]])
        assert s.piles[base] == (deal_order(deal)[0],)
        assert suit(deal_order(deal)[0]) == base - 2


# -- parse_deal_number --------------------------------------------------------------------
@pytest.mark.parametrize(("text", "expected"), [
    (1, (1, True)),
    ("1", (1, True)),
    (31999, (31999, True)),
    (32000, (32000, False)),
    ("ms24", (24, True)),
    ("MS24", (24, True)),
    ("ms100000", (100000, True)),
    (f"ms{MS_MAX}", (MS_MAX, True)),
    ("#1_000", (1000, True)),
    ("1,000", (1000, True)),
    ("1 000", (1000, True)),
    (" 24 ", (24, True)),
    ("24L", (24, True)),
    ("123456789L", (123456789, False)),
    ("1-000", (1000, True)),  # '-' between digits is a separator, deleted as PySolFC does
    (str(MAX_DEAL), (MAX_DEAL, False)),
    (MAX_DEAL, (MAX_DEAL, False)),
])
def test_parse_deal_number_accepts(text: int | str, expected: tuple[int, bool]) -> None:
    assert parse_deal_number(text) == expected


@pytest.mark.parametrize("bad", [
    0, "0", "ms0", "#0", "000",
    -1, -24, -(10**25),
    # a leading '-' reads as a minus sign: refused in text as in numbers (one rule for every
    # tool), rather than quietly taken as PySolFC's number without it
    "-24", " -24", "ms-24", "MS -5",
    "", " ", "L", "ms", "abc", "12a", "a12", "1.5e3", "0x10", "24LL", "ms-", "ms 24x",
    "\uff11\uff12", "\u00b2", "\u0663",  # digits, but not ASCII ones
    10**20, str(10**20), "1" + "0" * 25, f"ms{MS_MAX + 1}", f"ms{2**40}",
    True, False, 1.0, None, [1], b"1",
])
def test_parse_deal_number_rejects(bad: object) -> None:
    with pytest.raises(BadDealNumber):
        parse_deal_number(bad)


def test_ms_forms_pick_the_lc_generator() -> None:
    assert deal_order("ms24") == deal_order(24) == deal_order("#24")
    assert deal_order("ms32000") != deal_order(32000)  # LC versus MT
    assert canonical_deal_text("ms24") == "24"
    assert canonical_deal_text("ms100000") == "ms100000"
    assert canonical_deal_text("#1_000") == "1000"
    assert canonical_deal_text(123456789) == "123456789"


# -- issue 15: calculation (PySolFC 256), fortunes-favor (416), florentine ----------------
def calculation_hook(cards: list[int]) -> list[int]:
    """Calculation._shuffleHook as PySolFC codes it: walk the array from index 0,
    take each rank 0..3 (A..4) the first time it is met, and append them reversed."""
    topcards: list[int | None] = [None] * 4
    kept = list(cards)
    for c in cards:
        if c % 13 <= 3 and topcards[c % 13] is None:
            topcards[c % 13] = c
            kept.remove(c)
    topcards.reverse()
    return kept + [c for c in topcards if c is not None]


def fortunes_favor_hook(cards: list[int]) -> list[int]:
    """Game._shuffleHookMoveToTop with (rank == ACE, suit), step by step as PySolFC's
    _shuffleHookMoveSorter: (order, position, card) of each Ace, sorted, reversed."""
    extracted, i, new = [], len(cards), []
    for c in cards:
        if c % 13 == 0:
            extracted.append((c // 13, i, c))
        else:
            new.append(c)
        i -= 1
    return new + [x[2] for x in reversed(sorted(extracted))]


HOOK_NUMBERS = ["1", "24", "32000", "123456789", "ms100000", *EXTRA_NUMBERS[:8]]


@pytest.mark.parametrize("deal", HOOK_NUMBERS)
def test_calculation_deals_as_pysolfc_256_on_the_pysol_cards_shuffle(deal: str) -> None:
    # startGame: dealRow to the four foundations, then dealCards: one card to the waste
    talon = [card_text(c) for c in reversed(calculation_hook(pysol_cards_array(deal, 1)))]
    s = engine.new_game("calculation", _deal_arg(deal))
    assert [c for f in ("f1", "f2", "f3", "f4") for c in texts(s, f)] == talon[:4]
    assert [rank(parse_card(c)) for c in talon[:4]] == [1, 2, 3, 4]
    assert texts(s, "w") == talon[4:5] and stock_next_first(s) == talon[5:]
    assert all(texts(s, f"t{k}") == [] for k in range(1, 5))


@pytest.mark.parametrize("deal", HOOK_NUMBERS)
def test_fortunes_favor_deals_as_pysolfc_416_on_the_pysol_cards_shuffle(deal: str) -> None:
    # startGame: dealRow to the foundations, dealRow to the twelve rows, then one card to the waste
    talon = [card_text(c) for c in reversed(fortunes_favor_hook(pysol_cards_array(deal, 1)))]
    s = engine.new_game("fortunes-favor", _deal_arg(deal))
    assert [c for f in ("f1", "f2", "f3", "f4") for c in texts(s, f)] == talon[:4] == words("AC AS AH AD")
    assert [c for k in range(1, 13) for c in texts(s, f"t{k}")] == talon[4:16]
    assert texts(s, "w") == talon[16:17] and stock_next_first(s) == talon[17:]
    assert len(s.stock) == 35


def test_calculation_1_by_hand() -> None:
    # the first A, 2, 3, 4 met from the bottom of #1 are Betsy Ross #1's indicators (rules.md 7)
    s = engine.new_game("calculation", 1)
    assert [c for f in ("f1", "f2", "f3", "f4") for c in texts(s, f)] == words("AC 2H 3D 4S")
    assert texts(s, "w") == ["JD"]
    rest = [c for c in ORDER_1.split()[1:] if c not in ("AC", "2H", "3D", "4S")]
    assert stock_next_first(s) == rest and len(rest) == 47


def test_fortunes_favor_1_by_hand() -> None:
    # the Aces leave #1's order (AD, AS, AH, AC) and the rest is dealt in order
    s = engine.new_game("fortunes-favor", 1)
    rest = [c for c in ORDER_1.split() if c[0] != "A"]
    assert [c for k in range(1, 13) for c in texts(s, f"t{k}")] == rest[:12]
    assert texts(s, "w") == ["QC"] == rest[12:13]
    assert stock_next_first(s) == rest[13:]


@pytest.mark.parametrize("deal", sorted(CROSS_TABLE))
def test_section_7_cross_table_florentine(deal: int) -> None:
    # Florentine deals as the seed cross games: base, t1..t5 (t3 the centre cell), empty waste
    base, cross, waste, nxt = CROSS_TABLE[deal]
    s = engine.new_game("florentine", deal)
    assert texts(s, FOUNDATION_OF_SUIT[base[1]]) == [base]
    assert [texts(s, f"t{k}") for k in range(1, 6)] == [[c] for c in cross.split()]
    assert texts(s, "w") == [] and stock_next_first(s)[:2] == [waste, nxt] and len(s.stock) == 46
