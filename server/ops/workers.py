"""The one way the server starts worker processes (a solve, a dead-position search,
an analysis, a grade, a fair-play check, the daily's deal).

Every pool starts its workers from a fork server, a clean process forked before
the server listened: a worker forked from the server itself would inherit its
listening socket and its clients' connections, keep the port bound after the
server is gone (a restarted server then cannot listen on it) and keep a killed
server's connections half open, so clients would not see them drop.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any


def worker_pool(workers: int = 1, initializer: Callable[..., object] | None = None,
                initargs: tuple[Any, ...] = ()) -> ProcessPoolExecutor:
    return ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("forkserver"),
                               initializer=initializer, initargs=initargs)
