"""The games behind the fair-play experiment (bench/fairplay.py): who plays, how.

A game here is a seat's game without the network, as in bench/bots.py: the
engine makes the position, the seat is sent the engine's view, and the move
picked is played through the engine's checked path. Three kinds of player
make the moves:

* a **policy** of level 1 to 5: the server's own bots (server/rooms/bots/),
  deciding from the views alone;
* the **solver-assisted** player: it asks the solver (which sees the whole
  deal, the stock's order included) for a winning line from its true position
  and plays it; now and then (:data:`NOISE`) it plays the strong bot's move instead,
  as a cheat who wants to look human would, and asks again from there. Where
  the solver finds no line within its budget it plays as the strong bot and
  asks again a few moves later;

and the *pace* of a game (its think times) is drawn afterwards, per career,
by bench/fairplay.py: the bots' own pace (server/rooms/bots/pace.py), or a
person-like pace (:func:`person_pace`).

Each game keeps its moves, what each position offered and the agreement
figures of :func:`server.race.fairplay_signals.agreement`: the costly part,
done once per game; a career then draws think times for it.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from typing import Any

from server.game import engine
from server.game.solver import WON, solve_state
from server.game.views import view
from server.race.fairplay_signals import agreement, hidden, walk
from server.rooms.bots.knowledge import Knowledge
from server.rooms.bots.policy import LEVEL, Mind, decide

MAX_MOVES = 600  # a 15-minute race holds far fewer moves at any person's pace
ASSIST_BUDGET = 20_000  # the cheat's solver nodes per question (as the server's solo hint)
ASSIST_LEVEL = 4  # the bot whose move the cheat plays when it strays or has no line
ASSIST_RETRY = 8  # moves without a line before the cheat asks the solver again


NOISE = {"assisted": 0.1, "assisted-30": 0.3}  # the share of moves the cheat plays on his own


def play(variant: str, deal: int, who: str, seed: int) -> dict[str, Any]:
    """One game: ``who`` is ``"L1"``..``"L5"`` (a bot's policy) or a key of :data:`NOISE`
    (the solver-assisted player)."""
    t0 = time.process_time()
    rng = random.Random(seed)
    state = engine.new_game(variant, deal)
    start = state
    know = Knowledge(variant)
    assisted = who in NOISE
    noise = NOISE.get(who, 0.0)
    level = ASSIST_LEVEL if assisted else int(who[1:])
    mind = Mind(LEVEL[level], know, rng)
    texts: list[str] = []
    dec_options: list[int] = []
    planned: list[bool] = []
    line: list[str] = []
    wait = 0  # moves until the cheat asks the solver again
    while len(texts) < MAX_MOVES:
        status, legal = engine.status_and_moves(state)
        know.observe(view(state, status, legal))
        if status != engine.IN_PROGRESS:
            break
        decision = decide(mind)  # (the cheat's mind follows the game too, to stray like it)
        move = decision.move
        if assisted and hidden(state):
            if not line and wait <= 0:
                found = solve_state(state, ASSIST_BUDGET)
                line = list(found.moves) if found.result == WON else []
                wait = 0 if line else ASSIST_RETRY
            if line and (len(legal) < 2 or rng.random() >= noise):
                move = line.pop(0)
            elif line:
                line = []  # strayed: ask again from the next position
            wait -= 1
        if move == "resign":
            break
        texts.append(move)
        dec_options.append(decision.options)
        planned.append(decision.planned and move == decision.move)
        state = engine.play(state, move, status)
    t1 = time.process_time()
    options, easy, won = walk(start, texts)
    choices, agreed, searches = agreement(start, texts)
    analysis = time.process_time() - t1  # what the server's worker spends on this game
    return {"who": who, "variant": variant, "deal": deal, "texts": texts, "options": options,
            "easy": easy, "dec_options": dec_options, "planned": planned, "won": won,
            "agreement": [choices, agreed, searches], "cpu": round(time.process_time() - t0, 3),
            "analysis_cpu": round(analysis, 3)}


@dataclass(frozen=True)
class PersonPace:
    """A person's way of taking time, fixed for a career."""

    median_s: float  # a typical move's think time
    sigma: float  # spread of the lognormal
    per_option: float  # each extra legal move adds this share
    distracted: float  # chance of a long pause (a look away, a sip of tea)

    @staticmethod
    def draw(strength: int, rng: random.Random) -> PersonPace:
        # stronger players are a little quicker, every person differs
        base = {1: 3.2, 2: 2.8, 3: 2.4, 4: 2.0, 5: 1.7}[strength]
        return PersonPace(base * rng.lognormvariate(0, 0.3), rng.uniform(0.4, 0.85),
                          rng.uniform(0.03, 0.12), rng.uniform(0.01, 0.04))


def person_pace(p: PersonPace, options: int, easy: bool, planned: bool, rng: random.Random) -> float:
    """Seconds a person takes over one move."""
    seconds = p.median_s * rng.lognormvariate(0, p.sigma)
    seconds *= 1 + p.per_option * min(max(options - 1, 0), 8)
    if easy or planned:
        seconds *= rng.uniform(0.3, 0.6)
    if rng.random() < p.distracted:
        seconds += rng.uniform(4, 30)
    # a move is two keys or a drag: no hand makes it in much less than a quarter second
    return max(seconds, 0.25 + 0.1 * rng.random())
