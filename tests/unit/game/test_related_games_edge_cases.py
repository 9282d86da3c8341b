"""Issue 15's three games: Calculation (rules.md 4.3), Fortune's Favor (5.2) and
Florentine (5.1, and 2.11's Florentine tests), each edge case a named test.

Piles. Calculation: s, w (the turned card, at most one), f1..f4 (from A, 2, 3, 4
by +1..+4, any suit, 13 cards), t1..t4 the wastepiles. Fortune's Favor: s, w,
f1..f4 (clubs, spades, hearts, diamonds from the Ace), t1..t12. Florentine: the
cross, t3 the centre cell."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from server.game import dead, engine
from server.game.engine import DEAD, IN_PROGRESS
from server.game.moves import parse
from server.game.state import State
from server.game.variants import get_rules
from tests.support.game import (
    build,
    fresh_engine_caches,
    illegal,
    legal,
    plain_dead,
    random_game,
    stock_next_first,
    texts,
    top,
)

SUITS = "CSHD"
CALC_SEQUENCES = {
    "f1": "A 2 3 4 5 6 7 8 9 T J Q K",
    "f2": "2 4 6 8 T Q A 3 5 7 9 J K",
    "f3": "3 6 9 Q 2 5 8 J A 4 7 T K",
    "f4": "4 8 Q 3 7 J 2 6 T A 5 9 K",
}


def ranks_as_cards(ranks: str, shift: int = 0) -> str:
    return " ".join(r + SUITS[(k + shift) % 4] for k, r in enumerate(ranks.split()))


def calc(waste: str = "", stock: str = "9S TS", **piles: str) -> State:
    base = {"s": stock, "w": waste, "f1": "AC", "f2": "2D", "f3": "3H", "f4": "4S"}
    base.update(piles)
    return build("calculation", base)


def calc_prefix(f: str, n: int) -> str:
    return ranks_as_cards(" ".join(CALC_SEQUENCES[f].split()[:n]))


# -- Calculation ----------------------------------------------------------------------
def test_calculation_foundations_step_by_one_to_four_with_wrap() -> None:
    assert top(legal(calc("AS", f2=calc_prefix("f2", 6)), "w-f2"), "f2") == "AS"  # Q + 2 = A
    illegal(calc("2S", f2=calc_prefix("f2", 6)), "w-f2", "builds up by 2")
    assert top(legal(calc("2C", f3=calc_prefix("f3", 4)), "w-f3"), "f3") == "2C"  # Q + 3 = 2
    assert top(legal(calc("3D", f4=calc_prefix("f4", 3)), "w-f4"), "f4") == "3D"  # Q + 4 = 3


def test_calculation_suit_is_ignored() -> None:
    for card in ("2C", "2S", "2H", "2D"):
        assert top(legal(calc(card), "w-f1"), "f1") == card


def test_calculation_kings_come_last_and_a_full_foundation_takes_nothing() -> None:
    for f, seq in CALC_SEQUENCES.items():
        assert seq.split()[-1] == "K"
        s = calc("KH", **{f: calc_prefix(f, 12)})
        assert len(texts(legal(s, f"w-{f}"), f)) == 13
        illegal(calc("KC", **{f: calc_prefix(f, 13)}), f"w-{f}", "complete")


def test_calculation_the_turned_card_must_be_placed_before_the_next_is_turned() -> None:
    s = calc("7H")
    illegal(s, "draw", "place the turned card")
    for k in range(1, 5):  # any wastepile takes it, empty or not
        assert texts(legal(s, f"w-t{k}"), f"t{k}") == ["7H"]
    s = legal(calc("7H", t2="QC 5D"), "w-t2")
    assert texts(s, "t2") == ["QC", "5D", "7H"]
    assert texts(legal(s, "draw"), "w") == ["TS"]


def test_calculation_wastepiles_take_only_from_the_waste_and_give_only_to_foundations() -> None:
    s = calc("", t1="9C 2H", t2="KD")
    illegal(s, "t1-t2", "only the turned card")
    illegal(s, "t1-t3", "only the turned card")
    assert texts(legal(s, "t1-f1"), "f1") == ["AC", "2H"]
    illegal(s, "t2-f1", "builds up by 1")
    illegal(s, "t1-w", "nothing may be moved to the waste")


def test_calculation_foundation_cards_stay_and_there_is_no_redeal() -> None:
    illegal(calc("5H"), "f1-t1", "stay there")
    illegal(calc("", stock="", t1="2C"), "redeal", "no redeal")
    illegal(calc("", stock="", t1="2C"), "draw", "stock is empty")


def test_calculation_dead_once_the_stock_is_out_and_no_top_fits() -> None:
    with fresh_engine_caches():
        s = calc("", stock="", t1="9C", t2="KD")
        assert engine.status(s) == DEAD and engine.legal_moves(s) == []
        # a card in hand that fits nowhere: every placement leads to no move at all
        s = calc("QS", stock="", t1="9C")
        assert engine.status(s) == DEAD and plain_dead(s) is True
        # a card in hand that fits: alive
        assert engine.status(calc("2S", stock="", t1="9C")) == IN_PROGRESS
        # a top that fits after the last card is placed: alive
        assert engine.status(calc("QS", stock="", t1="2C")) == IN_PROGRESS


def test_calculation_two_foundations_may_want_the_same_rank() -> None:
    # f1 wants 4 (A 2 3), f4 wants 8 ... and f2 after 2 wants 4 as well
    s = calc("4H", f1="AC 2D 3S")
    a, b = legal(s, "w-f1"), legal(s, "w-f2")
    assert a != b and top(a, "f1") == "4H" and top(b, "f2") == "4H"


# -- Fortune's Favor ---------------------------------------------------------------------
TWELVE = ["9C", "9S", "9H", "9D", "8C", "8S", "8H", "8D", "7C", "7S", "7H", "7D"]


def ff(waste: str = "QC", stock: str = "KH 3H", **piles: str) -> State:
    base = {"s": stock, "w": waste, "f1": "AC", "f2": "AS", "f3": "AH", "f4": "AD"}
    base.update({f"t{k + 1}": c for k, c in enumerate(TWELVE)})
    base.update(piles)
    return build("fortunes-favor", base)


def test_fortunes_favor_builds_down_in_suit_without_wrap() -> None:
    s = ff(t1="6H", t2="5H", t3="5S", t4="KH", t5="AS 2C")
    assert texts(legal(s, "t2-t1"), "t1") == ["6H", "5H"]
    illegal(s, "t3-t1", "builds down in suit")
    illegal(s, "t2-t3", "builds down in suit")  # same rank, other suit
    illegal(s, "t4-t5", "builds down in suit")  # no wrap: K is not below 2 (nor A)


def test_fortunes_favor_a_space_fills_from_the_waste_and_the_waste_from_the_stock() -> None:
    s = ff(waste="QC JD", stock="KH 3H", t1="2C")
    s = legal(s, "t1-f1")
    assert texts(s, "t1") == ["JD"] and texts(s, "w") == ["QC"] and stock_next_first(s) == ["3H", "KH"]
    s = ff(waste="JD", stock="KH 3H", t1="2C")
    s = legal(s, "t1-f1")
    # the space took the waste's only card, then the stock turned its next card onto the waste
    assert texts(s, "t1") == ["JD"] and texts(s, "w") == ["3H"] and stock_next_first(s) == ["KH"]
    s = legal(ff(waste="2H", stock="KH 3H"), "w-f3")  # an emptied waste refills too
    assert texts(s, "w") == ["3H"] and stock_next_first(s) == ["KH"]


def test_fortunes_favor_a_space_takes_any_card_once_the_stock_and_waste_are_gone() -> None:
    s = ff(waste="", stock="", t1="", t2="2C JC")
    assert texts(legal(s, "t2-t1"), "t1") == ["JC"]
    illegal(s, "s-t1", "turned with draw")


def test_fortunes_favor_a_foundation_card_may_come_back_where_it_fits() -> None:
    s = ff(f3="AH 2H 3H 4H 5H 6H 7H", t1="8H", t2="8S")
    assert texts(legal(s, "f3-t1"), "t1") == ["8H", "7H"]
    illegal(s, "f3-t2", "builds down in suit")
    illegal(s, "f3-f4", "hearts foundation")


def test_fortunes_favor_draws_one_card_at_a_time_with_no_redeal() -> None:
    s = legal(ff(waste="QC", stock="KH 3H"), "draw")
    assert texts(s, "w") == ["QC", "3H"]
    illegal(ff(waste="2C", stock=""), "redeal", "no redeal")
    illegal(ff(waste="2C", stock=""), "draw", "stock is empty")


def test_fortunes_favor_dead_rule_ignores_cards_taken_back_and_stays_exact() -> None:
    # stock and waste out, one space, every other pile a single card no foundation wants:
    # cards may shuffle through the space, and foundation tops may come down into it and
    # go back, but no card can be added, so the game is dead
    singles = ["KC", "QD", "KS", "QC", "JD", "6S", "6D", "9C", "9S", "9D", "TH"]
    piles = {f"t{k}": c for k, c in enumerate(singles, 1)}
    found = {"f1": "AC 2C 3C 4C 5C 6C 7C", "f2": "AS 2S 3S 4S", "f3": "AH 2H 3H 4H 5H 6H 7H",
             "f4": "AD 2D 3D 4D"}
    s = build("fortunes-favor", {"s": "", "w": "", **found, **piles, "t12": ""})
    with fresh_engine_caches():
        moves = {str(m) for m in get_rules("fortunes-favor").legal_moves(s)}  # the rules' moves
        assert {"f1-t12", "f3-t12", "t1-t12"} <= moves
        assert engine.status(s) == DEAD
        assert grows(s) is False  # the plain search, taking cards back and counting
    # 8C under the TH: TH into the space frees it, and both searches agree it is alive
    alive = build("fortunes-favor", {"s": "", "w": "", **found, **piles, "t11": "8C TH", "t12": ""})
    with fresh_engine_caches():
        assert engine.status(alive) == IN_PROGRESS and grows(alive) is True


def grows(state: State) -> bool:
    """Whether any reachable position has more foundation cards than ``state``: every
    legal move, cards taken back off the foundations included; whole cards in the
    key, the twelve interchangeable piles sorted (whole states would be 12! of them)."""
    rules = get_rules(state.variant)
    start = rules.foundation_cards(state)
    seen = {(state.piles[:rules.t0], tuple(sorted(state.piles[rules.t0:])))}
    todo = [state]
    while todo:
        s = todo.pop()
        for m in rules.legal_moves(s):
            nxt = rules.apply(s, m)
            if rules.foundation_cards(nxt) > start:
                return True
            key = (nxt.piles[:rules.t0], tuple(sorted(nxt.piles[rules.t0:])))
            if key not in seen:
                seen.add(key)
                todo.append(nxt)
    assert len(seen) > 50  # the cards taken back were explored
    return False


# -- Florentine ----------------------------------------------------------------------------
def flo(variant: str = "florentine", stock: str = "5C 4D", waste: str = "", **piles: str) -> State:
    base = {"s": stock, "w": waste, "f4": "JD", "t1": "2D", "t2": "9H", "t3": "JC", "t4": "5D", "t5": "7H"}
    base.update(piles)
    return build(variant, base, base="J")


def test_florentine_a_building_on_the_centre_card_is_illegal() -> None:
    s = flo(waste="TS", t3="JC")
    illegal(s, "w-t3", "onto the centre")
    illegal(flo(t1="TD", t3="JC"), "t1-t3", "onto the centre")


def test_florentine_b_the_centre_card_never_goes_onto_the_cross_but_does_in_pysol() -> None:
    s = flo(t3="8C", t5="9D")
    illegal(s, "t3-t5", "cannot be built onto the cross")
    assert texts(legal(flo("florentine-pysol", t3="8C", t5="9D"), "t3-t5"), "t5") == ["9D", "8C"]


def test_florentine_c_the_centre_refills_from_the_stock_then_the_waste() -> None:
    s = legal(flo(stock="5C 4D", waste="KS"), "t3-f1")
    assert texts(s, "t3") == ["4D"] and stock_next_first(s) == ["5C"] and texts(s, "w") == ["KS"]
    s = legal(flo(stock="", waste="QS KS"), "t3-f1")
    assert texts(s, "t3") == ["KS"] and texts(s, "w") == ["QS"]
    s = legal(flo(stock="", waste=""), "t3-f1")
    assert texts(s, "t3") == []
    # an empty centre takes nothing from the player (the game is over here: ask the rules)
    reason = get_rules("florentine").why_illegal(s, parse("t1-t3"))
    assert reason is not None and "onto the centre" in reason


def test_florentine_d_one_redeal_not_two() -> None:
    s = legal(flo(stock="", waste="KS QS"), "redeal")
    assert stock_next_first(s) == ["KS", "QS"]
    s = engine.play(engine.play(s, "draw"), "draw")
    illegal(s, "redeal", "no redeals left")


def test_florentine_e_the_centre_card_or_the_waste_top_fills_a_space() -> None:
    s = flo(stock="5C 4D", waste="KS", t2="")
    after = legal(s, "t3-t2")
    assert texts(after, "t2") == ["JC"] and texts(after, "t3") == ["4D"]  # and the centre refills
    assert texts(legal(s, "w-t2"), "t2") == ["KS"]
    illegal(s, "t1-t2", "only from the waste or with the centre card")


def test_florentine_outer_piles_wrap_even_with_an_ace_base() -> None:
    s = build("florentine", {"s": "5C", "f1": "AC", "t1": "AD", "t2": "KH", "t3": "9C", "t4": "QS",
                             "t5": "3H"}, base="A")
    assert texts(legal(s, "t2-t1"), "t1") == ["AD", "KH"]
    assert texts(legal(s, "t4-t2"), "t2") == ["KH", "QS"]


def test_florentine_dead_search_keeps_the_centre_apart_from_the_outer_piles() -> None:
    rules = get_rules("florentine")
    table = rules.card_classes(frozenset())
    kept, loose = rules.dead_places()
    places = kept + loose
    a = flo(t1="5S", t3="8C")
    b = flo(t1="8C", t3="5S")  # the same cards, the centre's and an outer pile's swapped
    def key(state: State) -> bytes:
        return dead.position_key(state, places, table, len(kept))

    assert key(a) != key(b)
    assert key(flo()) == key(flo(t1="9H", t2="2D"))  # two outer piles swapped: the same key


def test_florentine_dead_verdicts_match_the_plain_search() -> None:
    # stock and redeal spent; the centre 8C could fill the space but no outer card may
    s = build("florentine", {"f4": "JD", "t1": "5S", "t2": "", "t3": "8C", "t4": "3H", "t5": "TD"},
              base="J", redeals=1)
    with fresh_engine_caches():
        assert engine.status(s) == DEAD and plain_dead(s) is True
    # with 6S under the 5S... and a wanted QD reachable once 5S could move: still dead, 5S stays
    s2 = build("florentine", {"f4": "JD", "t1": "QD 5S", "t2": "6H", "t3": "8C", "t4": "3H", "t5": "TD"},
               base="J", redeals=1)
    with fresh_engine_caches():
        assert engine.status(s2) == IN_PROGRESS and plain_dead(s2) is False  # 5S onto 6H frees QD


@settings(max_examples=30, deadline=None)
@given(deal=st.integers(1, 10**19), seed=st.integers(0, 2**32 - 1))
def test_calculation_random_games_always_end_won_or_dead(deal: int, seed: int) -> None:
    # every move takes a card a step towards the foundations (stock, waste, wastepile,
    # foundation), so no game lasts beyond 3 x 47 + 4 moves, and none is left undecided
    with fresh_engine_caches():
        trace = random_game("calculation", deal, seed, max_moves=200)
        assert len(trace.moves) <= 3 * 47 + 4
        assert engine.status(trace.final) in (engine.WON, DEAD)
        assert sorted(c for p in trace.final.piles for c in p) == list(range(52))
