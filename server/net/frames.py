"""The common WebSocket frames, read and written without websockets' parser.

A client's message is nearly always one masked, final, binary frame within the
size limit, and every frame the server sends is a final, unmasked binary frame
(no extensions are ever negotiated). Reading and writing those two by hand
spares websockets' per-frame generator and ``Frame`` objects, a good part of a
move's framing cost. Everything else (pings, pongs, closes, text frames,
fragments, frames that break the rules) is left to the library's parser: see
:meth:`server.net.sansio.SansioConnection._fast_frames` for how the two share
one stream without ever leaving the parser mid-frame (RFC 6455, section 5.2).
"""

from __future__ import annotations

from typing import Final

try:  # websockets' C unmasking, as its own parser uses it
    from websockets.speedups import apply_mask
except ImportError:  # pragma: no cover - a build without the C extension
    from websockets.utils import apply_mask

# What :func:`next_frame` found at a position of the stream.
BINARY: Final = 0  # a masked, final, binary frame within the limit: unmask it here
OTHER: Final = 1  # a complete frame of another kind: the parser's, whole
WAIT: Final = 2  # not all of the frame is here yet
PARSER: Final = 3  # a fragment, an unmasked frame, RSV bits, too large: the parser's from here on


def next_frame(data: bytes, pos: int, limit: int) -> tuple[int, int, int]:
    """(kind, payload start, frame end) of the frame starting at ``data[pos]``;
    the two positions only for BINARY and OTHER."""
    size = len(data)
    if size - pos < 2:
        return WAIT, 0, 0
    b0, b1 = data[pos], data[pos + 1]
    n = b1 & 0x7F
    head = 6  # two header bytes and the four-byte mask
    if n == 126:
        if size - pos < 4:
            return WAIT, 0, 0
        n, head = int.from_bytes(data[pos + 2:pos + 4], "big"), 8
    if not b1 & 0x80 or n > limit or (b1 & 0x7F) == 127 or not b0 & 0x80 or b0 & 0x70:
        return PARSER, 0, 0
    end = pos + head + n
    if end > size:
        return WAIT, 0, 0
    return (BINARY if b0 == 0x82 else OTHER), pos + head, end


def unmasked(data: bytes, start: int, end: int) -> bytes:
    """The payload of the BINARY frame whose payload is ``data[start:end]``."""
    return apply_mask(data[start:end], data[start - 4:start])


def binary_frame(payload: bytes) -> bytes:
    """A server's final, unmasked binary frame carrying ``payload``."""
    n = len(payload)
    if n < 126:
        return bytes((0x82, n)) + payload
    if n < 65536:
        return b"\x82\x7e" + n.to_bytes(2, "big") + payload
    return b"\x82\x7f" + n.to_bytes(8, "big") + payload
