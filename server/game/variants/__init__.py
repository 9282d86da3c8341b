"""The registry: every variant as data, with names and aliases.

Each entry is a :class:`VariantSpec` bound to its family's rules class.
Look-ups accept the id, the name or an alias, in any case and spacing.
"""

from __future__ import annotations

import re

from .base import Rules, VariantSpec
from .betsy_ross import BetsyRossRules
from .calculation import CalculationRules
from .catalog import SPECS
from .corner_stones import CornerStonesRules
from .cross import CrossRules
from .fortunes_favor import FortunesFavorRules
from .quatre_coins import QuatreCoinsRules

_FAMILIES: dict[str, type[Rules]] = {
    "cross": CrossRules,
    "corner-stones": CornerStonesRules,
    "betsy-ross": BetsyRossRules,
    "calculation": CalculationRules,
    "fortunes-favor": FortunesFavorRules,
}
# a variant whose deal style needs more than its family's class
_STYLES: dict[str, type[Rules]] = {
    "quatre-coins-pysol": QuatreCoinsRules,
}


class UnknownVariant(ValueError):
    """No variant has this id, name or alias."""


def _key(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


RULES: dict[str, Rules] = {}
_LOOKUP: dict[str, str] = {}


def register(spec: VariantSpec) -> Rules:
    """Add a variant to the registry: its id, name and aliases find it from now on."""
    if spec.id in RULES:
        raise ValueError(f"variant {spec.id!r} is registered already")
    rules = _STYLES.get(spec.deal_style, _FAMILIES[spec.family])(spec)
    RULES[spec.id] = rules
    for name in (spec.id, spec.name, *spec.aliases):
        _LOOKUP.setdefault(_key(name), spec.id)
    return rules


def unregister(variant_id: str) -> None:
    """Take a variant out again (a test's own variant, once the test is done)."""
    RULES.pop(variant_id)
    for name in [k for k, v in _LOOKUP.items() if v == variant_id]:
        del _LOOKUP[name]


def specs() -> list[VariantSpec]:
    """Every registered variant's spec, in registry order."""
    return [r.spec for r in RULES.values()]


for _spec in SPECS:
    register(_spec)
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


__all__ = ["RULES", "SPECS", "Rules", "UnknownVariant", "VariantSpec", "get_rules", "register", "specs",
           "unregister", "variant_ids"]
