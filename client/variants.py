"""The variants the lobby offers, each with a paragraph of rules.

The protocol has no variant-list message yet, so the list lives here, in one
place. It is text for people only: the client never plays by these rules, the
server does. When the server grows a variant list, this module is what goes.
"""

from __future__ import annotations

from typing import Final, NamedTuple

__all__ = ["VARIANTS", "Variant", "variant_by_id", "variant_name"]


class Variant(NamedTuple):
    id: str
    name: str
    blurb: str


VARIANTS: Final[tuple[Variant, ...]] = (
    Variant(
        "four-seasons", "Four Seasons",
        "One deck in a cross of five piles with a foundation in each corner. The first card dealt "
        "sets the base rank: the corners build up in suit from it, round the corner from King to Ace. "
        "The cross builds down regardless of suit, one card at a time (a King may go on an Ace unless "
        "Aces are the base). Any card may fill a space. Draw one card at a time; no redeal.",
    ),
    Variant(
        "four-seasons-1883", "Four Seasons (1883)",
        "Dick's original rules. Cards that fit a foundation while the cross is dealt are built at once. "
        "Descending runs move together, and an empty cross pile must be filled straight away: from "
        "another pile, the waste, or the stock when the waste is empty. Otherwise as Four Seasons.",
    ),
    Variant(
        "vanishing-cross", "Vanishing Cross",
        "The 2006 text of Four Seasons: spaces must be kept filled, so you cannot draw while a cross pile "
        "is empty and the waste has a card to fill it. One card moves at a time; no redeal.",
    ),
    Variant(
        "four-seasons-redeal", "Four Seasons with one redeal",
        "Four Seasons with a second pass: when the stock runs out, turn the waste over once and go again. "
        "An empty cross pile may be filled only from the waste.",
    ),
    Variant(
        "czarina", "Czarina",
        "Four Seasons where a space is never yours to fill: an emptied cross pile is filled at once from "
        "the stock, or from the waste when the stock is out.",
    ),
    Variant(
        "corners", "Corners",
        "The cross is five cells of one card each. Nothing builds on them: cell cards and the waste top "
        "go only to the corner foundations, and an empty cell is refilled at once from the stock "
        "(then the waste).",
    ),
    Variant(
        "simplicity", "Simplicity",
        "Four Seasons with twelve piles in two rows of six instead of the cross. The piles build down in "
        "alternating colours; foundations build up in suit from the base rank. Any card fills a space.",
    ),
    Variant(
        "corner-stones", "Corner Stones",
        "Two decks dealt one card at a time round two columns of six piles; the corner piles are the "
        "corner stones. Between the columns, each row has an Ace foundation (up to King) and a King "
        "foundation (down to Ace) of one suit. While dealing, a side pile may feed only the foundation "
        "next to it; after the deal, any top card goes anywhere it fits, and piles build up or down by "
        "one in any suit, round the corner. No redeal; spaces stay empty.",
    ),
    Variant(
        "betsy-ross", "Betsy Ross",
        "One deck, no tableau. An indicator row of A, 2, 3, 4 sits above four foundations started with "
        "2, 4, 6 and 8, which build regardless of suit by 1, 2, 3 and 4 (round the corner) until each "
        "ends on a King. Play from the waste only; two redeals.",
    ),
)

_BY_ID: Final = {v.id: v for v in VARIANTS}


def variant_by_id(variant_id: str) -> Variant | None:
    return _BY_ID.get(variant_id)


def variant_name(variant_id: str) -> str:
    """A human name for a variant id; unknown ids are shown as they are."""
    found = _BY_ID.get(variant_id)
    return found.name if found else variant_id
