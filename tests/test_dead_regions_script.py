"""scripts/dead_regions.py's random play: ``--keep-home`` never takes a card back
off a foundation, which Fortune's Favor's rules allow and its random walks
otherwise do until the move cap."""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path
from types import ModuleType

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "dead_regions.py"


def load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("dead_regions_script", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def takebacks(moves: list[str]) -> int:
    return sum(1 for m in moves if m.startswith("f"))


def test_keep_home_random_play_never_moves_a_foundation_card() -> None:
    script = load_script()
    rng = random.Random(5)
    kept = [script.play_one("fortunes-favor", rng, 2000, 0, False, True) for _ in range(20)]
    assert all(takebacks(g.moves) == 0 for g in kept)
    assert all(g.outcome in ("won", "dead") for g in kept)  # they end before the cap
    rng = random.Random(5)
    free = [script.play_one("fortunes-favor", rng, 300, 0, False) for _ in range(20)]
    assert sum(takebacks(g.moves) for g in free) > 0  # the rules allow it; plain random play does it
