"""The registry: every variant as data, with names and aliases.

Each entry is a :class:`VariantSpec` bound to its family's rules class.
Look-ups accept the id, the name or an alias, in any case and spacing.
"""

from __future__ import annotations

import re

from .base import Rules, VariantSpec
from .betsy_ross import BetsyRossRules
from .corner_stones import CornerStonesRules
from .cross import CrossRules

S0 = "S0: Publications International (2006), 'Vanishing Cross'"
S1 = "S1: Wikipedia, 'Four Seasons (card game)'"
S2 = "S2: 'Corner Stones', a two-deck rules page"
S3 = "S3: Amiga Plus Sonderheft 25 (2000), 'Four Seasons'"
S4 = "S4: 'Betsy Ross Solitaire', a Java applet help page"

SPECS: tuple[VariantSpec, ...] = (
    VariantSpec(
        "four-seasons", "Four Seasons", "cross",
        aliases=("Corner Card", "Cross Currents"),
        summary="build the corners up in suit from the base rank; the cross builds down, any suit",
        sources=(S1, "PySolFC 484"),
    ),
    VariantSpec(
        "four-seasons-1883", "Four Seasons (1883)", "cross",
        aliases=("Dick 1883", "Four Seasons original"),
        runs=True, space_fill="must-fill", deal_style="cross-1883",
        summary="Dick's original rules: runs move together, a vacancy must be filled at once",
        sources=(S1,),
    ),
    VariantSpec(
        "vanishing-cross", "Vanishing Cross", "cross",
        aliases=("Vanishing Cross 2006",),
        draw_needs_full_cross=True,
        summary="the 2006 text: no draw while a cross pile is empty and the waste is not",
        sources=(S0, S1),
    ),
    VariantSpec(
        "four-seasons-redeal", "Four Seasons with one redeal", "cross",
        aliases=("Four Seasons Amiga",),
        passes=2, space_fill="waste",
        summary="one redeal; a space is filled only from the waste",
        sources=(S3, "PySolFC 696"),
    ),
    VariantSpec(
        "czarina", "Czarina", "cross",
        space_fill="auto",
        summary="a space is filled at once from the stock, then the waste",
        sources=(S1, "PySolFC 483"),
    ),
    VariantSpec(
        "corners", "Corners", "cross",
        build="cells", space_fill="auto",
        summary="the cross is five one-card cells refilled from the stock",
        sources=(S1, "PySolFC 417"),
    ),
    VariantSpec(
        "simplicity", "Simplicity", "cross",
        tableau=12, build="down-alt",
        summary="twelve piles in two rows building down in alternating colours",
        sources=(S1, "PySolFC 437"),
    ),
    VariantSpec(
        "corner-stones", "Corner Stones", "corner-stones",
        aliases=("Four Corners", "Les Quatre Coins", "Cornerstones"),
        decks=2, foundations=8, tableau=12,
        summary="two decks dealt card by card round the corner stones; Ace and King foundations",
        sources=(S2, "PySolFC 620"),
    ),
    VariantSpec(
        "betsy-ross", "Betsy Ross", "betsy-ross",
        aliases=("Fairest", "Four Kings", "Musical Patience", "Quadruple Alliance"),
        foundations=4, tableau=0, indicators=4, passes=3,
        summary="foundations from 2, 4, 6, 8 build by 1, 2, 3, 4 regardless of suit",
        sources=(S4, "PySolFC 134"),
    ),
)

_FAMILIES: dict[str, type[Rules]] = {
    "cross": CrossRules,
    "corner-stones": CornerStonesRules,
    "betsy-ross": BetsyRossRules,
}


class UnknownVariant(ValueError):
    """No variant has this id, name or alias."""


def _key(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


RULES: dict[str, Rules] = {s.id: _FAMILIES[s.family](s) for s in SPECS}
_LOOKUP: dict[str, str] = {}
for _spec in SPECS:
    for _name in (_spec.id, _spec.name, *_spec.aliases):
        _LOOKUP.setdefault(_key(_name), _spec.id)
# "Vanishing Cross" is also a name of the later rules; the 2006 text owns the id.
_LOOKUP[_key("Vanishing Cross")] = "vanishing-cross"


def get_rules(name: object) -> Rules:
    """The rules for a variant id, name or alias."""
    if not isinstance(name, str):
        raise UnknownVariant(f"a variant is named by text, not {type(name).__name__}")
    vid = _LOOKUP.get(_key(name))
    if vid is None:
        raise UnknownVariant(f"unknown variant {name!r}; try one of: {', '.join(RULES)}")
    return RULES[vid]


def variant_ids() -> list[str]:
    return list(RULES)


__all__ = ["RULES", "SPECS", "Rules", "UnknownVariant", "VariantSpec", "get_rules", "variant_ids"]
