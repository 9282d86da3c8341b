"""Golden dead regions: the largest dead regions met in random play, kept with
their deal and moves (seeds/deals/dead_regions_v1.json says how they were
found). Each must still be declared dead at the move that made it dead, with
the region size recorded, and the plain exhaustive search must agree."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from server.game import dead, engine
from server.game.engine import DEAD, IN_PROGRESS
from server.game.moves import parse
from server.game.state import State
from server.game.variants import Rules
from tests.support.game import fresh_engine_caches, plain_dead

CORPUS = Path(__file__).resolve().parents[3] / "seeds" / "deals" / "dead_regions_v1.json"
ENTRIES: list[dict[str, Any]] = json.loads(CORPUS.read_text())["regions"]
# alive positions whose foundation move a best-first search once reached only late
ALIVE: list[dict[str, Any]] = json.loads(CORPUS.read_text())["alive"]
# the plain search runs where it is affordable in a test (it counts every card
# by itself: regions grow by up to three orders of magnitude)
PLAIN_LIMIT = 5_000


def replay(entry: dict[str, Any]) -> list[State]:
    s = engine.new_game(entry["variant"], entry["deal"])
    rules = engine.rules_of(s)
    states = [s]
    for text in entry["moves"].split():
        m = parse(text)
        assert m in rules.legal_moves(s), f"{text} is not legal here"
        s = rules.apply(s, m)
        states.append(s)
    return states


def bounded_region(rules: Rules, state: State, steps: int) -> tuple[bool, int] | None:
    """:func:`dead.region`, or None when the search has not ended after ``steps``
    of its steps (it yields at every step with no time slice: one position, or
    a chunk of positions in the movable foundations' rounds)."""
    search = dead.exhaust(rules, state, rules.foundation_wants(state), None, 0.0, set())
    for _ in range(steps):
        try:
            next(search)
        except StopIteration as done:
            is_dead, seen = done.value
            return is_dead, len(seen)
    return None


def test_the_corpus_covers_the_searched_families() -> None:
    assert {e["variant"] for e in ENTRIES} >= {"four-seasons", "four-seasons-1883"}
    assert all(e["found_by"] for e in ENTRIES)


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: f"{e['variant']}-{e['deal']}-{e['region']}")
def test_golden_dead_region(entry: dict[str, Any]) -> None:
    states = replay(entry)
    final = states[-1]
    assert dead.region(engine.rules_of(final), final) == (True, entry["region"])
    with fresh_engine_caches():
        assert engine.status(states[-2]) == IN_PROGRESS
        assert engine.status_and_moves(final) == (DEAD, [])
    plain = entry.get("plain_region")
    if plain is not None and plain <= PLAIN_LIMIT:
        assert plain_dead(final) is True


@pytest.mark.parametrize("entry", ALIVE, ids=lambda e: f"{e['variant']}-{e['deal']}")
def test_alive_positions_find_their_foundation_move_in_few_positions(entry: dict[str, Any]) -> None:
    """Taking equal positions newest first follows one line down a plateau: these
    positions once cost ~20,000 positions each (oldest first), now a few dozen.
    Les Quatre Coins' entries of issue 16's fifth round were undecided after 30 s
    of CPU (or alive only after 16-34 s): the depth-first share of each round
    (deadwindow.py) finds them within their ``max_region`` (1,000 unless given)."""
    states = replay(entry)
    rules = engine.rules_of(states[0])
    for n in entry["alive_after"]:
        s = states[n]
        assert not rules.can_draw_or_redeal(s) and not any(dead.raises_count(m) for m in rules.legal_moves(s))
        limit = entry.get("max_region", 1_000)
        decided = bounded_region(rules, s, 4 * limit)
        assert decided is not None, f"undecided after {4 * limit} steps at {n} moves"
        is_dead, size = decided
        assert not is_dead and size < limit
