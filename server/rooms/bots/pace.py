"""How long a bot takes over a move: like a person, not like a machine.

Each level has a typical time per move; the time of one move is drawn from
a lognormal around it (most moves quick, now and then a long stare), longer
with more real choices on the table, and quick for the next step of a plan
already made or a card turned when nothing else can be done.
"""

from __future__ import annotations

import random

from .policy import Decision

# The median seconds per move by level: stronger players are also quicker.
MEDIAN_S = {1: 2.6, 2: 2.2, 3: 1.9, 4: 1.6, 5: 1.4}
SPREAD = 0.45  # sigma of the lognormal
PER_OPTION = 0.18  # each extra real choice adds this share of the time
MAX_S = 20.0


def think_time(level: int, decision: Decision, rng: random.Random) -> float:
    seconds = MEDIAN_S[level] * rng.lognormvariate(0.0, SPREAD)
    if decision.planned:
        seconds *= 0.45
    else:
        seconds *= 1.0 + PER_OPTION * min(max(decision.options - 1, 0), 8)
    return min(seconds, MAX_S)
