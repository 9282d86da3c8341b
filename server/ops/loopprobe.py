"""A debug probe of the event loop's lag and the collector's pauses
(``PATIENCE_LOOP_PROBE_MS``; 0, the default: off, and nothing of it runs).

Where a server's latency comes from while its CPU is mostly idle: a timer
every :data:`TICK_S` notes how late it runs (the loop's lag: the time some
callback, a burst of them, the collector or the scheduler held the loop), and
``gc.callbacks`` times every collection. Every :data:`REPORT_S` one log line
(WARNING, so the bench's quiet servers print it too) gives the gaps of at least
the threshold by size, the longest, and the collections by generation; the
counts then start again. The probe itself costs a timer per millisecond.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time
from typing import Any

log = logging.getLogger("patience.loopprobe")

TICK_S = 0.001
REPORT_S = 10.0
BUCKETS_MS = (2, 5, 10, 20, 50, 100)  # a gap is counted under the largest bucket it reaches


class LoopProbe:
    def __init__(self, threshold_ms: float, report_s: float = REPORT_S) -> None:
        self.threshold_s = threshold_ms / 1000
        self.report_s = report_s
        self.gaps: dict[int, int] = {}
        self.longest_ms = 0.0
        self.ticks = 0
        self.collections: dict[int, list[float]] = {}  # generation -> [count, total ms, longest ms]
        self._gc_started = 0.0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._reported = 0.0

    def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._reported = time.perf_counter()
        gc.callbacks.append(self._on_gc)
        self._arm()

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._on_gc in gc.callbacks:
            gc.callbacks.remove(self._on_gc)

    def _arm(self) -> None:
        assert self._loop is not None
        self._timer = self._loop.call_later(TICK_S, self._tick, time.perf_counter() + TICK_S)

    def _tick(self, due: float) -> None:
        now = time.perf_counter()
        self.ticks += 1
        self.note_gap(now - due)
        if now - self._reported >= self.report_s:
            log.warning(self.report())
            self.reset()
            self._reported = now
        self._arm()

    def note_gap(self, late_s: float) -> None:
        if late_s < self.threshold_s:
            return
        ms = late_s * 1000
        self.longest_ms = max(self.longest_ms, ms)
        bucket = max([b for b in BUCKETS_MS if ms >= b], default=0)
        self.gaps[bucket] = self.gaps.get(bucket, 0) + 1

    def _on_gc(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._gc_started = time.perf_counter()
            return
        ms = (time.perf_counter() - self._gc_started) * 1000
        entry = self.collections.setdefault(int(info["generation"]), [0, 0.0, 0.0])
        entry[0] += 1
        entry[1] += ms
        entry[2] = max(entry[2], ms)

    def report(self) -> str:
        gaps = ", ".join(f"{n} >= {b} ms" for b, n in sorted(self.gaps.items())) or "none"
        cols = "; ".join(f"gen{g}: {int(c)} taking {t:.1f} ms, longest {m:.1f} ms"
                         for g, (c, t, m) in sorted(self.collections.items())) or "none"
        return (f"loop probe over {self.ticks} ticks: gaps {gaps}, longest {self.longest_ms:.1f} ms;"
                f" collections {cols}")

    def reset(self) -> None:
        self.gaps, self.longest_ms, self.ticks, self.collections = {}, 0.0, 0, {}
