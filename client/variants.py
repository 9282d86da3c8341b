"""The variants a server offers, as its ``welcome`` message lists them.

The client keeps no table of its own: names, families and the paragraph of
rules all come from the server, so a variant added there shows up here with no
change to the client (docs/reference/protocol.md, ``welcome``).
"""

from __future__ import annotations

from typing import Any, NamedTuple

__all__ = ["Variant", "index_of", "variant_name", "variants_from"]


class Variant(NamedTuple):
    id: str
    name: str
    family: str
    blurb: str


def variants_from(listing: Any) -> tuple[Variant, ...]:
    """The ``variants`` of a ``welcome``; entries that are not well formed are left out."""
    out: list[Variant] = []
    for entry in listing if isinstance(listing, list) else ():
        if not isinstance(entry, dict) or not isinstance(entry.get("id"), str) or not entry["id"]:
            continue
        fields = [entry.get(k) for k in ("name", "family", "blurb")]
        name, family, blurb = (f if isinstance(f, str) else "" for f in fields)
        out.append(Variant(entry["id"], name or entry["id"], family, blurb))
    return tuple(out)


def variant_name(variants: tuple[Variant, ...], variant_id: str) -> str:
    """A human name for a variant id; ids the server did not list are shown as they are."""
    return next((v.name for v in variants if v.id == variant_id), variant_id)


def index_of(variants: tuple[Variant, ...], variant_id: str) -> int:
    return next((i for i, v in enumerate(variants) if v.id == variant_id), 0)
