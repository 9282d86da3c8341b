"""The server's start-up log says which rules core runs (compiled or pure Python)."""

from __future__ import annotations

import json

from server.ops.corebuild import PURE
from tests.support.servers import SpawnFactory
from tests.unit.ops.test_corebuild import _version


def _core_logged(log_text: str) -> list[str]:
    records = [json.loads(line) for line in log_text.splitlines() if line.startswith("{")]
    return [r["message"] for r in records if r.get("message", "").startswith("rules core: ")]


async def test_the_start_up_log_names_the_core(spawn: SpawnFactory) -> None:
    built = await spawn(PATIENCE_PURE="0")
    pure = await spawn(PATIENCE_PURE="1")
    built.stop()
    pure.stop()
    assert _core_logged(pure.log.read_text()) == [f"rules core: {PURE}"]
    # the build's core, as --version reports it (compiled wherever a C compiler was found)
    expected = _version("0").rsplit("(", 1)[1].rstrip(")\n")
    assert _core_logged(built.log.read_text()) == [expected]


async def test_the_server_freezes_its_start_up_heap_and_collects_less_often(
        spawn: SpawnFactory) -> None:
    from server.app import GC_THRESHOLD

    server = await spawn()
    server.stop()
    records = [json.loads(line) for line in server.log.read_text().splitlines() if line.startswith("{")]
    tuned = [r for r in records if r.get("message", "").startswith("garbage collector: ")]
    assert len(tuned) == 1
    assert tuned[0]["gc_frozen"] > 10_000  # modules and rules tables, out of every collection
    assert tuned[0]["message"].endswith(f"thresholds {GC_THRESHOLD}")
