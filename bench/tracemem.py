"""Run a command's Python module with tracemalloc on, a snapshot written on each SIGUSR1.

    python -m bench.tracemem OUT_DIR [PYTHON] -m MODULE [ARGS...]

Each snapshot also counts the live objects the garbage collector tracks, by
type (``types-N.json``): cheap enough to take without tracemalloc, which
``PATIENCE_TRACEMALLOC=0`` leaves off (then the process runs at its own speed
and only the counts are compared).

The soak runs its server under this (``python -m bench.soak --trace DIR``) and
signals it at the midpoint and at the end; :func:`growth` then lists the source
lines whose memory grew most between two snapshots: what a plateau has not
reached. tracemalloc slows every allocation, so a traced soak's RSS and race
counts are not the soak's figures.
"""

from __future__ import annotations

import collections
import gc
import json
import os
import runpy
import signal
import sys
import time
import tracemalloc
from pathlib import Path
from types import FrameType

FRAMES = 8  # enough to see which registry a dict or list belongs to


def snapshot_on_signal(out: Path) -> None:
    taken = [0]

    def dump(signum: int, frame: FrameType | None) -> None:
        taken[0] += 1
        if tracemalloc.is_tracing():
            tracemalloc.take_snapshot().dump(str(out / f"snapshot-{taken[0]}.bin"))
        (out / f"types-{taken[0]}.json").write_text(json.dumps(type_counts()))
        (out / f"snapshot-{taken[0]}.done").touch()

    signal.signal(signal.SIGUSR1, dump)


def type_counts() -> dict[str, int]:
    """Live objects the garbage collector tracks, by module and type name, and
    how full the process's bounded tables are (``table:`` entries)."""
    counts = collections.Counter(f"{type(o).__module__}.{type(o).__qualname__}"
                                 for o in gc.get_objects())
    return {**counts, **table_fill()}


def table_fill() -> dict[str, int]:
    """Entries in the bounded tables a server process fills as it plays."""
    from server.game import dead, moves, views
    from server.wire import viewcodec

    verdicts, dead_keys = dead.cache_sizes()
    return {"table:verdicts": verdicts, "table:dead keys": dead_keys,
            "table:move texts": len(moves._TEXTS),
            "table:pile texts": views._pile_texts.cache_info().currsize,
            "table:packed piles": viewcodec.pile_table.cache_info().currsize,
            "table:packed moves": viewcodec.move_table.cache_info().currsize}


def type_growth(before: Path, after: Path, top: int = 25) -> list[str]:
    """The ``top`` types whose count of live objects grew most."""
    old, new = json.loads(before.read_text()), json.loads(after.read_text())
    diff = sorted(((new.get(k, 0) - old.get(k, 0), k) for k in {*old, *new}), reverse=True)
    tables = [f"{name}: {old.get(name, 0)} -> {new.get(name, 0)}"
              for name in sorted(new) if name.startswith("table:")]
    return tables + [f"{d:+d} {name} ({new.get(name, 0)} live)" for d, name in diff[:top]]


def wait_for(done: Path, poll_s: float = 0.5) -> None:
    """Until the traced process has written a snapshot (it marks it with ``done``)."""
    while not done.exists():
        time.sleep(poll_s)


def growth(before: Path, after: Path, top: int = 25) -> list[str]:
    """The ``top`` tracebacks whose memory grew most from ``before`` to ``after``."""
    old = tracemalloc.Snapshot.load(str(before))
    new = tracemalloc.Snapshot.load(str(after))
    keep = [tracemalloc.Filter(False, tracemalloc.__file__),
            tracemalloc.Filter(False, "<frozen importlib._bootstrap*>")]
    diff = new.filter_traces(keep).compare_to(old.filter_traces(keep), "traceback")
    lines = []
    for stat in diff[:top]:
        lines.append(f"{stat.size_diff / 1024:+.1f} KiB ({stat.count_diff:+d} blocks)")
        lines.extend(f"    {line}" for line in stat.traceback.format(limit=FRAMES)[-2 * FRAMES:])
    return lines


def main() -> None:
    out, *command = sys.argv[1:]
    at = command.index("-m")  # what comes before it: the interpreter, this one
    module, args = command[at + 1], command[at + 2:]
    if os.environ.get("PATIENCE_TRACEMALLOC", "1") != "0":
        tracemalloc.start(FRAMES)
    snapshot_on_signal(Path(out))
    sys.argv = [module, *args]
    runpy.run_module(module, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
