"""rules.md 4.2: Betsy Ross edge cases 1-10. Piles: s, w, f1..f4 (bases 2, 4, 6, 8
building by +1, +2, +3, +4 regardless of suit, with wrap, 12 cards each),
i1..i4 (the dead indicators A, 2, 3, 4)."""

from __future__ import annotations

import random

import pytest

from server.game import engine
from server.game.engine import DEAD, GameOver, play
from server.game.moves import REDEAL
from server.game.state import State
from server.game.variants import get_rules
from tests.support.game import build, illegal, legal, stock_next_first, texts, top

V = "betsy-ross"
INDICATORS = {"i1": "AC", "i2": "2H", "i3": "3D", "i4": "4S"}
SUITS = "CSHD"
# each foundation's ranks, base first (rules.md 4.1)
SEQUENCES = {
    "f1": "2 3 4 5 6 7 8 9 T J Q K",
    "f2": "4 6 8 T Q A 3 5 7 9 J K",
    "f3": "6 9 Q 2 5 8 J A 4 7 T K",
    "f4": "8 Q 3 7 J 2 6 T A 5 9 K",
}


def ranks_as_cards(ranks: str) -> str:
    """Ranks with suits round the four (suit does not matter in Betsy Ross)."""
    return " ".join(r + SUITS[k % 4] for k, r in enumerate(ranks.split()))


def prefix(f: str, n: int) -> str:
    return ranks_as_cards(" ".join(SEQUENCES[f].split()[:n]))


def position(waste: str, stock: str = "9S TS", redeals: int = 0, on: dict[str, str] | None = None,
             **foundations: str) -> State:
    """``on`` as ``foundations``, for a foundation named by a variable."""
    piles = {"s": stock, "w": waste, "f1": "2C", "f2": "4D", "f3": "6H", "f4": "8C", **INDICATORS}
    piles.update(on or {})
    piles.update(foundations)
    return build(V, piles, redeals=redeals)



def test_4_2_1_f2_wraps_from_queen_to_ace() -> None:
    f2 = ranks_as_cards("4 6 8 T Q")
    assert top(legal(position("AS", f2=f2), "w-f2"), "f2") == "AS"
    illegal(position("2S", f2=f2), "w-f2", "builds up by 2")


def test_4_2_2_f3_wraps() -> None:
    assert top(legal(position("2S", f3=ranks_as_cards("6 9 Q")), "w-f3"), "f3") == "2S"
    assert top(legal(position("AC", f3=ranks_as_cards("6 9 Q 2 5 8 J")), "w-f3"), "f3") == "AC"


def test_4_2_3_f4_wraps() -> None:
    assert top(legal(position("2C", f4=ranks_as_cards("8 Q 3 7 J")), "w-f4"), "f4") == "2C"
    assert top(legal(position("AD", f4=ranks_as_cards("8 Q 3 7 J 2 6 T")), "w-f4"), "f4") == "AD"


@pytest.mark.parametrize("f", ["f1", "f2", "f3", "f4"])
def test_4_2_4_kings_come_last(f: str) -> None:
    almost = position("KH", on={f: prefix(f, 11)})
    full = legal(almost, f"w-{f}")
    assert len(texts(full, f)) == 12 and top(full, f) == "KH"
    # a full foundation takes nothing, not even the card its step would give next
    nxt = {"f1": "AS", "f2": "2S", "f3": "3S", "f4": "4S"}[f]
    illegal(position(nxt, on={f: prefix(f, 12)}), f"w-{f}", "complete")
    illegal(position("KS", on={f: prefix(f, 12)}), f"w-{f}", "complete")
    # a King anywhere earlier in the sequence is refused
    for n in range(1, 11):
        illegal(position("KS", on={f: prefix(f, n)}), f"w-{f}", "builds up by")


def test_4_2_5_indicators_are_dead() -> None:
    s = position("2S")
    illegal(s, "w-i2", "dead")
    illegal(s, "i1-f1", "dead")
    illegal(s, "i2-w", "dead")
    illegal(position("3S"), "f1-f2", "waste")  # foundation cards never move
    illegal(position("3S"), "f1-w")


@pytest.mark.parametrize("suit", list(SUITS))
@pytest.mark.parametrize("base_suit", list(SUITS))
def test_4_2_6_suit_is_ignored(suit: str, base_suit: str) -> None:
    after = legal(position("3" + suit, f1="2" + base_suit), "w-f1")
    assert texts(after, "f1") == ["2" + base_suit, "3" + suit]


def test_4_2_7_two_foundations_want_the_same_rank() -> None:
    s = position("5S", f1=ranks_as_cards("2 3 4"), f3=ranks_as_cards("6 9 Q 2"))
    to_f1 = legal(s, "w-f1")
    to_f3 = legal(s, "w-f3")
    assert to_f1 != to_f3
    assert top(to_f1, "f1") == "5S" and top(to_f3, "f3") == "5S"


def test_4_2_8_redeal_limit() -> None:
    # third pass over, 7D fits nowhere (f1 wants 3, f2 6, f3 9, f4 Q): lost
    s = position("3C 7D", stock="", redeals=2)
    assert get_rules(V).why_illegal(s, REDEAL) == "no redeals left (2 allowed)"
    assert engine.status(s) == DEAD
    assert engine.legal_moves(s) == []
    with pytest.raises(GameOver):
        play(s, "redeal")
    # with a playable waste top the game goes on, and redeal is still refused
    alive = position("7D 3C", stock="", redeals=2)
    illegal(alive, "redeal", "no redeals left")
    assert top(legal(alive, "w-f1"), "f1") == "3C"
    # the second redeal is the last one allowed
    second = legal(position("7D", stock="", redeals=1), "redeal")
    assert second.redeals == 2 and stock_next_first(second) == ["7D"]


def test_4_2_9_pass_order_is_kept() -> None:
    rng = random.Random(429)
    s = engine.new_game(V, 429)
    passes: list[tuple[list[str], set[str]]] = []  # (cards in the order turned, cards played)
    order = texts(s, "w")  # pass 1 starts with the card turned at the deal
    while True:
        played: set[str] = set()
        while True:
            plays = [m for m in engine.legal_moves(s) if m.kind == "move"]
            if plays and rng.random() < 0.5:
                played.add(top(s, "w") or "")
                s = play(s, rng.choice(plays))
            elif s.stock:
                s = play(s, "draw")
                order.append(top(s, "w") or "")
            else:
                break
        passes.append((order, played))
        if engine.status(s) != engine.IN_PROGRESS or s.redeals == 2:
            break
        s = play(s, "redeal")
        order = []
    assert len(passes) == 3, "this deal should see all three passes"
    assert all(played for _, played in passes[:2]), "each pass should play some cards"
    for (earlier, played), (later, _) in zip(passes, passes[1:], strict=False):
        assert later == [c for c in earlier if c not in played]


def test_4_2_10_deal_number_1() -> None:
    s = engine.new_game(V, 1)
    assert [texts(s, i) for i in ("i1", "i2", "i3", "i4")] == [["AC"], ["2H"], ["3D"], ["4S"]]
    assert [texts(s, f) for f in ("f1", "f2", "f3", "f4")] == [["2C"], ["4D"], ["6H"], ["8C"]]
    assert texts(s, "w") == ["JD"]
    assert " ".join(stock_next_first(s)) == (
        "2D 9H JC 5D 7H 7C 5H KD KC 9S 5S AD QC KH 3H 2S KS 9D QD JS AS AH 3C 4C 5C TS QH 4H "
        "7S 3S TD TH 8H JH 7D 6D 8S 8D QS 6C TC 6S 9C"
    )
