"""What one ranked game says about how it was played: the fair-play signals.

Computed from a game's record (its moves with the race clock's milliseconds),
after the result, in a worker process (server/rooms/fairplay.py), never on the
event loop: a replay and a handful of solver searches per game.

**Agreement with a solver where the player had a real choice.** A player who
copies a solver's line plays, move after move, what a program that sees the
whole deal (the stock's order included) would play. A person cannot see the
stock; where it still hides cards and the position offers a real choice, a
person's move agrees with the solver's only as often as good play happens to
point the same way. So the game is walked with a solver's winning line in hand:

* a *real choice* is a position where the stock still hides cards in an order
  the player cannot know (not empty, no redeal yet: after a redeal the new
  stock is the old waste, every card of which was seen), at least two moves are
  legal, and no safe foundation move is on offer (playing a safe card home is
  what anyone does; server/game/safe.py);
* while the player's moves follow the line in hand, each real choice on the
  way counts as an agreement (no search needed);
* at a real choice where no line is in hand or the player leaves it, the
  solver is asked from that very position (at most :data:`MAX_SOLVES` times a
  game, :data:`SOLVE_BUDGET` nodes each): a winning line found makes the
  position count, as an agreement if the player's move is its first move
  (the player then follows it) or else as a disagreement; a position the
  solver cannot win within its budget does not count, and the next search
  waits :data:`SEARCH_GAP` real choices (later positions have fewer cards
  left, and a line is easier to find).

Two moves agree when they lead to the same position (two texts of one move
agree).

**Think times.** The gap between one move's time and the previous one's
(the first move, which includes reading the deal, is left out), over the
moves that were not easy (below): how many, their median, their spread
(standard deviation of the logarithm), how many are faster than a person's
hand can make a move, the most common exact millisecond value and its share;
and their *shape* over every move: the mean logarithm of the times
at hard positions (three or more real options) less that at easy moves (one
legal move, a safe card going home, or a card turned from the stock: one key,
no aiming, which a person may hit as fast as a machine).

The figures kept are small and plain (a dict of numbers): they are stored per
name (server/store/fairplay.py) and scored over a name's recent games by
:mod:`server.race.fairplay_score`.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Sequence
from typing import Any, Final

from ..game import engine
from ..game.moves import parse
from ..game.safe import safe_foundation_moves
from ..game.solver import WON, solve_state
from ..game.state import STOCK, State

MAX_SOLVES: Final = 6  # solver searches per game at most
SOLVE_BUDGET: Final = 10_000  # nodes per search
# real choices let pass after a search that found no line: the next search comes
# later in the game, where fewer cards are left and a line is easier to find
SEARCH_GAP: Final = 12
FAST_MS: Final = 150  # a think time below this is faster than a person makes a move
TURNS: Final = ("draw", "deal", "redeal")  # one key, no aiming: a card turned from the stock
MAX_MOVES: Final = 3_000  # moves of a record walked at most (a race's record is far shorter)


def hidden(state: State) -> bool:
    """Whether the stock still hides cards in an order the player cannot know."""
    return bool(state.piles[STOCK]) and state.redeals == 0


def _after(state: State, text: str) -> State:
    return engine.play(state, text, engine.IN_PROGRESS)


def agreement(start: State, texts: Sequence[str], max_solves: int = MAX_SOLVES,
              budget: int = SOLVE_BUDGET) -> tuple[int, int, int]:
    """``(choices, agreements, searches)`` of a game played from ``start``."""
    rules = engine.rules_of(start)
    state = start
    line: list[str] | None = None
    line_i = 0
    choices = agreements = searches = 0
    hold = 0  # real choices to let pass before the next search, after one that found no line
    for text in texts[:MAX_MOVES]:
        legal = rules.legal_moves(state)
        after = _after(state, text)
        real = len(legal) >= 2 and hidden(state) and not safe_foundation_moves(rules, state, legal)
        on_line = line is not None and line_i < len(line) and _after(state, line[line_i]) == after
        if on_line:
            line_i += 1
            if real:
                choices += 1
                agreements += 1
        elif real and searches < max_solves and hold <= 0:
            searches += 1
            found = solve_state(state, budget)
            line, line_i = None, 0
            if found.result == WON and found.moves:
                choices += 1
                if _after(state, found.moves[0]) == after:
                    agreements += 1
                    line, line_i = found.moves, 1
            else:
                hold = SEARCH_GAP
        else:
            line = None
            hold -= 1 if real else 0
        state = after
    return choices, agreements, searches


def pace(ms: Sequence[int], options: Sequence[int], easy: Sequence[bool]) -> dict[str, Any]:
    """The think-time figures of one game: ``ms`` the moves' race-clock times,
    ``options`` the legal moves before each, ``easy`` whether each was easy.
    The median, the spread, the fast ones and the most common value are of the
    moves that were not easy: a safe card sent home may come at once after the
    move before (the client's "send safe cards home" key plays them in a row),
    and a person may turn cards from the stock as fast as the key repeats."""
    gaps = [(b - a, o, e) for a, b, o, e in zip(ms, ms[1:], options[1:], easy[1:], strict=False)]
    out: dict[str, Any] = {"moves": 0, "median_ms": 0, "spread": 0.0, "fast": 0,
                           "mode_ms": 0, "mode_share": 0.0, "shape": 0.0}
    times = [g for g, _, e in gaps if not e]
    if not times:
        return out
    logs = [math.log(max(g, 1) / 1000) for g in times]
    mode, count = Counter(times).most_common(1)[0]
    out.update(moves=len(times), median_ms=int(statistics.median(times)),
               spread=round(statistics.pstdev(logs), 4), fast=sum(1 for g in times if g < FAST_MS),
               mode_ms=mode, mode_share=round(count / len(times), 4))
    hard = [math.log(max(g, 1) / 1000) for g, o, e in gaps if o >= 3 and not e]
    light = [math.log(max(g, 1) / 1000) for g, o, e in gaps if e or o == 1]
    if hard and light:
        out["shape"] = round(statistics.fmean(hard) - statistics.fmean(light), 4)
    return out


def walk(start: State, texts: Sequence[str]) -> tuple[list[int], list[bool], bool]:
    """The legal moves before each move, whether each move was easy (the only
    legal move, a safe card sent home, or a card turned from the stock), and
    whether the game ends won (by the foundations, not by engine.status: no
    dead-position search for this)."""
    rules = engine.rules_of(start)
    options: list[int] = []
    easy: list[bool] = []
    state = start
    for text in texts[:MAX_MOVES]:
        legal = rules.legal_moves(state)
        after = _after(state, text)
        safe = safe_foundation_moves(rules, state, legal)
        options.append(len(legal))
        easy.append(len(legal) == 1 or parse(text).kind in TURNS
                    or any(_after(state, str(m)) == after for m in safe))
        state = after
    return options, easy, engine.foundation_cards(state) == rules.spec.total_cards


def combine(variant: str, won: bool, agreed: tuple[int, int, int], paced: dict[str, Any]) -> dict[str, Any]:
    """One game's signals, as they are stored and scored."""
    choices, agreements, searches = agreed
    return {"variant": variant, "won": won, "choices": choices, "agreed": agreements,
            "searches": searches, **paced}


def game_signals(variant: str, deal: int | str, moves: Sequence[tuple[int, str]],
                 max_solves: int = MAX_SOLVES, budget: int = SOLVE_BUDGET) -> dict[str, Any]:
    """Every signal of one game, from its record: ``moves`` is the log of
    ``(ms, text)`` as the store keeps it. Raises the engine's ValueError on a
    record that does not replay (a ranked record always does: it was checked)."""
    start = engine.new_game(variant, deal)
    texts = [t for _, t in moves][:MAX_MOVES]
    options, easy, won = walk(start, texts)
    paced = pace([m for m, _ in moves][:MAX_MOVES], options, easy)
    return combine(start.variant, won, agreement(start, texts, max_solves, budget), paced)
