"""What the client knows of the wire apart from its session: the server's
frames decoded, and the sentences a player reads when a server cannot be
reached or refuses its name."""

from __future__ import annotations

import socket
import ssl
from typing import Any
from urllib.parse import urlsplit

import msgpack
from websockets.exceptions import ConnectionClosed, InvalidStatus, InvalidURI, WebSocketException


class ServerUnreachable(Exception):
    """The first connection failed; ``str()`` is one sentence for the player."""


class NameTaken(ServerUnreachable):
    """The server refused the hello: the name is claimed and we lack its key."""


def name_taken_sentence(name: str, url: str, sent_key: bool) -> str:
    if sent_key:
        return (f"The name {name!r} is claimed on {url} and it refused the key kept for it: "
                "start with another --name, or give the right key with --key-file, or link this computer "
                "with --link CODE (a link code from a device that plays the name) or --recover CODE.")
    return (f"The name {name!r} is claimed on {url} by someone else: start with another --name, "
            "or, if it is yours, give its key with --key-file (or $PATIENCE_KEY), or link this computer "
            "with --link CODE or --recover CODE.")


def decode_server(frame: bytes | str) -> dict[str, Any]:
    """One server frame -> a message dict with a string ``t``; ValueError otherwise."""
    if isinstance(frame, str):
        raise ValueError("the server sent a text frame")
    try:
        data = msgpack.unpackb(frame, raw=False, strict_map_key=False)
    except Exception as exc:  # msgpack raises several unrelated types for bad input
        raise ValueError("the server sent a frame that is not msgpack") from exc
    if not isinstance(data, dict) or not isinstance(data.get("t"), str):
        raise ValueError("the server sent something other than a message")
    return data


def banned_address(exc: BaseException) -> str:
    """The server's sentence when it refused the handshake because a moderator
    banned this address (HTTP 403, docs/operations/moderation.md), else ''."""
    if not isinstance(exc, InvalidStatus) or exc.response.status_code != 403:
        return ""
    text = bytes(exc.response.body or b"").decode("utf-8", "replace").strip()
    if not text.startswith("this address is banned"):
        return ""
    return "".join(ch for ch in text[:300] if ch.isprintable())


def describe_failure(url: str, exc: BaseException) -> str:
    """One sentence saying why ``url`` could not be reached."""
    where = f"the Patience Race server at {url}"
    if isinstance(exc, InvalidURI) or not url.startswith(("ws://", "wss://")):
        return f"{url!r} is not a websocket address (expected ws://host:port)."
    if url.startswith("wss://") and isinstance(exc, ssl.SSLError | ConnectionResetError | EOFError):
        # a plain server reads the TLS greeting as a bad request and hangs up
        plain = "ws://" + url.removeprefix("wss://")
        return (f"Cannot reach {where}: the secure (TLS) handshake failed; the server may not use TLS: "
                f"try {plain}")
    if isinstance(exc, ConnectionRefusedError):
        return f"Cannot reach {where}: the connection was refused (is the server running?)."
    if isinstance(exc, socket.gaierror):
        host = urlsplit(url).hostname or url
        return f"Cannot reach {where}: the host name {host!r} was not found."
    if isinstance(exc, TimeoutError):
        return f"Cannot reach {where}: it did not answer in time."
    if isinstance(exc, InvalidStatus) and banned_address(exc):
        return f"{where.capitalize()} refused this connection: {banned_address(exc)}"
    if isinstance(exc, InvalidStatus):
        return f"{url} answered, but not as a Patience Race server (HTTP {exc.response.status_code})."
    if isinstance(exc, ConnectionClosed):
        return f"{where.capitalize()} closed the connection before greeting us."
    if isinstance(exc, WebSocketException):
        return f"{url} does not speak the websocket protocol expected of a Patience Race server."
    if isinstance(exc, OSError):
        reason = (exc.strerror or type(exc).__name__).lower()
        return f"Cannot reach {where}: {reason}."
    return f"Cannot reach {where}: {exc}."
