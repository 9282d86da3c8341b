"""The status of a position that needs a dead-position search generates its
legal moves once: the search starts from the moves the status already has."""

from __future__ import annotations

from collections.abc import Generator

import pytest

from server.game import dead, engine
from server.ops.corebuild import is_compiled
from tests.support.game import build

CLUBS = "AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC"
SPADES = "AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS"
HEARTS_TO_J = "AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH"


def dead_endgame() -> engine.State:
    """Stock gone, no foundation move, a few pointless moves left: only a search
    can tell that it is dead."""
    return build("four-seasons", {
        "f1": CLUBS, "f2": SPADES, "f3": HEARTS_TO_J,
        "t1": "QH KH", "t2": "AD KD", "t3": "2D 3D 4D JD", "t4": "5D 6D 8D 9D", "t5": "TD 7D QD",
    }, base="A")


def _finish(search: Generator[None, None, bool]) -> bool:
    while True:
        try:
            next(search)
        except StopIteration as done:
            return bool(done.value)


def test_the_search_starts_from_the_moves_it_is_given() -> None:
    engine.clear_caches()
    state = dead_endgame()
    # told the start has no moves at all, the search has nothing to expand
    assert _finish(dead.dead_search(state, [])) is True
    engine.clear_caches()
    assert _finish(dead.dead_search(state, engine.rules_of(state).legal_moves(state))) is True
    engine.clear_caches()


# A compiled class's methods cannot be replaced on an instance; `make test`
# runs this file on the pure core too, where they can.
@pytest.mark.skipif(is_compiled("server.game.variants.cross"),
                    reason="counts calls by replacing a method: pure core only")
def test_a_searched_position_has_its_moves_generated_once(monkeypatch: pytest.MonkeyPatch) -> None:
    engine.clear_caches()
    state = dead_endgame()
    rules = engine.rules_of(state)
    generate = rules.legal_moves
    of_start = 0

    def counting(s: engine.State) -> list[engine.Move]:
        nonlocal of_start
        of_start += s is state
        return generate(s)

    monkeypatch.setattr(rules, "legal_moves", counting)
    assert engine.status_and_moves(state) == (engine.DEAD, [])
    assert of_start == 1
    engine.clear_caches()
