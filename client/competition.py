"""The competition side's pure helpers: the name the server gives a board, and
yesterday's daily deal checked against the commitment published for it."""

from __future__ import annotations

import hashlib
from typing import Any, NamedTuple

__all__ = ["Reveal", "board_id", "reveal_check"]


def board_id(request: dict[str, Any], answer: dict[str, Any] | None) -> str | None:
    """The name the server gives a board in ``board_changed`` (None when it cannot be told)."""
    kind, variant = request.get("kind"), request.get("variant")
    if kind == "rating" and variant:
        return f"rating:{variant}"
    if kind == "wins" and variant:
        return f"wins:{variant}"
    if kind == "daily" and variant:
        date = request.get("date") or (answer or {}).get("date")
        return f"daily:{date}:{variant}" if date else None
    return None


class Reveal(NamedTuple):
    """Yesterday's deal checked against its commitment."""

    ours: bool | None  # SHA-256(deal|salt) recomputed here equals the published commitment
    server: bool | None  # the server's own check
    seen: bool | None  # the commitment equals the one this client saw during that day (None: not seen)


def reveal_check(yesterday: dict[str, Any], seen: str | None) -> Reveal:
    deal, salt, published = yesterday.get("deal"), yesterday.get("salt"), yesterday.get("commitment")
    ours: bool | None = None
    if isinstance(deal, str | int) and isinstance(salt, str) and isinstance(published, str):
        ours = hashlib.sha256(f"{deal}|{salt}".encode()).hexdigest() == published.lower()
    check = yesterday.get("check")
    server = check if isinstance(check, bool) else None
    was_seen = None if seen is None or not isinstance(published, str) else seen == published
    return Reveal(ours, server, was_seen)
