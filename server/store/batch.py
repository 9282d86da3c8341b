"""Coalesce the hot path's script calls into pipelines.

Every accepted move costs one EVALSHA. Awaiting each one separately spends
most of the server's CPU in per-command client machinery; queuing them and
sending whatever is pending as one non-transactional pipeline keeps it to one
round trip per batch, and still one round trip per move at low load. The
pipeline runs on a connection of its own (:mod:`.resp`): one batch in flight
at a time, so replies always line up with their callers.

On a Redis Cluster a batch is split by the node owning each call's slot and
the pipelines run side by side (:mod:`.router`); a call answered ``MOVED``
is sent again after the slot map is refreshed, ``ASK`` goes once to the named
node after ``ASKING``, ``TRYAGAIN`` (a slot mid-migration) after a pause.
With ``replicas`` > 0 every pipeline ends in ``WAIT``: its calls are answered
only once that many replicas have them (one wait per batch, not per move).

On one server with no replicas to wait for, a batch goes the short way: it is
written from the loop callback that queued it, and its callers' futures are
answered from the callback that reads the last reply, which sends the next batch
at once (:meth:`.resp.RespConnection.send_packed`); no task per batch. What
needs a wait goes the long way, as a task: opening the connection (the first
call, or after Redis went away), and the script cache to reload (``NOSCRIPT``).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import Callable
from typing import Any, Final

from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError

from ..ops.aio import KeptLoop
from .resp import Command, RespConnection
from .router import SINGLE, Address, Router

log = logging.getLogger("patience.store")

MAX_BATCH = 512
REDIRECTS = 5  # MOVED/ASK/TRYAGAIN rounds before a call counts as failed
WAIT_MS = 1000  # how long a batch waits for its replica before the store counts as away

# (the command packed for the wire, its caller's future, its slot)
Pending = tuple[bytes, "asyncio.Future[Any]", int]
# a call and whether it is sent after ASKING (to the node an ASK named)
Job = tuple[Pending, bool]


_ASKING = RespConnection.pack(("ASKING",))


# "$<length>\r\n", the bulk string header, for the lengths a move's arguments have
_BULK_HEADERS: Final = [b"$%d\r\n" % n for n in range(256)]


def pack_args(args: Command) -> bytes:
    """Arguments in Redis' wire format without the array header, for a command
    assembled from parts packed once (see :func:`array_header`). A move's own
    arguments are packed on every move: text, bytes and integers are packed
    here, compiled (hiredis' packer took several times the instructions for
    the seven of a move: a tuple, a check and a formatting per argument); any
    other type goes to hiredis, so the bytes and the errors stay its own."""
    parts: list[bytes] = []
    for arg in args:
        if isinstance(arg, str):
            data = arg.encode()
        elif isinstance(arg, bytes):
            data = arg
        elif type(arg) is int:  # exactly: hiredis refuses bool and every other subclass
            data = str(arg).encode()
        else:  # a float, or what Redis cannot take (TypeError)
            packed = RespConnection.pack(args)
            return packed[packed.index(b"\r\n") + 2:]
        n = len(data)
        parts.append(_BULK_HEADERS[n] if n < 256 else b"$%d\r\n" % n)
        parts.append(data)
        parts.append(b"\r\n")
    return b"".join(parts)


def array_header(n: int) -> bytes:
    return b"*%d\r\n" % n


class ReplicaLagging(RedisConnectionError):
    """The batch was written on the primary but no replica confirmed it in time:
    not acknowledged (the client's retry is answered ``dup`` once it is)."""


class ScriptBatcher:
    def __init__(self, conn: RespConnection | Router, source: str, *, replicas: int = 0) -> None:
        self._router = conn if isinstance(conn, Router) else Router.of(conn)
        self._source = source
        self._sha = hashlib.sha1(source.encode()).hexdigest()
        self._pending: list[Pending] = []
        self._flushing = False
        self.replicas = replicas
        self.round_trips = 0
        self.on_round_trip: Callable[[], None] | None = None
        self._flusher: asyncio.Future[None] | None = None
        self._loop = KeptLoop()
        self._in_flight: list[Pending] = []  # the batch sent the short way

    async def call(self, keys: list[str], args: list[Any], slot: int = 0) -> Any:
        return await self._queue(("EVALSHA", self._sha, len(keys), *keys, *args), slot)

    def script_head(self, keys: list[str], argc: int) -> bytes:
        """The start of a script call on ``keys`` with ``argc`` arguments, packed:
        follow it with the arguments (:func:`.resp.pack_args`) and pass the whole
        to :meth:`call_packed`. A hot caller packs its fixed parts once."""
        return array_header(3 + len(keys) + argc) + pack_args(("EVALSHA", self._sha, len(keys), *keys))

    def call_packed(self, packed: bytes, slot: int = 0) -> asyncio.Future[Any]:
        """A script call assembled by the caller (see :meth:`script_head`);
        ``slot`` is its keys' cluster slot (ignored on a single server)."""
        return self._enqueue(packed, slot)

    def command(self, *args: Any, slot: int = 0) -> asyncio.Future[Any]:
        """A plain command in the same pipeline, queued at once (not when a task
        gets round to it): it reaches Redis after every call queued before this
        one and before every call queued after it (on the same slot)."""
        return self._queue(args, slot)

    def _queue(self, command: tuple[Any, ...], slot: int) -> asyncio.Future[Any]:
        # packed here, so an argument Redis cannot take fails its own caller only
        return self._enqueue(RespConnection.pack(command), slot)

    def _enqueue(self, packed: bytes, slot: int) -> asyncio.Future[Any]:
        loop = self._loop.get()
        fut: asyncio.Future[Any] = loop.create_future()
        self._pending.append((packed, fut, slot))
        if not self._flushing:
            self._flushing = True
            loop.call_soon(self._start_flush)
        return fut

    def close(self) -> None:
        self._router.close()

    def _start_flush(self) -> None:
        """Send what is pending: the short way if it can go so, else as a task."""
        if not self._pending:
            self._flushing = False
        elif not self._send_short():
            self._flusher = self._loop.get().create_task(self._flush())

    def _send_short(self) -> bool:
        """Send the next batch the short way if it can go so (one server, no
        replicas, its connection open and idle); False: it must go as a task."""
        if self._router.cluster or self.replicas:
            return False
        conn = self._router.connection(SINGLE)
        if not conn.idle():
            return False
        batch, self._pending = self._pending[:MAX_BATCH], self._pending[MAX_BATCH:]
        self._in_flight = batch
        self.round_trips += 1
        conn.send_packed([item[0] for item in batch], self._answered)
        if self.on_round_trip is not None:
            try:
                self.on_round_trip()
            except Exception:  # a counter's failure is not the batch's
                log.exception("the round-trip hook failed")
        return True

    def _answered(self, replies: list[Any], exc: BaseException | None) -> None:
        """The short way's batch came back (or its connection ended: ``exc``)."""
        batch, self._in_flight = self._in_flight, []
        if exc is not None:
            _fail(batch, exc)
        else:
            again: list[Pending] = []
            try:
                for item, result in zip(batch, replies, strict=True):
                    if _settle(item, result) is not None:
                        again.append(item)  # on one server only NOSCRIPT asks for a retry
            except Exception as failed:  # never leave a caller unanswered, nor the batcher stuck
                _fail(batch, failed)
                again = []
            if again:  # the script cache to reload: the long way, the rest after it
                self._flusher = self._loop.get().create_task(self._retry(again))
                return
        self._start_flush()  # the next batch, from this same callback

    async def _retry(self, batch: list[Pending]) -> None:
        try:
            await self._send(batch)
        except BaseException as exc:
            _fail(batch, exc)
            self._flushing = False
            raise
        await self._flush()

    async def _flush(self) -> None:
        try:
            while self._pending:
                batch, self._pending = self._pending[:MAX_BATCH], self._pending[MAX_BATCH:]
                await self._send(batch)
        finally:
            self._flushing = False

    async def _send(self, batch: list[Pending]) -> None:
        single = not self._router.cluster
        if not single:
            try:
                await self._router.ready()
            except Exception as exc:
                _fail(batch, exc)
                return
        # each call with where ASK sent it (None: its slot's owner in the map)
        jobs: list[tuple[Address | None, Pending]] = [(None, item) for item in batch]
        for round_ in range(REDIRECTS + 1):
            # One pipeline per node, ASKed calls included: a connection carries one
            # pipeline at a time, or replies would reach the wrong callers.
            if single:  # one server: no slot lookup per call, no task or gather per batch
                outcomes = [await self._send_node(SINGLE, [(item, False) for _, item in jobs])]
            else:
                groups: dict[Address, list[Job]] = {}
                for asked, item in jobs:
                    groups.setdefault(asked or self._router.address(item[2]), []).append(
                        (item, asked is not None))
                outcomes = await asyncio.gather(*(self._send_node(addr, group)
                                                  for addr, group in groups.items()))
            jobs = [job for again in outcomes for job in again]
            if not jobs:
                return
            if any(asked is None for asked, _ in jobs):
                await self._router.refresh()  # someone answered MOVED: the slot map is stale
                if round_:
                    await asyncio.sleep(0.05 * round_)  # TRYAGAIN: the migration needs a moment
        _fail([item for _, item in jobs], RedisConnectionError("the cluster kept redirecting these calls"))

    async def _send_node(self, address: Address, group: list[Job]) -> list[tuple[Address | None, Pending]]:
        """Run one node's part; returns the calls to send again: to the node an
        ``ASK`` named, or (``None``) to their slot's owner after MOVED/TRYAGAIN."""
        conn = self._router.connection(address)
        try:
            results = await self._run(conn, group)
            missing = [i for i, r in enumerate(results) if _is_noscript(r)]
            if missing:
                # Redis lost its script cache (a restart), or never had it (a node
                # that just took a slot over): load it and send again the calls that
                # did not run; the others ran and stay answered.
                await conn.execute([("SCRIPT", "LOAD", self._source)])
                again = await self._run(conn, [group[i] for i in missing])
                for i, r in zip(missing, again, strict=True):
                    results[i] = r
        except Exception as exc:  # the store failed: every waiter gets the error
            _fail([item for item, _ in group], exc)
            return []
        redo: list[tuple[Address | None, Pending]] = []
        for (item, _), result in zip(group, results, strict=True):
            to = _settle(item, result, reloaded=True)
            if to is not None:
                redo.append((to or None, item))
        return redo

    async def _run(self, conn: RespConnection, group: list[Job]) -> list[Any]:
        self.round_trips += 1
        if self.on_round_trip is not None:
            self.on_round_trip()
        packed = []
        for item, asking in group:
            if asking:
                packed.append(_ASKING)
            packed.append(item[0])
        if self.replicas:
            # WAIT counts the replicas that have everything this connection wrote
            # so far, ASKed calls included
            packed.append(RespConnection.pack(("WAIT", self.replicas, WAIT_MS)))
        replies = await conn.execute_packed(packed)
        if self.replicas:
            acked = replies.pop()
            if isinstance(acked, ResponseError) or int(acked) < self.replicas:
                raise ReplicaLagging(f"no replica confirmed the batch within {WAIT_MS} ms ({acked})")
        out, it = [], iter(replies)
        for _, asking in group:
            if asking:
                next(it)  # ASKING's +OK
            out.append(next(it))
        return out


def _settle(item: Pending, result: Any, reloaded: bool = False) -> Address | tuple[()] | None:
    """Answer a call's future with its reply, or say where to send it again:
    ``()`` to its slot's owner (MOVED, TRYAGAIN; NOSCRIPT unless the script was
    just ``reloaded``), an address for ASK; None once it is answered."""
    fut = item[1]
    if fut.done():
        return None
    if not isinstance(result, ResponseError):  # nearly every reply: skip the checks
        fut.set_result(result)
    elif _error(result, "ASK"):  # a slot mid-migration: this key already moved
        host, _, port = str(result).split()[2].rpartition(":")
        return (host, int(port))
    elif _error(result, "MOVED") or _error(result, "TRYAGAIN"):
        return ()
    elif _is_noscript(result):
        if not reloaded:
            return ()
        # lost again at once: as if Redis were away
        fut.set_exception(RedisConnectionError(f"the script cache keeps emptying: {result}"))
    elif _error(result, "CLUSTERDOWN"):
        fut.set_exception(RedisConnectionError(str(result)))
    else:
        fut.set_exception(result)
    return None


def _fail(batch: list[Pending], exc: BaseException) -> None:
    for item in batch:
        if not item[1].done():
            item[1].set_exception(exc)


def _error(result: Any, prefix: str) -> bool:
    return isinstance(result, ResponseError) and str(result).startswith(prefix + " ")


def _is_noscript(result: Any) -> bool:
    return isinstance(result, ResponseError) and str(result).startswith("NOSCRIPT")
