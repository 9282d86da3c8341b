"""The server's exception tree, in the lowest layer every other one may import.

Every layer raises and catches these by name, handlers included, so none of
them has to import the layer that raises (a handler never imports the store):

- :class:`~server.wire.protocol.ProtocolError` (``ValueError``): a refusal the
  client is told, with its protocol error code; raised by the handlers and the
  application layer (server/rooms/), answered by the transport as ``error``.
- :class:`StoreUnavailable` (``Exception``): Redis could not be reached and
  nothing was changed; raised by the store (server/store/), caught by the
  endpoint (the client gets ``store_unavailable``) and by background work,
  which retries.
- :class:`RoomError` (``Exception``): a store script's refusal, with a protocol
  error code; raised by the store, turned into a ``ProtocolError`` by the
  application layer, so it never reaches a handler.

Others stay inside their layer: ``WorkerUnavailable`` (server/rooms/deadwork.py),
``ConfigError`` (server/ops/config.py), ``ScheduleError`` (server/race/arena.py)
and the store's connection errors (server/store/).
"""

from __future__ import annotations

from .protocol import ProtocolError


class StoreUnavailable(Exception):
    """Redis could not be reached; nothing was changed by this request."""


class RoomError(Exception):
    """A refusal from the store; ``code`` is a protocol error code."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


__all__ = ["ProtocolError", "RoomError", "StoreUnavailable"]
