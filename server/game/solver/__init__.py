"""The patience solver: decides a deal *won* (with a line that replays), *lost*
(proved: no line of play wins) or *unknown* (node budget spent).

Thoughtful solitaire: the solver sees the whole deal, stock included. It runs
a small portfolio (see :mod:`.portfolio`): a fast, incomplete search for a
win first, then a complete search that alone may answer *lost*.

Modules, one idea each:

* :mod:`.search` - the depth-first search with a transposition table;
* :mod:`.cross`, :mod:`.corner_stones`, :mod:`.betsy` - each family as a
  fast mutable model (moves, undo, canonical key, safe moves) with its own
  sound loss test;
* :mod:`.cross_loss` - the cross family's loss tests (mobility, Corners'
  endgame), kept out of :mod:`.cross` for length;
* :mod:`.capacity` - the cross family's capacity test: a waste card must come
  back to the top, and the tableau must then hold what cannot be home yet;
* :mod:`.stockbound` - the cross family's abstract game: only the waste, the
  stock and the foundations, searched exhaustively with memories;
* :mod:`.portfolio` - the stages, the budget split and the replay check;
* :mod:`.reference` - a plain exhaustive search on the engine itself, with
  no pruning at all, to cross-check the fast one.
"""

from __future__ import annotations

from .portfolio import DEFAULT_BUDGET, SolveResult, solve, solve_state
from .search import LOST, UNKNOWN, WON

__all__ = ["DEFAULT_BUDGET", "LOST", "UNKNOWN", "WON", "SolveResult", "solve", "solve_state"]
