"""A name's suspicion score over its recent ranked games, with its explanation.

Each game's signals come from :mod:`server.race.fairplay_signals`; a name
keeps its newest :data:`HISTORY` (server/store/fairplay.py), and this module
scores them together. Three parts, each scaled so that 1.0 is its flag
threshold; the score is the largest part, and a name is flagged at
:data:`FLAG_AT` (1.0) or more:

* **agreement** - the log-likelihood ratio of agreements (``agreed`` of
  ``choices``) under a solver-assisted player's agreement rate against an
  honest one's (:data:`P_ASSISTED`, :data:`P_HONEST`), of the window's games
  pooled or of its best game alone, whichever is larger, over
  :data:`AGREE_LLR`. Choices a person makes agree with the solver now and then;
  only a long run of them, far more than the best honest players show, scores.
* **speed** - the median think time of the window's own choices (safe cards
  and forced moves left out) against :data:`SPEED_MS`, and the share of them
  faster than a hand makes a move against :data:`FAST_SHARE`.
* **machine pace** - games whose think times barely vary (a spread below
  :data:`SPREAD_MIN`) or repeat one value to the millisecond (a share of at
  least :data:`MODE_SHARE`), or games whose most common think time is the
  same to the millisecond, counted against :data:`MACHINE_GAMES`.

Every threshold comes from the experiment of bench/fairplay.py; its table and
the command that gives it again are in docs/design/fair-play.md.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from typing import Any, Final

HISTORY: Final = 20  # a name's newest ranked games scored together
FLAG_AT: Final = 1.0

P_HONEST: Final = 0.6  # agreement rate the best honest careers stay under
P_ASSISTED: Final = 0.95  # agreement rate of a solver-assisted player
AGREE_LLR: Final = 12.0  # log-likelihood ratio at which the agreement part reaches 1.0

SPEED_MS: Final = 400  # a window's median think time this low scores 1.0 (lower: more)
FAST_SHARE: Final = 0.3  # share of choices under FAST_MS that scores 1.0
MIN_TIMES: Final = 40  # think times in the window before speed is judged

SPREAD_MIN: Final = 0.12  # a game's think times varying less than this are a machine's
MODE_SHARE: Final = 0.2  # ... or one value to the millisecond this often
MACHINE_GAMES: Final = 3  # such games in the window that score 1.0
MIN_GAME_TIMES: Final = 20  # think times a game needs before its pace is judged

_AGREE = math.log(P_ASSISTED / P_HONEST)
_DISAGREE = math.log((1 - P_ASSISTED) / (1 - P_HONEST))


def agreement_llr(choices: int, agreed: int) -> float:
    return agreed * _AGREE + (choices - agreed) * _DISAGREE


def score(games: Sequence[dict[str, Any]]) -> tuple[float, dict[str, Any]]:
    """The suspicion score of a name's games (the newest first; only the first
    :data:`HISTORY` count) and its explanation: every part with the figures
    behind it, JSON-ready and small."""
    window = list(games[:HISTORY])
    choices = sum(int(g.get("choices", 0)) for g in window)
    agreed = sum(int(g.get("agreed", 0)) for g in window)
    llr = agreement_llr(choices, agreed)
    # one game on the solver's line is evidence however the others went (a cheat may
    # play on his own when his solver finds nothing): the best game counts alone too
    best = max((agreement_llr(int(g.get("choices", 0)), int(g.get("agreed", 0))) for g in window),
               default=0.0)
    agree_part = max(0.0, llr, best) / AGREE_LLR

    timed = [g for g in window if int(g.get("moves", 0)) > 0]
    times = sum(int(g["moves"]) for g in timed)
    speed_part, median_ms, fast_share = 0.0, 0, 0.0
    if times >= MIN_TIMES:
        median_ms = int(statistics.median(int(g["median_ms"]) for g in timed))
        fast_share = sum(int(g.get("fast", 0)) for g in timed) / times
        speed_part = max(SPEED_MS / max(median_ms, 1), fast_share / FAST_SHARE)

    judged = [g for g in window if int(g.get("moves", 0)) >= MIN_GAME_TIMES]
    machine = [g for g in judged if float(g.get("spread", 1.0)) < SPREAD_MIN
               or float(g.get("mode_share", 0.0)) >= MODE_SHARE]
    same = _same_mode(judged)
    # (one game's most common value is no pattern: it takes two games sharing it)
    machine_part = max(len(machine), same if same > 1 else 0) / MACHINE_GAMES

    parts = {"agreement": round(agree_part, 3), "speed": round(speed_part, 3),
             "machine_pace": round(machine_part, 3)}
    total = max(parts.values())
    why = {
        "score": round(total, 3), "flag_at": FLAG_AT, "games": len(window), "parts": parts,
        "agreement": {"choices": choices, "agreed": agreed,
                      "rate": round(agreed / choices, 3) if choices else None, "llr": round(llr, 2),
                      "best_game_llr": round(best, 2)},
        "speed": {"think_times": times, "median_ms": median_ms, "fast_share": round(fast_share, 3)},
        "machine_pace": {"games": len(machine), "judged": len(judged), "same_ms_games": same},
        "shape": round(statistics.fmean(float(g.get("shape", 0.0)) for g in judged), 3) if judged else None,
        "reasons": [text for key, text in _REASONS.items() if parts[key] >= FLAG_AT],
    }
    return total, why


def _same_mode(games: Sequence[dict[str, Any]]) -> int:
    """The most games sharing one most-common think time to the millisecond."""
    counts: dict[int, int] = {}
    for g in games:
        if float(g.get("mode_share", 0.0)) >= MODE_SHARE / 2:
            counts[int(g["mode_ms"])] = counts.get(int(g["mode_ms"]), 0) + 1
    return max(counts.values(), default=0)


_REASONS = {
    "agreement": "plays the solver's winning line where a person has a real choice, far more often "
                 "than honest players do",
    "speed": "makes choices faster than a person can",
    "machine_pace": "thinks for the same time, to the millisecond, move after move",
}
