"""The class-level dead search (server/game/dead/classes.py) against the engine:
from random positions with the stock spent, its successor keys are the keys of
the engine's ``legal_moves`` + ``apply`` (foundation moves left out), and it sees
a foundation move open exactly where the engine offers one."""

from __future__ import annotations

import random

import pytest

from server.game import dead, engine
from server.game.dead import classes as deadsearch
from server.game.moves import Move
from server.game.state import State
from server.game.variants import RULES, Rules

CLASS_VARIANTS = [v for v, r in RULES.items() if r.class_moves() is not None]


def test_the_class_search_covers_the_large_regions_and_leaves_out_what_it_cannot_express() -> None:
    assert {"simplicity", "corner-stones", "four-seasons", "vanishing-cross", "czarina",
            "corners-pysol", "czarina-pysol"} <= set(CLASS_VARIANTS)
    assert "four-seasons-1883" in CLASS_VARIANTS  # its runs and vacancy obligation too
    for variant in ("florentine", "simplicity-pysol", "les-quatre-coins-pysol",
                    "fortunes-favor", "calculation", "betsy-ross"):
        assert RULES[variant].class_moves() is None


def endgame_positions(variant: str, seed: int, count: int) -> list[State]:
    """Positions met in random play once the stock can bring nothing new."""
    rng = random.Random(f"{variant}-{seed}")
    rules = RULES[variant]
    out: list[State] = []
    while len(out) < count:
        s = engine.new_game(variant, str(rng.randrange(1, 10**12)))
        for _ in range(600):
            if len(out) == count:
                break
            moves = rules.legal_moves(s)
            if not moves:
                break
            if not rules.can_draw_or_redeal(s):
                out.append(s)
            # leave the foundations alone half the time, so endgames stay long
            plain = [m for m in moves if m.dst[:1] != "f"]
            s = rules.apply(s, rng.choice(plain if plain and rng.random() < 0.5 else moves))
    return out[:count]


def engine_successors(rules: Rules, s: State, table: bytes) -> tuple[bool, set[bytes]]:
    kept, loose = rules.dead_places()
    places = kept + loose
    found = False
    keys: set[bytes] = set()
    for m in rules.legal_moves(s):
        if m.dst[:1] == "f" or m.src[:1] == "f":
            continue
        nxt = rules.apply(s, m)
        found = found or opens_foundation(rules.legal_moves(nxt))
        keys.add(dead.position_key(nxt, places, table, len(kept)))
    return found, keys


def opens_foundation(moves: list[Move]) -> bool:
    return any(m.dst[:1] == "f" and m.src[:1] != "f" for m in moves)


@pytest.mark.parametrize("variant", CLASS_VARIANTS)
def test_class_successors_are_the_engines(variant: str) -> None:
    checked, expanded = check_against_engine(variant, endgame_positions(variant, 16, 400))
    assert checked == 400
    # in Corners a spent stock leaves little but foundation moves: without one the game is
    # over, or (PySolFC's) a card may only shuffle between empty cells
    assert expanded > 20 or variant.startswith("corners")


def test_the_1883_vacancy_obligation_is_the_engines() -> None:
    """Positions where an emptied pile must be filled next are rare in random play:
    look at those of many more positions."""
    positions = [s for s in endgame_positions("four-seasons-1883", 17, 6000) if s.vacancy >= 0]
    checked, expanded = check_against_engine("four-seasons-1883", positions)
    assert checked == len(positions) > 30 and expanded > 30


def check_against_engine(variant: str, positions: list[State]) -> tuple[int, int]:
    """(positions checked, positions whose successors were compared)."""
    rules = RULES[variant]
    shape = rules.class_moves()
    assert shape is not None
    checked = expanded = 0
    for s in positions:
        wanted = rules.foundation_wants(s)
        table = rules.card_classes(wanted)
        search = deadsearch.ClassSearch(rules, shape, table, wanted, s.base)
        pos = search.start(s)
        kept, loose = rules.dead_places()
        assert deadsearch.key(pos) == dead.position_key(s, kept + loose, table, len(kept))
        assert search.open_foundation_move(pos) == opens_foundation(rules.legal_moves(s))
        checked += 1
        if search.open_foundation_move(pos):
            continue  # the search never expands such a position
        found, nexts = search.successors(pos)
        engine_found, engine_keys = engine_successors(rules, s, table)
        assert found == engine_found
        if not found:
            assert {deadsearch.key(n) for n in nexts} == engine_keys
            assert all(p == sorted(p) for _, p, _ in nexts)
            expanded += 1
    return checked, expanded
