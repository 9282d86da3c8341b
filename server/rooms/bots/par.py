"""A deal's par: what the bots of each level make of it.

The par of a deal at a level is the median foundation count of that level's
bots over a few games of the deal (each game with its own seed, so the
bots' chance choices differ): a player's result on the deal reads against
it, whatever the deal's luck. A game here is a seat's game without the
network, as in the bots' measurements (``bench/bots.py``): the bot sees only
its views, and every move goes through the engine's checked path. It runs in
a worker process (the daily's), never on the event loop.
"""

from __future__ import annotations

import random
import statistics

from ...game import engine
from ...game.views import view
from .knowledge import Knowledge
from .policy import LEVEL, LEVELS, Mind, decide

PAR_GAMES = 3  # games per level; the median of three is the middle one
MAX_MOVES = 3000  # a game that runs this long counts as it stands


def bot_result(variant: str, deal: str, level: int, seed: int, max_moves: int = MAX_MOVES) -> int:
    """The foundation count one bot of ``level`` reaches on the deal."""
    rng = random.Random(seed)
    state = engine.new_game(variant, deal)
    know = Knowledge(variant)
    mind = Mind(LEVEL[level], know, rng)
    for _ in range(max_moves):
        status, legal = engine.status_and_moves(state)
        know.observe(view(state, status, legal))
        if status != engine.IN_PROGRESS:
            break
        state = engine.play(state, decide(mind).move, status)
    return engine.foundation_cards(state)


def bot_pars(variant: str, deal: str, games: int = PAR_GAMES,
             levels: tuple[int, ...] = LEVELS) -> tuple[int, ...]:
    """The median foundation count of each level's bots on the deal, level 1 first."""
    return tuple(int(statistics.median(bot_result(variant, deal, level, seed=level * 1000 + g)
                                       for g in range(games)))
                 for level in levels)


__all__ = ["MAX_MOVES", "PAR_GAMES", "bot_pars", "bot_result"]
