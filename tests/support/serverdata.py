"""What the real server says about its variants, for tests that fake its messages:
the ``welcome`` listing and each variant's ``layout`` (the client has no table of its own)."""

from __future__ import annotations

from typing import Any

from client.variants import Variant, variants_from
from server.game.variants import get_rules, specs


def listing() -> list[dict[str, Any]]:
    return [spec.listing() for spec in specs()]


def welcome(server_time: int, **extra: Any) -> dict[str, Any]:
    return {"t": "welcome", "proto": 1, "server_time": server_time, "variants": listing(), **extra}


def layout(variant: str) -> dict[str, Any]:
    return get_rules(variant).layout()


# The real server's catalogue as the client reads it from a welcome.
VARIANTS: tuple[Variant, ...] = variants_from(listing())
