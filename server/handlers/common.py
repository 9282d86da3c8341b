"""What several handlers share."""

from __future__ import annotations

from ..game.variants import UnknownVariant, get_rules
from ..protocol import ProtocolError


def variant_id(name: object) -> str:
    """The registry id of a variant named by id, name or alias; else ``unknown_variant``."""
    try:
        return get_rules(name).spec.id
    except UnknownVariant as exc:
        raise ProtocolError("unknown_variant", str(exc)) from None
