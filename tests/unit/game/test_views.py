"""Views show what a player may see and nothing more: never a stock card, and
an opponent's progress never shows a card at all."""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.game import engine
from server.game.cards import card_text
from server.game.deals import LC_LIMIT, MAX_DEAL
from server.game.state import STOCK, State
from server.game.variants import get_rules
from server.game.views import progress, view
from tests.support.game import ALL_VARIANTS, build, fresh_engine_caches, random_game, slow_to_judge

CARD = re.compile(r"^[A2-9TJQK][CSHD]$")
CARD_INSIDE = re.compile(r"(?<![A-Za-z0-9])[A2-9TJQK][CSHD](?![A-Za-z0-9])")


def strings(doc: Any) -> list[str]:
    """Every string in a JSON document, keys included."""
    if isinstance(doc, str):
        return [doc]
    if isinstance(doc, dict):
        return [s for k, v in doc.items() for s in (*strings(k), *strings(v))]
    if isinstance(doc, list):
        return [s for v in doc for s in strings(v)]
    return []


def cards_shown(doc: dict[str, Any]) -> Counter[str]:
    """The card texts in a view, by count; a card text inside a longer string fails."""
    shown: Counter[str] = Counter()
    for s in strings(json.loads(json.dumps(doc))):
        if CARD.match(s):
            shown[s] += 1
        else:
            assert not CARD_INSIDE.search(s), f"a card text inside {s!r}"
    return shown


def face_up(state: State) -> Counter[str]:
    return Counter(card_text(c) for i, pile in enumerate(state.piles) if i != STOCK for c in pile)


def check_view(state: State) -> None:
    v = view(state)
    shown = cards_shown(v)
    # with two decks a stock card may also lie face up elsewhere: compare counts
    assert shown == face_up(state), f"shown {shown - face_up(state)} beyond the face-up cards"
    assert v["stock_count"] == len(state.stock)
    assert v["variant"] == state.variant
    assert v["status"] == engine.status(state)
    assert v["legal_moves"] == ([str(m) for m in engine.legal_moves(state)]
                                if v["status"] == engine.IN_PROGRESS else [])
    assert "s" not in v["piles"]
    p = progress(state, 7)
    assert not [s for s in strings(json.loads(json.dumps(p))) if CARD_INSIDE.search(s)]
    assert p == {"foundation_cards": engine.foundation_cards(state), "total_cards": v["total_cards"],
                 "moves": 7, "status": v["status"]}


@pytest.mark.parametrize("variant", ALL_VARIANTS)
@settings(max_examples=15, deadline=None)
@given(deal=st.one_of(st.integers(1, LC_LIMIT - 1), st.integers(LC_LIMIT, MAX_DEAL)),
       seed=st.integers(0, 2**32 - 1))
def test_views_never_show_the_stock(variant: str, deal: int, seed: int) -> None:
    with fresh_engine_caches():
        trace = random_game(variant, deal, seed, max_moves=150)
        for state in trace.states:
            if not slow_to_judge(state):
                check_view(state)


@pytest.mark.parametrize("variant", ALL_VARIANTS)
def test_view_of_a_new_game(variant: str) -> None:
    s = engine.new_game(variant, 123456789)
    v = view(s)
    check_view(s)
    rules = get_rules(variant)
    assert set(v["piles"]) == set(rules.names) - {"s"}
    two_decks = {"corner-stones": 104, "les-quatre-coins-pysol": 104}
    assert v["total_cards"] == {**two_decks, "betsy-ross": 48}.get(variant, 52)
    assert v["passes_left"] == rules.spec.passes - 1
    assert v["status"] == engine.IN_PROGRESS and v["legal_moves"]


def test_corner_stones_view_shows_no_card_before_the_deal() -> None:
    s = engine.new_game("corner-stones", 1)
    v = view(s)
    assert cards_shown(v) == Counter()
    assert v["stock_count"] == 104
    assert v["phase"] == "deal" and v["next_deal_pile"] == "t1"
    s = engine.play(s, "deal:all")
    v = view(s)
    assert v["phase"] == "play" and v["next_deal_pile"] is None
    assert sum(cards_shown(v).values()) == 104


def test_corner_stones_view_counts_copies() -> None:
    # one 5H face up, its twin still in the stock: the view shows exactly one
    s = build("corner-stones", {"s": "5H 2C", "t1": "5H"})
    assert cards_shown(view(s)) == Counter({"5H": 1})


def test_view_names_the_vacancy_and_base_rank() -> None:
    s = build("four-seasons-1883", {"s": "QS", "w": "3C", "t1": "KS", "t2": "8C", "t3": "2D", "t4": "9D"},
              base="5", vacancy="t5")
    v = view(s)
    assert v["must_fill"] == "t5" and v["base_rank"] == "5"
    assert set(v["legal_moves"]) == {"t1-t5", "t2-t5", "t3-t5", "t4-t5", "w-t5"}
