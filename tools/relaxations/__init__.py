"""Experiments towards proving Four Seasons deals lost (issue 33's first item).

Each module is a game that a search can walk with :func:`server.game.solver.search.dfs`
(they follow its :class:`~server.game.solver.search.Model` protocol):

* :mod:`.skeleton`: the tableau kept as each pile's ranks, with the exact places of only
  the next few cards of each suit (none: the rank skeleton);
* :mod:`.freetableau`: the tableau as a set of cards that five runs can cover;
* :mod:`.quotient`: the real game keyed by the class of tableau arrangements that
  reach one another.

The first two are *relaxations*: they allow every line of the real game and more, so a
position they prove lost is lost. The third is the real game itself, searched more
coarsely. None of them is used by the solver: docs/design/solver-research.md gives what
each measured (``python -m tools.relaxations --help`` reproduces the figures) and why
they were dropped.
"""
