"""No refusal depends on a hidden card.

The stock's order is the one secret of a position: a refusal whose path
looked at it could tell a client, by its timing or its text, whether the next
stock card would fit somewhere. Two checks, both deterministic (no clocks):

* a sealed stock: the stock pile is replaced by a tuple that may be counted
  but not read; every refusal must still come out as a refusal, so its path
  never read a stock card;
* twin positions that differ only in the stock's order: every move must get
  the same verdict in both, and every refusal the same text by the same
  sequence of executed lines of the engine.

The engine is called as the move path of the server calls it (server/rooms/play.py:
the move text, the status the player already holds).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

from server.game import engine
from server.game.moves import BadMove, GameOver, IllegalMove, parse
from server.game.state import STOCK, State
from server.game.variants import get_rules
from server.game.variants.cross import CrossRules
from server.ops.corebuild import is_compiled
from tests.support.game import ALL_VARIANTS, candidate_moves, random_game

GAME_DIR = str(Path(engine.__file__).resolve().parent)
REFUSALS = (BadMove, IllegalMove, GameOver)


class Touched(Exception):
    """A refusal's path read a hidden card."""


class SealedStock(tuple):  # type: ignore[type-arg]
    """A stock that tells how many cards it holds, and nothing else."""

    def __getitem__(self, index: Any) -> Any:
        raise Touched("a stock card was read")

    def __iter__(self) -> Iterator[Any]:
        raise Touched("the stock was walked")

    def __contains__(self, item: object) -> bool:
        raise Touched("the stock was searched")


def with_stock(state: State, stock: tuple[int, ...]) -> State:
    piles = list(state.piles)
    piles[STOCK] = stock
    return state._replace(piles=tuple(piles))


def positions(variant: str) -> Iterator[State]:
    """Positions of random games of the variant that still hold two or more
    stock cards: the start, and every tenth position after it."""
    for seed in range(2):
        trace = random_game(variant, 1000 + seed, seed, max_moves=120)
        for k, state in enumerate(trace.states):
            if k % 10 == 0 and len(state.piles[STOCK]) >= 2 \
                    and engine.status(state) == engine.IN_PROGRESS:
                yield state


def twin(state: State) -> State:
    """The same position with the stock's order turned round (another top card)."""
    stock = state.piles[STOCK]
    turned = stock[::-1]
    if turned[-1] == stock[-1]:  # two decks: the same card at both ends
        turned = stock[1:] + stock[:1]
    return with_stock(state, turned)


def verdict(state: State, text: str) -> tuple[str, str]:
    try:
        engine.play(state, text, engine.IN_PROGRESS)
    except REFUSALS as exc:
        return type(exc).__name__, str(exc)
    return "accepted", ""


def traced(call: Callable[[], object]) -> list[tuple[str, int]]:
    """The lines of the game core that ``call`` executes, in order."""
    lines: list[tuple[str, int]] = []

    def tracer(frame: FrameType, event: str, arg: object) -> Any:
        if not frame.f_code.co_filename.startswith(GAME_DIR):
            return None
        if event == "line":
            lines.append((frame.f_code.co_name, frame.f_lineno))
        return tracer

    sys.settrace(tracer)
    try:
        call()
    except REFUSALS:
        pass
    finally:
        sys.settrace(None)
    return lines


def move_texts(variant: str) -> list[str]:
    return [str(m) for m in candidate_moves(get_rules(variant), max_n=3)]


def sealed_problems(variant: str) -> tuple[list[str], int]:
    """Refusals whose path read a stock card, and how many refusals were checked."""
    problems, refusals = [], 0
    for state in positions(variant):
        sealed = with_stock(state, SealedStock(state.piles[STOCK]))
        for text in move_texts(variant):
            if verdict(state, text)[0] == "accepted":
                continue
            refusals += 1
            try:
                engine.play(sealed, text, engine.IN_PROGRESS)
            except REFUSALS:
                continue
            except Touched:
                problems.append(f"{variant}: the refusal of {text} read the stock")
                continue
            problems.append(f"{variant}: {text} was refused, but accepted with a sealed stock")
    return problems, refusals


def twin_problems(variant: str) -> tuple[list[str], int]:
    """Moves whose verdict, refusal text or refusal path differ between twins."""
    problems, compared = [], 0
    for state in positions(variant):
        other = twin(state)
        assert other.piles[STOCK][-1] != state.piles[STOCK][-1]
        for text in move_texts(variant):
            parse(text)  # the parse cache warmed, as on a server that has seen the move before
            first, second = verdict(state, text), verdict(other, text)
            if first[0] != second[0]:
                problems.append(f"{variant} {text}: legality depends on the stock's order")
                continue
            if first[0] == "accepted":
                continue
            compared += 1
            if first != second:
                problems.append(f"{variant} {text}: the refusal's text depends on the stock")
            elif traced(partial(engine.play, state, text, engine.IN_PROGRESS)) != \
                    traced(partial(engine.play, other, text, engine.IN_PROGRESS)):
                problems.append(f"{variant} {text}: the refusal's path depends on the stock's order")
    return problems, compared


@pytest.mark.parametrize("variant", ALL_VARIANTS)
def test_no_refusal_reads_a_stock_card(variant: str) -> None:
    problems, refusals = sealed_problems(variant)
    assert problems == []
    assert refusals > 100  # the check did look at refusals


@pytest.mark.parametrize("variant", ALL_VARIANTS)
def test_twins_that_differ_only_in_the_stock_get_the_same_refusal_by_the_same_path(
        variant: str) -> None:
    problems, compared = twin_problems(variant)
    assert problems == []
    assert compared > 100


@pytest.mark.skipif(is_compiled("server.game.variants.cross"),
                    reason="swaps a method of the rules for a peeking one: pure core only "
                           "(make test runs tests/game on the pure core too)")
def test_both_checks_catch_a_rule_that_peeks_at_the_stock(monkeypatch: pytest.MonkeyPatch) -> None:
    """The checks themselves: a refusal of ``s-f1`` that first looks whether the
    stock's top card would fit (the shortcut the checks are there to forbid)
    is caught by both."""
    rules = get_rules("four-seasons")
    assert isinstance(rules, CrossRules)
    honest = rules.why_illegal

    def peeking(state: State, move: Any) -> str | None:
        if move.src == "s" and move.dst.startswith("f") and state.piles[STOCK]:
            top = state.piles[STOCK][-1]
            if rules._why_not_foundation(state.piles, state.base, top, rules.index[move.dst]) \
                    is None:
                return "the stock's top card cannot be played from the stock"
        return honest(state, move)

    monkeypatch.setattr(rules, "why_illegal", peeking)
    assert sealed_problems("four-seasons")[0]
    assert twin_problems("four-seasons")[0]
