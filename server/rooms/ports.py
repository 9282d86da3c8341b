"""What the application layer needs from the layers that serve it, declared here
so that it never imports them: the transport's outbox and the bots' roster
satisfy these protocols by their shape (the composition root hands them in)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol


class Outbox(Protocol):
    """One connection's outbound path: enqueueing never waits for a socket."""

    def send(self, payload: bytes) -> None: ...

    def send_progress(self, player: int, payload: bytes) -> None:
        """An opponent's progress: a snapshot, so a newer one may replace it."""

    def hold_progress(self) -> None:
        """The connection's own move is being answered: progress waits for the answer."""

    def release_progress(self) -> None: ...

    def close(self, code: int, reason: str) -> None: ...


# An outbox whose frames are handed, decoded, to a callback instead of a network:
# a bot's seat receives exactly what a person's connection would be sent.
OutboxFactory = Callable[[Callable[[dict[str, Any]], None]], Outbox]


class Queue(Protocol):
    """The quick-race queue a player may be waiting in (server/rooms/matchmaker.py)."""

    async def enqueue(self, player: Any, variant: str, accept_bots: bool = False,
                      bot: bool = False) -> dict[str, Any]:
        """Queue the player for a quick race of ``variant``; the ``queued`` message
        (``accept_bots``: a person who may meet bot accounts; ``bot``: one of them)."""

    async def cancel(self, player: Any) -> None:
        """The player stops waiting (no-op for one who does not wait)."""


class Bots(Protocol):
    """The bots playing for one service (server/rooms/bots/seat.py)."""

    async def add(self, code: str, level: int) -> object:
        """A bot of ``level`` in room ``code``'s lobby, playing from now on."""

    async def stop_all(self) -> None: ...

    def noticed(self, code: str) -> None:
        """A seat of room ``code`` is now on this process: its bots are looked after
        (a bot no process drives any more is taken up here)."""
