"""The one way the server starts worker processes (a solve, a dead-position search,
an analysis, a grade, a fair-play check, the daily's deal).

Every pool starts its workers from a fork server, a clean process forked before
the server listened: a worker forked from the server itself would inherit its
listening socket and its clients' connections, keep the port bound after the
server is gone (a restarted server then cannot listen on it) and keep a killed
server's connections half open, so clients would not see them drop.

Every worker also ends when the server does, however it ends (a SIGKILL runs none
of the server's own clean-up). An idle worker waits on its job queue, whose
write end it holds itself, so it would never see the server go; and while any
worker lives, the fork server and multiprocessing's resource tracker live too,
since each worker holds the write end of the pipes by which they tell that their
users are gone. So each worker watches the server from a thread of its own (see
:func:`_leave_with_the_server`); once the workers are gone, the fork server and
the tracker see their pipes close and end by themselves.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from multiprocessing.process import BaseProcess
from typing import Any


def worker_pool(workers: int = 1, initializer: Callable[..., object] | None = None,
                initargs: tuple[Any, ...] = ()) -> ProcessPoolExecutor:
    return ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("forkserver"),
                               initializer=_start_worker, initargs=(initializer, initargs))


def _start_worker(initializer: Callable[..., object] | None, initargs: tuple[Any, ...]) -> None:
    server = multiprocessing.parent_process()
    if server is not None:  # None only when called outside a worker (a test's direct call)
        threading.Thread(target=_leave_with_the_server, args=(server,), name="server-watch",
                         daemon=True).start()
    if initializer is not None:
        initializer(*initargs)


def _leave_with_the_server(server: BaseProcess) -> None:
    """Wait, without polling, for the server to be gone, then end this worker.

    The wait is on the parent's sentinel that multiprocessing hands every child: the
    read end of a pipe whose only write end the server holds (for as long as it keeps
    the worker), so it reads end-of-file the moment the server dies, by any signal.
    The alternatives fall short here: a worker's parent is the fork server, not the
    server, so neither ``os.getppid()`` nor ``PR_SET_PDEATHSIG`` in a worker sees the
    server; the fork server is started from whichever of the server's threads first
    submits a job (an executor thread), and PDEATHSIG fires when that thread ends,
    not the process; and a pid polled by number costs wake-ups and can be reused.
    A worker in the middle of a job ends once the job gives the interpreter back,
    at the latest when its budget runs out; an idle one ends at once.
    """
    server.join()
    os._exit(0)
