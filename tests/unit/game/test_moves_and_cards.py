"""The move notation and the card helpers."""

from __future__ import annotations

import pytest

from server.game.cards import card_text, is_red, make_card, parse_card, pred, rank, step, succ, suit
from server.game.moves import (
    DEAL_ALL,
    DEAL_ONE,
    DEAL_ROUND,
    DRAW,
    REDEAL,
    RESIGN,
    BadMove,
    Move,
    MoveParser,
    move,
    parse,
)


@pytest.mark.parametrize(("text", "expected"), [
    ("w-t3", move("w", "t3")),
    ("t1-t4:3", move("t1", "t4", 3)),
    ("t2-t5:14", move("t2", "t5", 14)),
    ("s-t5", move("s", "t5")),
    ("t12-f8", move("t12", "f8")),
    ("w-i2", move("w", "i2")),
    (" W-T3 ", move("w", "t3")),
    ("draw", DRAW), ("redeal", REDEAL), ("resign", RESIGN),
    ("deal", DEAL_ONE), ("deal:round", DEAL_ROUND), ("deal:all", DEAL_ALL), ("DEAL:ALL", DEAL_ALL),
])
def test_parse(text: str, expected: Move) -> None:
    m = parse(text)
    assert m == expected
    assert parse(str(m)) == m


@pytest.mark.parametrize("text", [
    "", "w", "w-", "-t3", "t3-t3", "w-w", "t0-t1", "t1-t100", "x-t1", "i5-f1", "t1-t2:0", "t1-t2:100",
    "t1-t2:", "t1 - t2", "deal:some", "draw2", "w-t3" + " " * 40, "t1-t2:1:2",
])
def test_parse_rejects(text: str) -> None:
    with pytest.raises(BadMove):
        parse(text)


@pytest.mark.parametrize("value", [None, 3, b"draw", ["draw"]])
def test_parse_rejects_non_text(value: object) -> None:
    with pytest.raises(BadMove):
        parse(value)


def test_single_card_moves_print_without_count() -> None:
    assert str(move("w", "t3")) == "w-t3" and str(move("w", "t3", 1)) == "w-t3"
    assert str(move("t1", "t4", 3)) == "t1-t4:3"


def test_cards() -> None:
    assert [card_text(c) for c in range(52)][:14] == ["AC", "2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C",
                                                      "TC", "JC", "QC", "KC", "AS"]
    for c in range(52):
        assert parse_card(card_text(c)) == c
        assert make_card(rank(c), suit(c)) == c
        assert is_red(c) == (card_text(c)[1] in "HD")
    assert parse_card("10h") == parse_card("TH") == make_card(10, 2)
    for bad in ("", "1H", "TX", "ZZ", "10", "AHH"):
        with pytest.raises(ValueError):
            parse_card(bad)


def test_rank_arithmetic() -> None:
    assert succ(13) == 1 and succ(1) == 2 and pred(1) == 13 and pred(13) == 12
    assert [step(12, k) for k in (1, 2, 3, 4)] == [13, 1, 2, 3]  # Q + k round the corner
    for r in range(1, 14):
        assert pred(succ(r)) == r and step(r, 13) == r


def test_parsed_texts_are_remembered_within_a_bound() -> None:
    parser = MoveParser(limit=10)
    assert parser.parse("t3-t7") is parser.parse("t3-t7")  # the second one came from memory
    for bad in ("t3-t3", "x", "t1-t2:0", 5):
        for _ in range(2):  # refused every time, and never remembered
            with pytest.raises(BadMove):
                parser.parse(bad)
    assert set(parser.known) == {"t3-t7"}
    for i in range(1, 30):
        parser.parse(f"t{i}-f1")
    assert 0 < len(parser.known) <= 10
    assert parse("t3-t7") is parse("t3-t7")  # the module's parse remembers too
