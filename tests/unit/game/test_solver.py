"""The solver: its models agree with the engine, its wins replay, its losses
are proofs (checked against a plain exhaustive search), and ``patience-server
solve`` speaks JSON and refuses bad input in one line."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from server.cli.main import main
from server.game.cards import parse_card, step
from server.game.engine import WON, legal_moves, new_game, play, status
from server.game.solver import LOST, UNKNOWN, solve, solve_state
from server.game.solver.betsy import BetsyModel, betsy_buried
from server.game.solver.corner_stones import CornerStonesModel, corner_stones_frozen
from server.game.solver.cross import CrossModel
from server.game.solver.cross_loss import (
    corners_endgame_dead,
    cross_frozen,
)
from server.game.solver.portfolio import make_model
from server.game.solver.reference import exhaustive
from server.game.state import State
from server.game.variants import RULES

SEED_VARIANTS = list(RULES)

# Deals the solver wins within a small budget (found by a scan of deal numbers).
QUICK_WINS = [
    ("four-seasons", 209795, 1_000),
    ("four-seasons-1883", 241448, 4_000),
    ("vanishing-cross", 209795, 1_000),
    ("four-seasons-redeal", 423602, 1_000),
    ("czarina", 241448, 1_000),
    ("simplicity", 399249, 1_000),
    ("corner-stones", 399249, 4_000),  # below the first stage's size: the DFS alone
    ("betsy-ross", 399249, 1_000),
    ("betsy-ross", 187488, 1_000),
    # the PySolFC games of issue 15, searched through the engine (solver/generic.py)
    ("simplicity-pysol", 1, 10_000),
    ("czarina-pysol", 2, 1_000),
    ("corners-pysol", 2, 1_000),
    ("les-quatre-coins-pysol", 2, 10_000),
]
# Whole deals proved lost within a small budget.
QUICK_LOSSES = [("corners", 209795, 1_000), ("corners", 628558, 1_000)]


# -- helpers ---------------------------------------------------------------------
def cards(text: str) -> tuple[int, ...]:
    return tuple(parse_card(t) for t in text.split())


def cross_position(variant: str, base: int, found: list[int], tableau: list[str],
                   waste: str = "", stock: str = "", redeals: int = 0) -> State:
    """A cross-family position; ``found`` gives each suit's foundation height
    (the cards are implied by the base rank); ``stock`` lists the next card first."""
    rules = RULES[variant]
    piles: list[tuple[int, ...]] = [()] * len(rules.names)
    for s, h in enumerate(found):
        piles[rules.f0 + s] = tuple(s * 13 + (base - 1 + k) % 13 for k in range(h))
    for k, t in enumerate(tableau):
        piles[rules.t0 + k] = cards(t)
    piles[1] = cards(waste)
    piles[0] = cards(stock)[::-1]
    return State(variant, tuple(piles), base=base, redeals=redeals)


def signature(state: State) -> tuple[Any, ...]:
    """What a model must agree on with the engine (Betsy Ross: ranks only)."""
    rules = RULES[state.variant]
    p = state.piles
    if rules.family in ("calculation", "fortunes-favor") or rules.spec.centre_cell:
        return ("state", state)  # the engine's own state: the generic model holds it
    if rules.family == "cross":
        vac = state.vacancy - rules.t0 if state.vacancy >= 0 else -1
        return (p[0], p[1], tuple(len(p[i]) for i in rules.foundation_range),
                tuple(p[i] for i in rules.tableau_range), vac, state.redeals)
    if rules.family == "betsy-ross":
        return (tuple(c % 13 + 1 for c in p[0]), tuple(c % 13 + 1 for c in p[1]),
                tuple(len(p[i]) for i in rules.foundation_range), state.redeals)
    return (p[0], tuple(p[i] for i in rules.tableau_range),
            tuple((p[i][0] // 13 if p[i] else -1, len(p[i])) for i in rules.foundation_range))


def model_signature(m: Any) -> tuple[Any, ...]:
    name = type(m).__name__
    if name == "EngineModel":  # the engine's own state: agreement by construction
        return signature(m.state)
    if name == "CrossModel":
        return (tuple(m.stock), tuple(m.waste), tuple(m.fcount), tuple(tuple(p) for p in m.piles),
                m.vacancy, m.redeals)
    if name == "BetsyModel":
        return (tuple(m.stock), tuple(m.waste), tuple(m.height), m.redeals)
    return (tuple(m.stock), tuple(tuple(p) for p in m.piles), tuple(zip(m.fsuit, m.fh, strict=True)))


# -- the models play the engine's game ------------------------------------------------
@pytest.mark.parametrize("variant", SEED_VARIANTS)
def test_model_moves_and_undo_match_the_engine(variant: str) -> None:
    """Along random games: the model offers exactly the engine's moves (less
    other empty piles as targets, and the deal macros), plays them to the
    engine's positions, and undoes them exactly."""
    rules = RULES[variant]
    rng = random.Random(variant)
    games, steps = (3, 260) if variant == "corner-stones" else (5, 90)
    for _ in range(games):
        state = new_game(variant, rng.randrange(1, 10**12))
        for _ in range(steps):
            engine_moves = legal_moves(state)
            if not engine_moves:
                break
            m = make_model(state, sound_extras=False)
            assert model_signature(m) == signature(state)
            mine = list(m.moves())
            as_engine = {m.as_move(x): x for x in mine}
            assert len(as_engine) == len(mine)
            assert set(as_engine) <= set(engine_moves)
            for left_out in set(engine_moves) - set(as_engine):
                if left_out.kind == "deal":
                    assert left_out.amount  # deal:round / deal:all are runs of single deals
                elif left_out.src.startswith("f"):  # a card back off a foundation never helps
                    assert variant == "fortunes-favor"
                else:  # another empty pile as the target: piles are interchangeable
                    assert left_out.dst.startswith("t") and not state.piles[rules.index[left_out.dst]]
            pick = rng.choice(mine)
            before = model_signature(m)
            token = m.do(pick)
            nxt = rules.apply(state, m.as_move(pick))
            assert model_signature(m) == signature(nxt)
            m.undo(pick, token)
            assert model_signature(m) == before
            state = nxt


def test_cross_key_ignores_which_pile_is_which() -> None:
    """Keys compare positions within one search (the stock and waste are
    keyed relative to the root): permuting the piles keeps the key, a move
    changes it, and undoing the move restores it."""
    state = cross_position("four-seasons", 5, [3, 0, 1, 0], ["9H 8S", "KD", "2C", "JS TD", "4C"],
                           waste="7C 3D", stock="QH 6S")
    m = make_model(state)
    key = m.key()
    assert isinstance(m, CrossModel)
    m.piles = m.piles[::-1]
    assert m.key() == key
    draw = next(x for x in m.moves() if m.as_move(x).kind == "draw")
    token = m.do(draw)
    assert m.key() != key
    m.undo(draw, token)
    assert m.key() == key


def test_betsy_key_ignores_suits() -> None:
    a = new_game("betsy-ross", 187488)
    swapped = list(a.piles)
    swapped[0] = tuple((c + 13) % 52 for c in a.piles[0])  # every stock card changes suit
    b = a._replace(piles=tuple(swapped))
    assert make_model(a).key() == make_model(b).key()


# -- wins replay ---------------------------------------------------------------------
@pytest.mark.parametrize(("variant", "deal", "budget"), QUICK_WINS)
def test_quick_wins_replay_through_the_engine(variant: str, deal: int, budget: int) -> None:
    res = solve(variant, deal, budget)
    assert res.result == WON
    assert res.nodes <= budget
    state = new_game(variant, deal)
    for move in res.moves:
        # checked against the rules move by move; a line that ends won passes only
        # alive positions, so none needs the dead-position search on the way
        state = play(state, move, "in_progress")
    assert status(state) == WON


@pytest.mark.parametrize(("variant", "deal", "budget"), QUICK_LOSSES)
def test_whole_deals_proved_lost(variant: str, deal: int, budget: int) -> None:
    res = solve(variant, deal, budget)
    assert res.result == LOST and res.moves == [] and res.nodes <= budget


def test_budget_spent_is_unknown_and_larger_budgets_extend_smaller_ones() -> None:
    small = solve("four-seasons", 1, 6_000)
    assert small.result == UNKNOWN and small.nodes == 6_000
    # the first stages have fixed sizes, so a bigger budget replays a smaller run
    # node for node before going on (past 10,000 nodes, where the cross family's
    # best-first stage joins in)
    for deal in (209795, 26):
        a = solve("four-seasons", deal, 10_500)
        b = solve("four-seasons", deal, 20_000)
        if a.result != UNKNOWN:
            assert (a.result, a.nodes, a.moves) == (b.result, b.nodes, b.moves)
        else:
            assert b.result == UNKNOWN or b.nodes > 10_500


def test_the_best_first_stage_finds_wins_the_depth_first_order_misses() -> None:
    deal = 26  # of the first 60 deals, one of four won at 20,000 nodes only with it
    found = solve("four-seasons", deal, 20_000)
    assert found.result == WON and [s.name for s in found.stages] == ["quick", "best-first"]
    assert solve("four-seasons", deal, 20_000, best_first_stage=False).result == UNKNOWN
    # at or under 10,000 nodes it does not run: those figures stay as they were
    assert [s.name for s in solve("four-seasons", deal, 10_000).stages] == ["quick", "complete"]


def test_a_cross_snapshot_restores_the_position() -> None:
    m = CrossModel(new_game("four-seasons", 26))
    snap, key = m.snapshot(), m.key()
    for _ in range(6):
        m.do(m.moves()[-1])
    assert m.key() != key
    m.restore(snap)
    assert m.key() == key and m.moves() == CrossModel(new_game("four-seasons", 26)).moves()


# -- losses are proofs --------------------------------------------------------------
def off_foundations(rng: random.Random, left: int) -> tuple[int, list[int], list[int]]:
    """A random base rank, foundation heights with ``left`` cards missing in
    all, and the missing cards (shuffled)."""
    base = rng.randint(1, 13)
    height = [13] * 4
    for _ in range(left):
        s = rng.choice([k for k in range(4) if height[k] > 0])
        height[s] -= 1
    rest = [s * 13 + (base - 1 + k) % 13 for s in range(4) for k in range(height[s], 13)]
    rng.shuffle(rest)
    return base, height, rest


def _random_small_position(variant: str, rng: random.Random, left: int) -> State:
    """A position with ``left`` cards off the foundations, dealt at random to the
    tableau, waste and a short stock (Corners: one card per cell)."""
    rules = RULES[variant]
    spec = rules.spec
    base, height, rest = off_foundations(rng, left)
    n_stock = rng.choice([0, 0, 0, 2, 3])
    stock, rest = rest[:n_stock], rest[n_stock:]
    keep = rng.randint(2, 6)
    waste, rest = rest[: max(0, len(rest) - keep)], rest[max(0, len(rest) - keep):]
    piles: list[list[int]] = [[] for _ in range(spec.tableau)]
    if spec.build == "cells":
        for k, c in enumerate(rest[: spec.tableau]):
            piles[k].append(c)
        waste += rest[spec.tableau:]
    else:
        for c in rest:
            piles[rng.randrange(spec.tableau)].append(c)
    if spec.space_fill == "auto":
        for p in piles:
            if not p and (stock or waste):
                p.append(stock.pop() if stock else waste.pop())
    texts = [" ".join(_text(c) for c in p) for p in piles]
    return cross_position(variant, base, height, texts, " ".join(_text(c) for c in waste),
                          " ".join(_text(c) for c in stock[::-1]),
                          redeals=rng.randint(0, spec.passes - 1))


def _text(c: int) -> str:
    from server.game.cards import card_text
    return card_text(c)


# (simplicity-pysol is searched through the engine itself, and its foundation cards
# coming back make even small positions too large for the plain search's cap)
@pytest.mark.parametrize("variant", [v for v in SEED_VARIANTS
                                     if RULES[v].family == "cross" and not RULES[v].spec.foundation_moves])
def test_answers_agree_with_exhaustive_search_on_small_positions(variant: str) -> None:
    """Safe moves, pruned moves, canonical keys and detectors change nothing:
    the solver and a search over every legal engine move give the same answer."""
    rng = random.Random(f"small-{variant}")
    answers = {WON: 0, LOST: 0}
    sizes = [6, 8] if RULES[variant].spec.tableau == 12 else [8, 10, 12]  # twelve piles: far more positions
    for _ in range(25):
        state = _random_small_position(variant, rng, rng.choice(sizes))
        ref, _ = exhaustive(state, cap=30_000)
        if ref == UNKNOWN:
            continue
        assert solve_state(state, 100_000).result == ref
        assert solve_state(state, 100_000, detectors=True).result == ref
        assert solve_state(state, 100_000, quick=False, safe_moves=False).result == ref
        answers[ref] += 1
    assert answers[WON] > 0


# Positions met during real searches where a detector fired, small enough for
# the exhaustive search to confirm that they are lost.
LOST_POSITIONS = [
    cross_position("four-seasons", 12, [6, 10, 11, 7],
                   ["TH 9S 8D 7D 6C", "JS TS", "TC 9C 8C 7C", "JC TD 9D", "JD"], waste="6D 5C JH"),
    cross_position("four-seasons", 3, [8, 9, 8, 5], ["KH", "2D AS KS QD", "AD KD QS JC TD", "2S", "KC QH"],
                   waste="AH 2C AC 8D JH JD QC 9D 2H"),
    cross_position("czarina", 13, [5, 10, 3, 12], ["QH JC TC 9C 8C", "5C 4H", "QC JS TS", "9H 8H", "6H"],
                   waste="TH JH QD QS 3H 7C 5H 7H 6C"),
    cross_position("vanishing-cross", 11, [10, 7, 6, 7], ["8S 7H 6S", "8H", "9S 8C 7S 6D", "TH", "7D 6H 5H"],
                   waste="TC 9C 5D 5S TD 4H 9D 9H 8D TS"),
]


@pytest.mark.parametrize("state", LOST_POSITIONS, ids=lambda s: s.variant)
def test_detected_dead_positions_are_lost(state: State) -> None:
    assert exhaustive(state, cap=200_000)[0] == LOST
    m = CrossModel(state)
    assert m.dead() and cross_frozen(m)
    assert solve_state(state, 10_000).result == LOST
    assert solve_state(state, 100_000, quick=False, safe_moves=False).result == LOST


def test_corners_endgame_is_decided_exactly() -> None:
    # hearts need 9H, at the bottom of the waste; diamonds need JD, under QD
    lost = cross_position("corners", 1, [13, 13, 8, 10], ["TH", "JH", "QH", "KH", "KD"],
                          waste="9H JD QD")
    won = cross_position("corners", 1, [13, 13, 8, 10], ["TH", "JH", "QH", "KH", "KD"],
                         waste="9H QD JD")
    assert corners_endgame_dead(CrossModel(lost)) and exhaustive(lost)[0] == LOST
    assert not corners_endgame_dead(CrossModel(won)) and exhaustive(won)[0] == WON
    assert solve_state(lost, 1_000).result == LOST
    assert solve_state(won, 1_000).result == WON


def _betsy(stock_next_first: str, waste: str, heights: list[int], redeals: int) -> State:
    base = new_game("betsy-ross", 1)
    rules = RULES["betsy-ross"]
    piles = list(base.piles)
    for i, h in enumerate(heights):
        t, seq = 2 * (i + 1), []
        for _ in range(12):
            seq.append(t - 1)
            t = step(t, i + 1)
        piles[rules.f0 + i] = tuple(seq[:h])
    piles[0] = cards(stock_next_first)[::-1]
    piles[1] = cards(waste)
    return State("betsy-ross", tuple(piles), redeals=redeals)


def test_betsy_burial_in_the_last_pass() -> None:
    # F1 shows J and needs Q then K; the only Q left lies under the K
    state = _betsy("", "QC KC", [10, 12, 12, 12], redeals=2)
    assert betsy_buried(BetsyModel(state))
    assert exhaustive(state)[0] == LOST
    assert solve_state(state, 1_000).result == LOST
    # with a redeal left the waste is turned over and the Q comes first
    second = _betsy("", "QC KC", [10, 12, 12, 12], redeals=1)
    assert not betsy_buried(BetsyModel(second))
    assert exhaustive(second)[0] == WON
    assert solve_state(second, 1_000).result == WON


def test_corner_stones_frozen_pair() -> None:
    # the last two clubs: QC must go home before KC, and KC lies on it alone
    rules = RULES["corner-stones"]
    piles: list[tuple[int, ...]] = [()] * len(rules.names)
    for k, s in enumerate([0, 1, 2, 3]):
        up = 11 if s == 0 else 13
        piles[rules.f0 + k] = tuple(s * 13 + r for r in range(up))
        piles[rules.f0 + 4 + k] = tuple(s * 13 + 12 - r for r in range(13))
    piles[rules.t0] = cards("QC KC")
    state = State("corner-stones", tuple(piles))
    frozen = corner_stones_frozen(CornerStonesModel(state))
    assert sorted(frozen) == sorted(cards("QC KC"))
    assert exhaustive(state)[0] == LOST
    assert solve_state(state, 1_000).result == LOST


# -- the command line ------------------------------------------------------------------
def test_cli_solve_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "four-seasons", "209795", "--budget", "2000", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert set(doc) == {"result", "moves", "nodes"}
    assert doc["result"] == "won" and doc["nodes"] <= 2000
    state = new_game("four-seasons", 209795)
    for move in doc["moves"]:
        state = play(state, move)
    assert status(state) == WON


def test_cli_solve_text_and_unknown(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "Four Seasons", "1", "--budget", "300"]) == 0
    out = capsys.readouterr().out
    assert "unknown (300 nodes" in out


@pytest.mark.parametrize("argv", [
    ["solve", "no-such-game", "1"],
    ["solve", "four-seasons", "12x"],
    ["solve", "four-seasons", "0"],
    ["solve", "four-seasons", "1", "--budget", "lots"],
    ["solve", "four-seasons", "1", "--budget", "0"],
    ["solve", "four-seasons"],
])
def test_cli_solve_bad_input(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        raise SystemExit(main(argv))
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("patience-server: ")


def test_the_replay_check_of_a_won_line_runs_no_dead_position_search() -> None:
    """A winning line passes only alive positions, so its replay check asks the
    dead-position rule nothing (a search would remember its verdict)."""
    from server.game import dead
    from server.game.engine import clear_caches, status_before_search

    variant, deal, budget = QUICK_WINS[0]
    clear_caches()
    result = solve(variant, deal, budget)
    assert result.result == WON
    searched = []
    state = new_game(variant, deal)
    for text in result.moves:
        state = play(state, text, "in_progress")
        if status_before_search(state)[2]:
            searched.append(state)
    assert searched  # the line passes positions that a status would search
    assert all(dead.known_verdict(s) is None for s in searched)
    clear_caches()
