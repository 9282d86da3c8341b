"""What several handlers share."""

from __future__ import annotations

import re

from ..game.variants import UnknownVariant, get_rules
from ..protocol import ProtocolError

ROOM_CODE = re.compile(r"[A-Za-z0-9]{1,16}", re.ASCII)


def room_code(text: str) -> str:
    """A room code as typed (any case, spaces around); else ``no_room``."""
    code = text.strip().upper()
    if ROOM_CODE.fullmatch(code) is None:
        raise ProtocolError("no_room", f"no room has the code {code[:16]!r}")
    return code


def variant_id(name: object) -> str:
    """The registry id of a variant named by id, name or alias; else ``unknown_variant``."""
    try:
        return get_rules(name).spec.id
    except UnknownVariant as exc:
        raise ProtocolError("unknown_variant", str(exc)) from None
