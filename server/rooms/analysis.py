"""Post-game analysis: where a finished game was lost, proved, and how it could
have been won. Pure: it runs in the analysis worker's process
(server/rooms/analysisworker.py), never on the event loop.

**The line that counts.** A record may hold undos (solo games), so the
positions the analysis looks at are those still standing at the game's end:
the *standing line*, from the deal through each move that was never taken
back, a resignation left out (a resigned position is the one before it). Along
that line winnability only ever goes down: a position reached from a lost one
is lost, so the positions split into a winnable prefix and a lost suffix. The
losing move is the one between the two; it is found by bisection, with the
solver (:func:`server.game.solver.solve_state`, which sees the stock) deciding
each position it probes.

**Proved, or said to be unknown.** "Lost" is only ever the solver's complete
search exhausting every line (or the server's own dead-position verdict on the
final position, stored as the player's status); "winnable" is only ever a line
that the solver replayed to a won game. A winning line from a probe also
proves every later standing position that it passes through winnable, so the
bisection jumps ahead along it. A probe the budget leaves undecided settles
nothing, and the bisection steps round it (:func:`_next_probe`). Whatever the
budget (nodes, summed over every probe of the game, and a time after which
no probe starts) leaves open is answered as ``undecided``, with the positions
searched and how far the bracket got.

**Indices** are record entries, as the ``replay`` message counts them: the
last winnable position is the one the player saw after ``index`` entries, and
the losing move is entry ``index + 1``.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from ..game import engine
from ..game.records import is_undo
from ..game.solver import LOST, WON, solve_state
from ..game.state import State

GAME_BUDGET: Final = 600_000  # solver nodes per player's game, all probes together
PROBE_BUDGET: Final = 200_000  # at most this much for one position (the rest for the others)
# Corner Stones' solver expands about a tenth as many positions a second as the
# others' (docs/design/analysis.md): its budgets are a tenth, for about the same time
SLOW_VARIANTS: Final = {"corner-stones": 10}
GAME_SECONDS: Final = 30.0  # no new probe of a game starts after this long (a slow machine)

# answers
A_WON: Final = "won"  # the player won: nothing was lost
A_LOST_AT: Final = "lost_at"  # the move that lost a winnable game, proved
A_DEAL_LOST: Final = "deal_lost"  # no line ever won this deal: no move lost it
A_WINNABLE: Final = "winnable_at_end"  # the game ended (resigned, time) while still winnable
A_UNDECIDED: Final = "undecided"  # the budget did not settle it


@dataclass
class Standing:
    """The standing line: ``states[j]`` came from record entry ``entries[j]``
    (0 for the deal), and ``texts[j]`` is that entry's text (j >= 1)."""

    states: list[State]
    entries: list[int]
    texts: list[str]


def standing_line(variant: str, deal: str | int, moves: Sequence[str]) -> Standing:
    """The positions still standing after the record ``moves`` (every entry was
    accepted by the server, so no check but the engine's own parse)."""
    line = Standing([engine.new_game(variant, deal)], [0], [""])
    for i, text in enumerate(moves, start=1):
        if is_undo(text):
            if len(line.states) > 1:
                line.states.pop()
                line.entries.pop()
                line.texts.pop()
            continue
        if text.strip().lower() == "resign":
            continue
        line.states.append(engine.play(line.states[-1], text, engine.IN_PROGRESS))
        line.entries.append(i)
        line.texts.append(text)
    return line


@dataclass
class Solver:
    """The probes of one analysis, remembered by position (the players of a race
    share the deal, and often their first moves), and the nodes spent."""

    budget: int
    probe_budget: int = PROBE_BUDGET
    spent: int = 0
    deadline: float = math.inf  # time.monotonic() after which no new probe starts
    known: dict[State, tuple[str, tuple[str, ...]]] = field(default_factory=dict)
    # positions a probe left undecided, with its budget: the same search again would
    # only end the same way (the solver is deterministic), so it is not run again
    tried: dict[State, int] = field(default_factory=dict)

    def late(self) -> bool:
        return time.monotonic() > self.deadline

    def decide(self, state: State) -> tuple[str, tuple[str, ...]]:
        """(won, line) | (lost, ()) | (unknown, ()) for ``state``."""
        hit = self.known.get(state)
        if hit is not None:
            return hit
        nodes = min(self.budget - self.spent, self.probe_budget)
        if nodes < 1 or self.late() or self.tried.get(state, 0) >= nodes:
            return "unknown", ()
        out = solve_state(state, nodes)
        self.spent += out.nodes
        answer = (out.result, tuple(out.moves))
        if out.result in (WON, LOST):
            self.known[state] = answer
        else:
            self.tried[state] = nodes
        return answer


def _jump(line: Standing, lo: int, moves: tuple[str, ...]) -> tuple[int, tuple[str, ...]]:
    """The furthest standing position that the winning ``moves`` from
    ``line.states[lo]`` pass through (so winnable too), and the rest of the line from it."""
    where = {s: j for j, s in enumerate(line.states) if j > lo}
    best, rest = lo, moves
    state = line.states[lo]
    for i, text in enumerate(moves):
        state = engine.play(state, text, engine.IN_PROGRESS)
        j = where.get(state, -1)
        if j > best:
            best, rest = j, moves[i + 1:]
    return best, rest


def _next_probe(lo: int, hi: int, unknown: set[int]) -> int | None:
    """The next standing position to decide between ``lo`` (known winnable, or
    -1) and ``hi`` (known lost, or past the end): the middle, or where the
    budget left positions undecided, the middle of the gap between them nearest
    the lost end (positions nearer the end have smaller searches); None when
    every position between is undecided."""
    inside = sorted(u for u in unknown if lo < u < hi)
    if not inside:
        return (lo + hi) // 2 if hi - lo > 1 else None
    if hi - inside[-1] > 1:
        return (inside[-1] + hi) // 2
    for left, right in reversed(list(zip([lo, *inside], inside, strict=False))):
        if right - left > 1:
            return (left + right) // 2
    return None


def last_of(line: Standing) -> int:
    return len(line.states) - 1


def analyse_game(line: Standing, final_status: str, solver: Solver) -> dict[str, Any]:
    """The analysis of one player's game (see the module's docstring)."""
    out: dict[str, Any] = {"moves": len(line.states) - 1}
    if final_status == engine.WON:
        out.update(result=A_WON, winnable_through=line.entries[-1], on_line=last_of(line))
        return out
    last = len(line.states) - 1
    start = solver.spent
    # the furthest standing position known winnable, and a winning line from it
    no_line: tuple[str, ...] = ()
    lo, lo_line = -1, no_line
    hi = last + 1  # the nearest standing position known lost
    if final_status == engine.DEAD:
        hi = last  # the server proved it: no card could reach a foundation any more
    unknown: set[int] = set()  # standing positions the budget left undecided
    # the end first (a lost end is usually small), then the deal, then bisect
    for probe in ([last] if hi > last else []) + [0]:
        if lo < probe < hi:
            verdict, moves = solver.decide(line.states[probe])
            if verdict == WON:
                lo, lo_line = _jump(line, probe, moves)
            elif verdict == LOST:
                hi = probe
            else:
                unknown.add(probe)
    while hi - lo > 1 and solver.spent < solver.budget:
        ahead = _next_probe(lo, hi, unknown)
        if ahead is None or solver.late():
            break
        verdict, moves = solver.decide(line.states[ahead])
        if verdict == WON:
            lo, lo_line = _jump(line, ahead, moves)
        elif verdict == LOST:
            hi = ahead
        else:
            unknown.add(ahead)
    out["nodes"] = solver.spent - start
    settled = hi == 0 or lo == last or (lo >= 0 and hi == lo + 1)
    out["on_line"] = max(lo, 0) if settled else None
    if not settled:
        out.update(result=A_UNDECIDED,
                   winnable_through=line.entries[lo] if lo >= 0 else None,
                   lost_from=line.entries[hi] if hi <= last else None)
        return out
    if hi == 0:
        out.update(result=A_DEAL_LOST)
        return out
    if lo == last:
        out.update(result=A_WINNABLE, index=line.entries[last], line=list(lo_line),
                   winnable_through=line.entries[last])
        return out
    # lo == hi - 1: the move from the one to the other lost the game
    out.update(result=A_LOST_AT, index=line.entries[hi] - 1, move=line.texts[hi],
               losing_entry=line.entries[hi], line=list(lo_line),
               winnable_through=line.entries[lo])
    return out


def parted(records: dict[int, Sequence[str]]) -> list[dict[str, int]]:
    """For every two players, how many first entries of their records are the
    same (the same deal: their paths are one line until then)."""
    out = []
    players = sorted(records)
    for i, a in enumerate(players):
        for b in players[i + 1:]:
            ra, rb = records[a], records[b]
            same = 0
            while same < min(len(ra), len(rb)) and ra[same] == rb[same]:
                same += 1
            out.append({"a": a, "b": b, "after": same})
    return out


def budgets(variant: str, budget: int = GAME_BUDGET) -> tuple[int, int]:
    """(nodes per game, nodes per probe) for ``variant``, from the game's budget."""
    slow = SLOW_VARIANTS.get(variant, 1)
    return max(1, budget // slow), max(1, PROBE_BUDGET // slow)


def analyse_room(variant: str, deal: str, games: list[tuple[int, list[str], str]],
                 budget: int = GAME_BUDGET, seconds: float = GAME_SECONDS) -> dict[str, Any]:
    """Every player's game of a finished room: ``games`` is (player, record's
    entries, final status) each. Each game gets ``budget`` nodes; a race's
    answer also says where the paths parted and who stayed on a winning line
    longest (the most standing moves while the game was still winnable)."""
    budget, probe = budgets(variant, budget)
    solver = Solver(0, probe)
    players = []
    for n, moves, final_status in games:
        solver.budget = solver.spent + budget
        solver.deadline = time.monotonic() + seconds
        game = analyse_game(standing_line(variant, deal, moves), final_status, solver)
        game["player"] = n
        players.append(game)
    deal_known = solver.known.get(engine.new_game(variant, deal))
    out: dict[str, Any] = {"variant": variant, "deal": deal, "budget": budget,
                           "deal_result": deal_known[0] if deal_known else "unknown",
                           "players": players, "nodes": solver.spent}
    if len(games) > 1:
        out["parted"] = parted({n: moves for n, moves, _ in games})
        out["longest"] = _longest(players)
    return out


def _longest(players: list[dict[str, Any]]) -> list[int]:
    """The players who made the most standing moves while their game was still
    winnable (none when some game is undecided, or when the deal was never winnable)."""
    counts = {g["player"]: g.get("on_line") for g in players}
    if any(c is None for c in counts.values()):
        return []
    top = max(int(c) for c in counts.values() if c is not None)
    return [n for n, c in counts.items() if c == top] if top > 0 else []
