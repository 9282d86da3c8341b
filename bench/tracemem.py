"""Run a command's Python module with tracemalloc on, a snapshot written on each SIGUSR1.

    python -m bench.tracemem OUT_DIR [PYTHON] -m MODULE [ARGS...]

The soak runs its server under this (``python -m bench.soak --trace DIR``) and
signals it at the midpoint and at the end; :func:`growth` then lists the source
lines whose memory grew most between two snapshots: what a plateau has not
reached. tracemalloc slows every allocation, so a traced soak's RSS and race
counts are not the soak's figures.
"""

from __future__ import annotations

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
        tracemalloc.take_snapshot().dump(str(out / f"snapshot-{taken[0]}.bin"))
        (out / f"snapshot-{taken[0]}.done").touch()

    signal.signal(signal.SIGUSR1, dump)


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
    tracemalloc.start(FRAMES)
    snapshot_on_signal(Path(out))
    sys.argv = [module, *args]
    runpy.run_module(module, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
