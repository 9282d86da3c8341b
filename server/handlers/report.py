"""The report message: a claimed name reports another to the moderators
(after a race, or from a profile). The checks and the bounds are the
moderation service's (server/rooms/moderation.py); every refusal writes nothing."""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from ..rooms.player import Player, clean_name
from ..wire.protocol import ProtocolError

ROOM = re.compile(r"[A-Za-z0-9]{1,16}", re.ASCII)


def clean_text(text: str) -> str:
    """Printable characters and plain spaces only: a moderator reads it on a terminal."""
    return " ".join("".join(ch if unicodedata.category(ch)[0] != "C" else " " for ch in text).split())


async def on_report(player: Player, msg: dict[str, Any]) -> None:
    if player.identified is None:
        raise ProtocolError("not_identified", "only a claimed name, signed in with its key, can report")
    room = msg.get("room")
    if room is not None and ROOM.fullmatch(room) is None:
        raise ProtocolError("bad_field", "report: room is a room code")
    name = clean_name(msg["name"])
    await player.service.moderation.report(player.identified, name, msg["reason"],
                                           clean_text(msg.get("text", "")), room.upper() if room else None)
    player.send({"t": "reported", "name": name})


HANDLERS = {"report": on_report}
