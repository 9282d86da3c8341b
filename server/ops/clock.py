"""The server's clock: wall-clock milliseconds, the unit of every stored time.

Stored deadlines (a race's start and end, a seat's absence) are compared across
processes, so they are wall-clock time, not the loop's monotonic clock.
"""

from __future__ import annotations

import time


def now_ms() -> int:
    return time.time_ns() // 1_000_000
