"""A finished race's record, packed small (docs/reference/storage.md).

While a race runs each player's moves are a Redis list, one entry per move,
``"<ms since the start> <move text>"``: the move script appends in place. Once
the race is finished the lists never change again, and for the 24 hours the
room is kept they are only read whole (a resume, a record, a replay, a ghost),
as are the results. So at the finish the results and every log go into one
string key: the logs' times as the steps between them (short numbers), one
move a line, the whole compressed. The room's meta and player hashes keep only
short fields, so Redis keeps them in its compact encoding (a listpack: a field
of more than 64 bytes, as the results were, makes a hash a hash table).
"""

from __future__ import annotations

import zlib

import msgpack

from ..race.history import log_rows, log_text

FORMAT = b"\x01"  # the first byte says how the rest is packed: this module's one way

Log = list[tuple[int, str]]


def pack_record(results: bytes, logs: list[Log]) -> bytes:
    """The results message's bytes and each player's log (ms into the race, move
    text; player 1 first), packed."""
    body = msgpack.packb([results, [log_text(rows) for rows in logs]], use_bin_type=True)
    return FORMAT + zlib.compress(body, 9)


def unpack_record(packed: bytes) -> tuple[bytes, list[Log]]:
    """What :func:`pack_record` packed; ValueError for anything else."""
    if packed[:1] != FORMAT:
        raise ValueError("not a packed race record")
    try:
        results, logs = msgpack.unpackb(zlib.decompress(packed[1:]), raw=False)
    except (zlib.error, ValueError, TypeError) as exc:
        raise ValueError(f"a packed race record that does not unpack: {exc}") from None
    if not isinstance(results, bytes) or not isinstance(logs, list) \
            or not all(isinstance(text, str) for text in logs):
        raise ValueError("a packed race record of the wrong shape")
    return results, [list(log_rows(text)) for text in logs]
