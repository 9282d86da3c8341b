"""Safe foundation moves (server/game/safe.py; defined per family in docs/reference/moves.md)."""

from __future__ import annotations

import pytest

from server.game import engine
from server.game.safe import safe_foundation_moves
from server.game.state import STOCK
from server.game.variants import get_rules
from tests.support.game import ALL_VARIANTS, build, random_game


def safe(state: engine.State) -> list[str]:
    rules = get_rules(state.variant)
    return [str(m) for m in safe_foundation_moves(rules, state, rules.legal_moves(state))]


def test_four_seasons_a_card_is_safe_once_every_card_below_it_is_home() -> None:
    # 6C can go onto 5C; any 5 could be built on it in the cross (down, any suit)
    home = {"f1": "5C", "f2": "5S", "f3": "5H", "f4": "5D"}
    state = build("four-seasons", {**home, "t1": "6C", "t2": "KD"}, base="5")
    assert "t1-f1" in safe(state)
    waiting = build("four-seasons", {"f1": "5C", "f2": "5S", "f3": "5H", "t1": "6C", "t3": "5D"},
                    base="5")
    assert "t1-f1" in [str(m) for m in get_rules("four-seasons").legal_moves(waiting)]
    assert "t1-f1" not in safe(waiting)  # 5D could still want the 6C


def test_four_seasons_a_base_card_is_wanted_by_the_top_rank_round_the_corner() -> None:
    # base 5: a 4 may go on a 5 (the cross wraps unless Aces are the base)
    state = build("four-seasons", {"t1": "5C", "t2": "KD"}, base="5")
    assert "t1-f1" in [str(m) for m in get_rules("four-seasons").legal_moves(state)]
    assert safe(state) == []
    # with Aces as the base a King never goes on an Ace: every Ace is safe at once
    aces = build("four-seasons", {"t1": "AC", "t2": "KD"}, base="A")
    assert safe(aces) == ["t1-f1"]


def test_simplicity_needs_only_the_other_colour_home() -> None:
    # alternating colours: only red 5s could be built on the 6 of clubs
    state = build("simplicity", {"f1": "5C", "f3": "5H", "f4": "5D", "t1": "6C", "t2": "5S"},
                  base="5")
    assert "t1-f1" in safe(state)


@pytest.mark.parametrize("variant", ["corners", "betsy-ross"])
def test_without_tableau_building_every_foundation_move_is_safe(variant: str) -> None:
    for seed in range(5):
        trace = random_game(variant, 100 + seed, seed, max_moves=60)
        rules = get_rules(variant)
        for state in trace.states:
            legal = rules.legal_moves(state)
            home = [str(m) for m in legal if m.dst.startswith("f") and m.src != "s"]
            assert safe(state) == home


def test_corner_stones_wants_both_neighbours_home() -> None:
    rules = get_rules("corner-stones")
    # after the deal: 6C is wanted by every 5 and every 7 (up or down, any suit)
    state = build("corner-stones", {"f1": "AC 2C 3C 4C 5C", "t1": "6C", "t2": "7H"})
    assert "t1-f1" in [str(m) for m in rules.legal_moves(state)]
    assert safe(state) == []


@pytest.mark.parametrize("variant", ALL_VARIANTS)
def test_safe_moves_are_legal_foundation_moves_and_ignore_the_stock(variant: str) -> None:
    rules = get_rules(variant)
    for seed in range(6):
        trace = random_game(variant, 1000 + seed, seed, max_moves=120)
        for state in trace.states:
            legal = [str(m) for m in rules.legal_moves(state)]
            listed = safe(state)
            assert set(listed) <= set(legal)
            assert all("-f" in m and not m.startswith("s-") for m in listed)
            stock = state.piles[STOCK]
            if len(stock) > 1:  # the stock's order is secret: it changes nothing
                piles = list(state.piles)
                piles[STOCK] = stock[::-1]
                assert safe(state._replace(piles=tuple(piles))) == listed
