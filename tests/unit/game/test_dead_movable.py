"""The movable-foundation dead search (server/game/dead/movable.py) against the
engine: from random positions with the stock spent, its successor keys are the
keys of the engine's ``legal_moves`` + ``apply`` over every split of the
position's node (a suit's two foundations holding each rank once are one node),
and it sees a card from outside able to go home at the start's count exactly
where the engine offers such a move in one of the node's positions."""

from __future__ import annotations

import random

import pytest

from server.game import dead, engine
from server.game.dead import movable as deadmovable
from server.game.dead import window as deadwindow
from server.game.dead.movable import MovableSearch
from server.game.state import WASTE, State
from server.game.variants import RULES, Rules
from tests.support.game import build, fresh_engine_caches, plain_dead

MOVABLE = ("simplicity-pysol", "les-quatre-coins-pysol")
LQC = "les-quatre-coins-pysol"


def test_both_movable_variants_use_the_bytes_search_and_no_other_does() -> None:
    for variant, rules in RULES.items():
        shape = rules.movable_moves(1)
        if variant in MOVABLE:
            assert shape is not None and MovableSearch.fits(rules, shape)
        else:
            assert shape is None


def endgame_positions(variant: str, seed: int, count: int) -> list[State]:
    """Positions met in random play once the stock can bring nothing new (the
    deal and the stock are hurried along, so every game reaches its endgame)."""
    rng = random.Random(f"{variant}-{seed}")
    rules = RULES[variant]
    out: list[State] = []
    while len(out) < count:
        s = engine.new_game(variant, str(rng.randrange(1, 10**12)))
        for _ in range(900):
            if len(out) == count:
                break
            moves = rules.legal_moves(s)
            if not moves:
                break
            stock = [m for m in moves if m.kind != "move"]
            if not rules.can_draw_or_redeal(s):
                out.append(s)
            elif stock and rng.random() < 0.6:
                s = rules.apply(s, rng.choice(stock))
                continue
            s = rules.apply(s, rng.choice(moves))
    return out


def synthetic_positions(variant: str, seed: int, count: int) -> list[State]:
    """Endgames dealt at random (any foundation heights, the other cards shuffled
    onto the piles): in Les Quatre Coins up to two suits hold each rank once on
    their two foundations, which random play rarely reaches."""
    rng = random.Random(f"{variant}-synthetic-{seed}")
    rules = RULES[variant]
    out: list[State] = []
    for _ in range(count):
        base = rng.randrange(1, 14) if variant != LQC else 0
        shape = rules.movable_moves(base)
        assert shape is not None
        seqs = shape.sequences
        piles: list[tuple[int, ...]] = [()] * len(rules.names)
        rest = [c for c in range(52)] * rules.spec.decks
        heights = [rng.randrange(0, 14) for _ in seqs]
        if variant == LQC:  # up to two full suits: a node of 14 x 14 positions at most
            for suit in rng.sample(range(4), rng.randrange(0, 3)):
                heights[4 + suit] = 13 - heights[suit]
        for j, seq in enumerate(seqs):
            piles[rules.f0 + j] = tuple(seq[:heights[j]])
            for c in seq[:heights[j]]:
                rest.remove(c)
        rng.shuffle(rest)
        places = list(rules.tableau_range) + ([WASTE] if variant != LQC else [])
        for c in rest:
            i = rng.choice(places)
            piles[i] = piles[i] + (c,)
        for i in rng.sample(list(rules.tableau_range), rng.randrange(0, 4)):
            piles[i] = ()  # a few spaces (their cards leave the game: the test needs no full deck)
        out.append(State(variant, tuple(piles), base, redeals=rules.spec.passes - 1))
    return out


def node(rules: Rules, s: State) -> list[State]:
    """The positions reached from ``s`` by moves between foundations alone."""
    out, todo, seen = [s], [s], {s.piles}
    while todo:
        t = todo.pop()
        for m in rules.legal_moves(t):
            if m.src[0] == "f" and m.dst[0] == "f":
                nxt = rules.apply(t, m)
                if nxt.piles not in seen:
                    seen.add(nxt.piles)
                    out.append(nxt)
                    todo.append(nxt)
    return out


def key_of(rules: Rules, search: MovableSearch, s: State) -> bytes:
    return deadmovable.key(search.start(rules, s))


# Les Quatre Coins' case takes about 26 s on the pure core: the compiled pass runs it
@pytest.mark.parametrize("variant", ["simplicity-pysol",
                                     pytest.param(LQC, marks=pytest.mark.compiled_pass)])
def test_successors_are_the_engines(variant: str) -> None:
    rules = RULES[variant]
    positions = endgame_positions(variant, 16, 200) + synthetic_positions(variant, 16, 200)
    merged = 0
    for s in positions:
        shape = rules.movable_moves(s.base)
        assert shape is not None
        members = node(rules, s)
        merged += len(members) > 1
        # floor out of reach: every successor is listed, none ends the list early
        everything = MovableSearch(rules, shape, s.base, 10**6)
        own = key_of(rules, everything, s)
        assert all(key_of(rules, everything, t) == own for t in members)
        found, nexts = everything.successors(everything.start(rules, s))
        assert not found
        ours = {deadmovable.key(p) for p in nexts} - {own}
        theirs = {key_of(rules, everything, rules.apply(t, m)) for t in members
                  for m in rules.legal_moves(t) if not (m.src[0] == "f" and m.dst[0] == "f")} - {own}
        assert ours == theirs
        at_start = MovableSearch(rules, shape, s.base, rules.foundation_cards(s))
        found, _ = at_start.successors(at_start.start(rules, s))
        assert found == any(dead.raises_count(m) for t in members for m in rules.legal_moves(t))
    if variant == LQC:
        assert merged > 0  # the test met nodes of more than one position


def test_a_full_suit_is_one_node_whichever_way_it_is_split() -> None:
    rules = RULES[LQC]
    split = [build(LQC, {"f1": "AC 2C 3C", "f5": "KC QC JC TC 9C 8C 7C 6C 5C 4C", "t1": "5H"},
                   redeals=2),
             build(LQC, {"f1": "AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC", "t1": "5H"}, redeals=2)]
    shape = rules.movable_moves(0)
    assert shape is not None
    search = MovableSearch(rules, shape, 0, 13)
    assert key_of(rules, search, split[0]) == key_of(rules, search, split[1])
    # any club of the second deck goes home from there: the split that wants it is one move away
    for card in ("7C", "KC", "AC"):
        s = build(LQC, {"f1": "AC 2C 3C", "f5": "KC QC JC TC 9C 8C 7C 6C 5C 4C", "t1": "5H " + card},
                  redeals=2)
        with fresh_engine_caches():
            assert engine.status(s) == engine.IN_PROGRESS and plain_dead(s) is False


def whole_card_verdict(rules: Rules, s: State, limit: int) -> bool | None:
    """Dead or alive by the whole-card search (every card itself, breadth
    first, no memory), or None past ``limit`` positions: the search the window
    rounds replace, its successors held to the engine above."""
    shape = rules.movable_moves(s.base)
    assert shape is not None
    search = MovableSearch(rules, shape, s.base, rules.foundation_cards(s))
    first = search.start(rules, s)
    seen, todo = {deadmovable.key(first)}, [first]
    while todo:
        found, nexts = search.successors(todo.pop())
        if found:
            return False
        for nxt in nexts:
            k = deadmovable.key(nxt)
            if k not in seen:
                if len(seen) >= limit:
                    return None
                seen.add(k)
                todo.append(nxt)
    return True


def first_round(rules: Rules, s: State) -> tuple[bool, int, bool]:
    """(dead, positions, a wanted card of a class was noted) of the window's first round."""
    shape = rules.movable_moves(s.base)
    assert shape is not None
    known = deadmovable.window(shape, [len(s.piles[i]) for i in rules.foundation_range])
    search = MovableSearch(rules, shape, s.base, rules.foundation_cards(s), known)
    steps = deadwindow.round_search(search, rules, s, set())
    while True:
        try:
            next(steps)
        except StopIteration as done:
            dead_, seen = done.value
            return dead_, len(seen), bool(search.unsure)


@pytest.mark.parametrize("variant", MOVABLE)
def test_window_rounds_give_the_whole_card_verdict(variant: str) -> None:
    """The rounds over a window of known cards (deadwindow.py) against the
    whole-card search, wherever that finishes in 5,000 positions: the same
    verdict, dead and alive (the test meets both)."""
    rules = RULES[variant]
    sparse = 100 if variant == "simplicity-pysol" else 400  # Les Quatre Coins' are quick
    positions = endgame_positions(variant, 17, 60) + sparse_positions(variant, 17, sparse)
    compared = dead_ones = 0
    for s in positions:
        whole = whole_card_verdict(rules, s, 5_000)
        if whole is None:
            continue
        compared += 1
        assert dead.region(rules, s)[0] == whole
        dead_ones += whole
    # simplicity-pysol fills spaces and wraps round the corner: few sparse positions are dead
    assert compared >= 80 and dead_ones >= (1 if variant == "simplicity-pysol" else 3)


@pytest.mark.parametrize(("t1", "dead_"), [("3S 2S 3D", False), ("3H 2S 3D", True)])
def test_a_card_past_the_window_is_noted_and_a_second_round_decides(t1: str, dead_: bool) -> None:
    """Take 2C down onto 3H, 3D onto it, and 2S goes home: the spade foundation
    then wants 3S, past the first round's window (the cards on the foundations
    and the next of each), so the first round keys the threes by rank and only
    notes that one shows. On top of t1 it is 3S (alive: it goes home at the
    start's count) or 3H (dead); the second round, with 3S known, tells which."""
    rules = RULES[LQC]
    s = build(LQC, {"f1": "AC 2C", "f2": "AS", "t1": t1, "t2": "9D 3H"}, redeals=2)
    first_dead, _, noted = first_round(rules, s)
    assert first_dead and noted
    assert dead.region(rules, s)[0] is dead_
    assert whole_card_verdict(rules, s, 10**6) is dead_ and plain_dead(s) is dead_
    with fresh_engine_caches():
        assert engine.status(s) == (engine.DEAD if dead_ else engine.IN_PROGRESS)


def test_cards_past_the_window_are_keyed_by_rank() -> None:
    """Les Quatre Coins builds up or down in any suit: the cards the first
    round does not know are keyed by rank alone, so two positions that differ
    only by the suits of such cards are one position of the search."""
    rules = RULES[LQC]
    shape = rules.movable_moves(0)
    assert shape is not None
    a = build(LQC, {"f1": "AC", "t1": "7H 8S", "t2": "9D"}, redeals=2)
    b = build(LQC, {"f1": "AC", "t1": "7D 8C", "t2": "9S"}, redeals=2)
    known = deadmovable.window(shape, [len(a.piles[i]) for i in rules.foundation_range])
    search = MovableSearch(rules, shape, 0, 1, known)
    assert key_of(rules, search, a) == key_of(rules, search, b)
    whole = MovableSearch(rules, shape, 0, 1)
    assert key_of(rules, whole, a) != key_of(rules, whole, b)


def sparse_positions(variant: str, seed: int, count: int) -> list[State]:
    """:func:`synthetic_positions` with most tableau cards taken out of the game
    (each pile keeps a random few, in order): dead positions are common there,
    and their regions small enough for the whole-card search."""
    rng = random.Random(f"{variant}-sparse-{seed}")
    rules = RULES[variant]
    out: list[State] = []
    for s in synthetic_positions(variant, seed, count):
        piles = list(s.piles)
        keep = rng.randrange(1, 4)
        for i in [WASTE, *rules.tableau_range]:
            piles[i] = tuple(c for c in piles[i] if rng.random() < keep / 10)
        out.append(s._replace(piles=tuple(piles)))
    return out
