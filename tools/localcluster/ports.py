"""Which of the local cluster's fixed ports someone else holds, and who, so that
a taken port is one line before anything starts rather than a child's exit
after some have (HAProxy, a Redis node or a server failing to bind)."""

from __future__ import annotations

import contextlib
import socket

import psutil


class PortTaken(Exception):
    def __init__(self, port: int, what: str, holder: str | None, option: str) -> None:
        super().__init__(port, what, holder, option)
        self.port = port
        self.what = what  # whose port it is in the deployment: "HAProxy", "Redis node 2 of 6", ...
        self.holder = holder  # "valkey-server (pid 4242)" when this user may see it
        self.option = option  # the option that chooses another

    def __str__(self) -> str:
        who = f"by {self.holder}" if self.holder else "(by a process we cannot see)"
        return (f"cannot start the cluster: port {self.port} ({self.what}) is in use {who}; "
                f"choose another with {self.option}")


def bindable(port: int) -> bool:
    """Whether a loopback listener could bind ``port`` now. SO_REUSEADDR, as the
    nodes, HAProxy and the servers set it: a port in TIME_WAIT is no conflict."""
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def holder(port: int) -> str | None:
    """The process listening on ``port``, as "name (pid N)", if this user may see it."""
    with contextlib.suppress(psutil.Error, OSError):
        for conn in psutil.net_connections(kind="tcp"):
            if conn.status == psutil.CONN_LISTEN and conn.laddr and conn.laddr.port == port:
                if conn.pid is None:
                    return None
                with contextlib.suppress(psutil.Error):
                    return f"{psutil.Process(conn.pid).name()} (pid {conn.pid})"
                return f"pid {conn.pid}"
    return None


def check_free(wanted: list[tuple[int, str, str]]) -> None:
    """Raise :class:`PortTaken` for the first of ``(port, what, option)`` taken."""
    for port, what, option in wanted:
        if not bindable(port):
            raise PortTaken(port, what, holder(port), option)
