"""The compiled and the pure core give the same errors (the pure one in a fresh process)."""

from __future__ import annotations

from server.ops.corebuild import COMPILED, PURE
from tests.unit.game.test_both_paths import _outcomes_in


def test_compiled_and_pure_cores_give_the_same_errors() -> None:
    pure, compiled = _outcomes_in(pure=True), _outcomes_in(pure=False)
    assert pure["core"] == PURE
    # a machine without a C compiler installs the pure core only: then both sides are pure
    assert compiled["core"] in (COMPILED, PURE)
    assert compiled["answers"] == pure["answers"]
