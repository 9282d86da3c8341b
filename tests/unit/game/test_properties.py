"""Property tests over all nine variants: random legal play from random deal numbers.

Each example draws a deal number (LC, MT or ms<N>) and a seed for the move
choices, plays up to 300 random legal moves, and checks the trace:

* every card is somewhere exactly once (twice with two decks);
* a foundation only ever grows by appending: no card leaves it;
* every generated move survives ``parse(str(m))``;
* the checked path agrees with the fast one: ``play(state, str(m))`` gives the
  state ``apply`` gave, and replaying the texts from ``new_game`` reproduces
  every state and the final digest;
* a well-formed move outside ``legal_moves`` raises IllegalMove and leaves the
  state as it was;
* the generator and the checker agree: of every candidate move (all ordered pile
  pairs with 1..13 cards, or up to the longest tableau pile when that is longer,
  and all actions), exactly those ``why_illegal`` accepts are the ones
  ``legal_moves`` lists.
"""

from __future__ import annotations

import contextlib
import pickle
import random
from collections import Counter
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.game import dead, engine
from server.game.cards import Card
from server.game.deals import LC_LIMIT, MAX_DEAL, MS_MAX
from server.game.engine import GameOver, IllegalMove, play
from server.game.moves import Move, parse
from server.game.state import State
from server.game.variants import get_rules
from tests.support.game import (
    ALL_VARIANTS,
    Trace,
    candidate_moves,
    fresh_engine_caches,
    random_game,
    slow_to_judge,
)

DEALS = st.one_of(
    st.integers(1, LC_LIMIT - 1),
    st.integers(LC_LIMIT, MAX_DEAL),
    st.integers(1, MS_MAX).map(lambda n: f"ms{n}"),
)
SEEDS = st.integers(0, 2**32 - 1)
# well-formed texts naming piles no variant has, or piles of other families
FOREIGN = ["i1-f1", "w-i4", "t13-t1", "t1-t13", "f9-t1", "t1-f9", "s-f1", "w-s", "t12-t1:13", "f1-w"]


def full_deck(variant: str) -> Counter[Card]:
    decks = get_rules(variant).spec.decks
    return Counter({c: decks for c in range(52)})


def check_cards_conserved(trace: Trace) -> None:
    deck = full_deck(trace.variant)
    for k, s in enumerate(trace.states):
        got = Counter(c for pile in s.piles for c in pile)
        assert got == deck, f"after move {k}: cards lost or doubled: {(got - deck) + (deck - got)}"


FOUNDATIONS_GIVE_BACK = ("fortunes-favor",)


def check_foundations_only_grow(trace: Trace) -> None:
    """Foundations only grow, but for the top card a move takes back where the
    variant allows it (Fortune's Favor, simplicity-pysol, les-quatre-coins-pysol:
    PySolFC's foundation cards move on), and only by the move naming that foundation."""
    rules = get_rules(trace.variant)
    gives_back = trace.variant in FOUNDATIONS_GIVE_BACK or rules.spec.foundation_moves
    for k, (old, new) in enumerate(zip(trace.states, trace.states[1:], strict=False)):
        m = trace.moves[k]
        for i in rules.foundation_range:
            if m.kind == "move" and m.src == rules.names[i] and gives_back:
                assert new.piles[i] == old.piles[i][:-1], f"move {k} ({m}) took more than its card"
                continue
            assert new.piles[i][: len(old.piles[i])] == old.piles[i], \
                f"move {k} ({m}) took a card off a foundation"


def check_parse_round_trip(trace: Trace) -> None:
    for m in trace.moves:
        assert parse(str(m)) == m, m


def check_replay(trace: Trace) -> None:
    state = engine.new_game(trace.variant, trace.deal)
    assert state == trace.states[0]
    for k, m in enumerate(trace.moves):
        state = play(state, str(m))
        assert state == trace.states[k + 1], f"replaying move {k} ({m}) diverged"
    assert state.digest() == trace.final.digest()


def snapshot(state: State) -> State:
    """An independent copy of a state, built from new objects."""
    copied: State = pickle.loads(pickle.dumps(state))
    assert copied is not state and copied.piles is not state.piles
    return copied


def check_illegal_moves(trace: Trace, rng: random.Random, states: int = 40, per_state: int = 4) -> None:
    rules = get_rules(trace.variant)
    pool = [str(m) for m in candidate_moves(rules)] + FOREIGN
    for state in rng.sample(trace.states, min(states, len(trace.states))):
        if slow_to_judge(state):
            continue  # not this test's subject (see the helper)
        legal = {str(m) for m in engine.legal_moves(state)}
        over = engine.status(state) != engine.IN_PROGRESS
        for text in rng.sample(pool, per_state):
            if text in legal:
                continue
            before = snapshot(state)
            with pytest.raises(GameOver if over else IllegalMove) as info:
                play(state, text)
            assert str(info.value), f"{text}: no reason given"
            assert state == before and state.digest() == before.digest()


@pytest.mark.parametrize("variant", ALL_VARIANTS)
@settings(max_examples=25, deadline=None)
@given(deal=DEALS, seed=SEEDS)
def test_random_play_invariants(variant: str, deal: int | str, seed: int) -> None:
    with fresh_engine_caches():
        trace = random_game(variant, deal, seed)
        check_cards_conserved(trace)
        check_foundations_only_grow(trace)
        check_parse_round_trip(trace)
        check_replay(trace)
        check_illegal_moves(trace, random.Random(seed))


def agreement_sample(trace: Trace, rng: random.Random, limit: int = 20) -> list[State]:
    """The first and last states, every state where something special holds (an
    open vacancy, an empty pile, an empty stock), and random others, up to ``limit``."""
    rules = get_rules(trace.variant)
    special = [s for s in trace.states
               if s.vacancy >= 0 or not s.stock or any(not s.piles[i] for i in rules.tableau_range)]
    rest = [s for s in trace.states if s not in special]
    pick = rng.sample(special, min(len(special), limit // 2))
    pick += rng.sample(rest, min(len(rest), limit - len(pick)))
    return [trace.states[0], trace.final, *pick]


@contextlib.contextmanager
def roomy_dead_keys() -> Iterator[None]:
    """The random games behind this test ask the dead-position rule at every move,
    as the server does, and some of them (a uniformly random player stuck for long)
    search the same dead branches again and again: with the old store's room the
    test takes seconds whatever example Hypothesis draws. It checks the move
    generator, not the store's bound (bench.caches measures that)."""
    dead.set_cache_limits(dead_keys=200_000)
    try:
        yield
    finally:
        dead.set_cache_limits()


@pytest.mark.parametrize("variant", ALL_VARIANTS)
@settings(max_examples=25, deadline=None)
@given(deal=DEALS, seed=SEEDS)
def test_generator_and_checker_agree(variant: str, deal: int | str, seed: int) -> None:
    rules = get_rules(variant)
    candidates = candidate_moves(rules)
    with fresh_engine_caches(), roomy_dead_keys():
        trace = random_game(variant, deal, seed)
    for state in agreement_sample(trace, random.Random(seed)):
        longest = max(len(p) for p in state.piles[rules.t0:rules.i0]) if rules.spec.tableau else 0
        if longest > 13:
            candidates = candidate_moves(rules, longest)
        generated = rules.legal_moves(state)
        assert len(generated) == len(set(generated)), "legal_moves lists a move twice"
        accepted = {m for m in candidates if rules.why_illegal(state, m) is None}
        assert accepted == set(generated), (
            f"checker only: {sorted(map(str, accepted - set(generated)))}; "
            f"generator only: {sorted(map(str, set(generated) - accepted))}"
        )


def test_candidate_moves_are_well_formed() -> None:
    for variant in ALL_VARIANTS:
        for m in candidate_moves(get_rules(variant)):
            assert parse(str(m)) == m
    assert isinstance(parse("t1-t4:3"), Move)
