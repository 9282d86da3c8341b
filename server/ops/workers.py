"""The one way the server starts worker processes (a solve, a dead-position search,
an analysis, a grade, a fair-play check, the daily's deal).

Every pool starts its workers from a fork server, a clean process forked before
the server listened: a worker forked from the server itself would inherit its
listening socket and its clients' connections, keep the port bound after the
server is gone (a restarted server then cannot listen on it) and keep a killed
server's connections half open, so clients would not see them drop.

Every worker also ends when the server does, however it ends (a SIGKILL runs none
of the server's own clean-up). Left alone, an idle worker waits on its job queue,
whose write end it holds itself, so it never sees the server go; and while any
worker lives, the fork server and multiprocessing's resource tracker live too,
since each worker holds the write end of the pipes by which they tell that their
users are gone. Two things end them now, both set up as a worker starts:

* on Linux, the kernel: the worker lets go of the fork server's "alive" pipe, so
  the fork server reads end-of-file, and exits, the moment the server dies; and it
  asks for SIGKILL when its own parent, the fork server, dies
  (:func:`_die_with_the_fork_server`). This ends a worker even in the middle of a
  compiled solve, which holds the interpreter and lets no thread of the worker run;
* everywhere, a thread of the worker waiting on the server's end of a pipe
  (:func:`_leave_with_the_server`): it ends an idle worker, and covers the moment
  before the first took hold.

Once the workers are gone, the tracker sees its pipe close and ends by itself.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import multiprocessing.forkserver
import os
import signal
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from multiprocessing.process import BaseProcess
from typing import Any


def worker_pool(workers: int = 1, initializer: Callable[..., object] | None = None,
                initargs: tuple[Any, ...] = ()) -> ProcessPoolExecutor:
    return ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("forkserver"),
                               initializer=_start_worker, initargs=(initializer, initargs))


PR_SET_PDEATHSIG = 1  # linux/prctl.h


def _start_worker(initializer: Callable[..., object] | None, initargs: tuple[Any, ...]) -> None:
    server = multiprocessing.parent_process()
    if server is not None:  # None only when called outside a worker (a test's direct call)
        _die_with_the_fork_server()
        threading.Thread(target=_leave_with_the_server, args=(server,), name="server-watch",
                         daemon=True).start()
    if initializer is not None:
        initializer(*initargs)


def _leave_with_the_server(server: BaseProcess) -> None:
    """Wait, without polling, for the server to be gone, then end this worker.

    The wait is on the parent's sentinel that multiprocessing hands every child: the
    read end of a pipe whose only write end the server holds (for as long as it keeps
    the worker), so it reads end-of-file the moment the server dies, by any signal.
    It costs a sleeping thread and no wake-up. Polling ``os.getppid()`` would see the
    fork server (the worker's parent), not the server, and a pid polled by number
    costs wake-ups and can be reused. Alone it ends a worker in the middle of a
    compiled job only once the job gives the interpreter back (at the latest at
    the end of its budget): :func:`_die_with_the_fork_server` does not wait for that.
    """
    server.join()
    os._exit(0)


def _die_with_the_fork_server() -> None:
    """Linux: SIGKILL for this worker when the fork server dies, and the fork server
    dying with the server.

    The worker's parent is the fork server, a single-threaded process, so
    ``PR_SET_PDEATHSIG`` (which fires when the thread that forked the worker ends)
    fires exactly when the fork server does. (The same in the fork server itself
    would not do: it is started from whichever server thread first submits a job,
    an executor's thread for most pools, and would fire when that thread ends.)
    The fork server exits when its "alive" pipe reads end-of-file: when every
    holder of the write end has closed it. The server holds one until it dies;
    every worker is handed a copy too, only so that it could start processes from
    the same fork server, which no worker here does. Closed in every worker, the
    server's death alone ends the fork server, and the kernel then ends every
    worker at once, whatever it is running. (The copy's
    holder is multiprocessing's private ``_forkserver_alive_fd``, unchanged from
    Python 3.4 to 3.14; should it ever be missing, the worker keeps its copy and
    the thread of :func:`_leave_with_the_server` still ends it.)"""
    if not sys.platform.startswith("linux"):
        return
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
        return  # without the signal the fork server's end would not end this worker
    forkserver = getattr(multiprocessing.forkserver, "_forkserver", None)
    alive = getattr(forkserver, "_forkserver_alive_fd", None)
    if isinstance(alive, int):
        os.close(alive)
        forkserver._forkserver_alive_fd = None  # type: ignore[union-attr]
