"""The hint that teaches: what the hinted move is for, read off the winning
line, on positions built for each reason; and never a card the player cannot
see, along the solver's lines of several variants."""

from __future__ import annotations

import re

import pytest

from server.game import engine
from server.game.cards import CLUBS, HEARTS, SPADES, card_text, make_card
from server.game.solver import solve
from server.game.state import STOCK, State
from server.rooms.teach import why

VARIANT = "four-seasons"  # foundations up in suit from the deal's base card, tableau down in any suit
CARD = re.compile(r"\b[A2-9TJQK][CSHD]\b")


def table(stock: list[int], foundations: list[list[int]], tableau: list[list[int]]) -> State:
    """A Four Seasons position with queens as the base rank."""
    start = engine.new_game(VARIANT, 2)
    assert start.base == 12
    piles = [tuple(stock), ()] + [tuple(p) for p in foundations] + [tuple(p) for p in tableau]
    return start._replace(piles=tuple(piles))


C = make_card


def test_a_move_that_uncovers_a_card_going_home_next_says_so() -> None:
    state = table([C(2, HEARTS)], [[], [], [], []],
                  [[C(12, CLUBS), C(9, HEARTS)],
                   [C(10, SPADES)], [C(5, HEARTS)], [C(4, HEARTS)], [C(3, HEARTS)]])
    assert why(state, ("t1-t2", "t1-f1")) == "this uncovers QC, which goes home next"
    # the same move with the line going elsewhere first says when
    assert why(state, ("t1-t2", "t4-t3", "t1-f1")) == "this uncovers QC, which goes home 2 moves later"


def test_a_card_freed_for_another_pile_is_named_with_its_target() -> None:
    state = table([C(2, HEARTS)], [[], [], [], []],
                  [[C(8, CLUBS), C(9, HEARTS)],
                   [C(10, SPADES)], [C(5, HEARTS)], [C(4, HEARTS)], [C(3, HEARTS)]])
    assert why(state, ("t1-t2", "t1-t2")) == "this frees 8C, which goes to t2 next"


def test_the_last_card_of_a_suit_going_home_says_the_suit_is_done() -> None:
    clubs = [C(12, CLUBS), C(13, CLUBS)] + [C(r, CLUBS) for r in range(1, 11)]
    state = table([C(2, HEARTS)], [clubs, [], [], []],
                  [[C(11, CLUBS)], [C(10, SPADES)], [C(5, HEARTS)], [C(4, HEARTS)], [C(3, HEARTS)]])
    assert why(state, ("t1-f1",)) == "JC is the last club: the clubs are done"


def test_emptying_a_pile_names_the_card_the_line_puts_there() -> None:
    state = table([C(2, HEARTS)], [[], [], [], []],
                  [[C(9, HEARTS)],
                   [C(10, SPADES)], [C(5, HEARTS)], [C(4, HEARTS)], [C(3, HEARTS)]])
    assert why(state, ("t1-t2", "t3-t1")) == "this empties t1 for 5H, which goes there next"
    assert why(state, ("t1-t2", "draw", "t3-t1")) == "this empties t1: a space the line fills later"
    assert why(state, ("t1-t2", "draw")) is None  # the space is never used: nothing to say


def test_a_draw_and_a_move_with_nothing_plain_to_say() -> None:
    state = table([C(2, HEARTS)], [[], [], [], []],
                  [[C(9, HEARTS)],
                   [C(10, SPADES)], [C(5, HEARTS)], [C(4, HEARTS)], [C(3, HEARTS)]])
    assert why(state, ("draw",)) == "nothing on the table helps yet: the winning line goes on from the stock"
    covered = table([C(2, HEARTS)], [[], [], [], []],
                    [[C(5, HEARTS), C(9, HEARTS)],
                     [C(10, SPADES)], [C(5, SPADES)], [C(4, HEARTS)], [C(3, HEARTS)]])
    assert why(covered, ("t1-t2", "t4-t3")) is None  # 5H is uncovered, but the line does not use it
    assert why(state, ()) is None


def test_a_safe_card_going_home_says_nothing_needs_it() -> None:
    # only a king could go on the ace in the tableau (down by one, round the corner), and every
    # king is home: server/game/safe.py calls the move safe
    state = table([C(2, HEARTS)], [[C(12, s), C(13, s)] for s in range(4)],
                  [[C(1, SPADES)], [C(10, SPADES)], [C(5, HEARTS)], [C(4, HEARTS)], [C(3, HEARTS)]])
    assert why(state, ("t1-f2", "draw")) == "AS goes home: no other card will ever need it"


@pytest.mark.parametrize(("variant", "deal"), [("four-seasons", 2), ("betsy-ross", 4), ("corner-stones", 1),
                                               ("simplicity", 2)])
def test_a_reason_names_only_cards_face_up_when_the_hint_is_asked(variant: str, deal: int) -> None:
    out = solve(variant, deal, 20_000)
    if out.result != "won":
        pytest.fail(f"{variant} {deal}: no line within the budget (pick another deal)")
    state, line, said = engine.new_game(variant, deal), tuple(out.moves), 0
    for i in range(min(len(line), 120)):
        text = why(state, line[i:])
        if text is not None:
            said += 1
            visible = {card_text(c) for j, p in enumerate(state.piles) if j != STOCK for c in p}
            assert set(CARD.findall(text)) <= visible, (i, text)
        state = engine.play(state, line[i], engine.IN_PROGRESS)
    assert said > 0
