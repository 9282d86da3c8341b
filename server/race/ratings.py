"""Ratings per variant without I/O: the OpenSkill update of a race, the
provisional mark, the stored form of a rating and of one change in its history,
and where a name's rating of a variant starts (docs/design/ladder.md).

A rating is kept per variant because the variants' luck differs widely: a
Calculation beginner who is a Four Seasons expert must not stake the rating
earned elsewhere. The model is OpenSkill's Plackett-Luce, which rates a race of
two to eight players from its finishing order in one update.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from openskill.models import PlackettLuce

PROVISIONAL_RACES: Final = 10  # a rating is provisional until this many rated races in its variant
HISTORY_KEPT: Final = 200  # changes kept per name and variant (the newest)
MU: Final = 25.0  # OpenSkill's defaults: a new rating's mean and deviation
SIGMA: Final = 25.0 / 3.0
MIGRATED: Final = "migrated"  # the race code of a rating carried over from the single rating

_MODEL = PlackettLuce(mu=MU, sigma=SIGMA)


@dataclass(frozen=True)
class Skill:
    """One name's rating in one variant: mean, deviation, rated races, and the
    race that last changed it (so a race is never applied twice)."""

    mu: float = MU
    sigma: float = SIGMA
    races: int = 0
    last: str = ""

    @property
    def ordinal(self) -> float:
        """The rating shown and ranked: mu - 3 sigma, low while little is known."""
        return self.mu - 3.0 * self.sigma

    @property
    def provisional(self) -> bool:
        return self.races < PROVISIONAL_RACES

    def to_store(self) -> str:
        return f"{self.mu!r} {self.sigma!r} {self.races} {self.last}"

    @classmethod
    def from_store(cls, raw: str) -> Skill:
        mu, sigma, races, *last = raw.split(" ")
        return cls(float(mu), float(sigma), int(races), last[0] if last else "")


NEW: Final = Skill()


def field(variant: str) -> str:
    """The field of the name's hash that holds its rating of ``variant``."""
    return f"r:{variant}"


def stored_skills(row: Mapping[str, str]) -> dict[str, Skill]:
    """Every variant's rating in a name's hash (fields ``r:VARIANT``)."""
    return {k[2:]: Skill.from_store(v) for k, v in row.items() if k.startswith("r:")}


def legacy_skill(row: Mapping[str, str]) -> Skill | None:
    """The single rating a name had before ratings were kept per variant."""
    if not row.get("mu") or not row.get("sigma"):
        return None
    return Skill(float(row["mu"]), float(row["sigma"]), int(row.get("races") or 0), MIGRATED)


def starting_skill(row: Mapping[str, str], variant: str) -> Skill:
    """Where the name's rating of ``variant`` stands before a race: its own if
    it has one; else the old single rating, for a name that has a single rating
    and no rating of any variant yet (the migration found no variant it played,
    so its first rated variant is taken as the one that rating was earned in);
    else a new rating."""
    own = row.get(field(variant))
    if own:
        return Skill.from_store(own)
    legacy = legacy_skill(row)
    if legacy is not None and not stored_skills(row):
        return legacy
    return NEW


def rate(skills: list[Skill], places: list[int], race: str) -> list[Skill]:
    """The ratings after a race of these players (place 1 first; equal places tie)."""
    teams = [[_MODEL.rating(mu=s.mu, sigma=s.sigma)] for s in skills]
    rated = _MODEL.rate(teams, ranks=[float(p) for p in places])
    return [Skill(r.mu, r.sigma, s.races + 1, race) for (r,), s in zip(rated, skills, strict=True)]


def change_entry(race: str, at_ms: int, before: Skill, after: Skill) -> str:
    """One change in a rating's history, as stored (compact JSON)."""
    return json.dumps({"race": race, "at": at_ms, "before": round(before.ordinal, 3),
                       "after": round(after.ordinal, 3), "mu": round(after.mu, 4),
                       "sigma": round(after.sigma, 4)}, separators=(",", ":"))


def read_entry(raw: str) -> dict[str, Any]:
    entry: dict[str, Any] = json.loads(raw)
    return entry
