"""Post-game analysis of recorded games whose losing move is known: a won deal
whose record leaves the solver's winning line with a move that an independent
plain search (server/game/solver/reference.py) proves lost; a deal that no line
wins; a won game; a game resigned while still winnable; and an honest
"undecided" when the budget is too small."""

from __future__ import annotations

import functools

from server.game import engine
from server.game.records import step
from server.game.solver import solve
from server.game.solver.reference import exhaustive
from server.game.state import State
from server.rooms.analysis import (
    A_DEAL_LOST,
    A_LOST_AT,
    A_UNDECIDED,
    A_WINNABLE,
    A_WON,
    GAME_BUDGET,
    PROBE_BUDGET,
    _next_probe,
    analyse_room,
    budgets,
    parted,
    standing_line,
)

BETSY = "betsy-ross"


@functools.cache
def won_line(variant: str, deal: int) -> tuple[str, ...]:
    out = solve(variant, deal, 50_000)
    assert out.result == "won"
    return tuple(out.moves)


def positions(variant: str, deal: int, moves: tuple[str, ...]) -> list[State]:
    state = engine.new_game(variant, deal)
    out = [state]
    for text in moves:
        state = engine.play(state, text, engine.IN_PROGRESS)
        out.append(state)
    return out


@functools.cache
def losing_case(variant: str, deal: int) -> tuple[int, str, tuple[str, ...]]:
    """(k, m, record): the record follows the winning line for k moves, then
    plays m, which the plain search proves lost, then goes on while it can."""
    line = won_line(variant, deal)
    states = positions(variant, deal, line)
    for k in range(len(line) - 1, 0, -1):
        for m in engine.legal_moves(states[k]):
            text = str(m)
            if text in (line[k], "resign"):
                continue
            after = engine.apply(states[k], m)
            if exhaustive(after, 20_000)[0] == "lost":
                record = [*line[:k], text]
                state = after
                for _ in range(5):  # a few more moves: the loss lies before them
                    st, moves = engine.status_and_moves(state)
                    nxt = [x for x in moves if str(x) != "resign"]
                    if st != engine.IN_PROGRESS or not nxt:
                        break
                    record.append(str(nxt[0]))
                    state = engine.apply(state, nxt[0])
                return k, text, tuple(record)
    raise AssertionError("no losing move found")


def final_status(variant: str, deal: int, moves: tuple[str, ...]) -> str:
    last = standing_line(variant, deal, moves).states[-1]
    return engine.status(last)


def test_the_move_that_left_a_won_line_for_a_proved_loss_is_found() -> None:
    k, losing, record = losing_case(BETSY, 4)
    answer = analyse_room(BETSY, "4", [(1, list(record), final_status(BETSY, 4, record))])
    game = answer["players"][0]
    assert game["result"] == A_LOST_AT
    assert game["index"] == k and game["losing_entry"] == k + 1 and game["move"] == losing
    assert game["on_line"] == k
    # the line given wins from the last winnable position, checked by the engine
    end = positions(BETSY, 4, (*record[:k], *game["line"]))[-1]
    assert engine.status(end) == engine.WON
    assert answer["deal_result"] == "won"


def test_undos_count_as_entries_and_their_moves_as_taken_back() -> None:
    k, losing, record = losing_case(BETSY, 4)
    # a detour taken back early: every later entry moves two places on
    noisy = (record[0], "draw", "undo", *record[1:])
    answer = analyse_room(BETSY, "4", [(1, list(noisy), final_status(BETSY, 4, noisy))])
    game = answer["players"][0]
    assert game["result"] == A_LOST_AT
    assert game["index"] == k + 2 and game["move"] == losing and game["on_line"] == k
    # the position after index entries is the last winnable one, as a replay shows it
    history = [engine.new_game(BETSY, 4)]
    for text in noisy[:game["index"]]:
        step(history, text, engine.IN_PROGRESS)
    assert history[-1] == positions(BETSY, 4, record[:k])[-1]


def test_a_deal_no_line_wins_was_lost_by_no_move() -> None:
    assert solve("corners", 3, 20_000).result == "lost"
    start = engine.new_game("corners", 3)
    first = str(next(m for m in engine.legal_moves(start) if str(m) != "resign"))
    answer = analyse_room("corners", "3", [(1, [first, "resign"], engine.RESIGNED)])
    assert answer["players"][0]["result"] == A_DEAL_LOST
    assert answer["deal_result"] == "lost"


def test_a_won_game_is_won_and_a_resigned_winnable_one_says_so() -> None:
    line = won_line(BETSY, 4)
    answer = analyse_room(BETSY, "4", [(1, list(line), engine.WON),
                                       (2, [*line[:20], "resign"], engine.RESIGNED)])
    won, resigned = answer["players"]
    assert won["result"] == A_WON and won["on_line"] == len(line)
    assert resigned["result"] == A_WINNABLE and resigned["index"] == 20
    end = positions(BETSY, 4, (*line[:20], *resigned["line"]))[-1]
    assert engine.status(end) == engine.WON
    assert answer["longest"] == [1]
    assert answer["parted"] == [{"a": 1, "b": 2, "after": 20}]


def test_a_race_says_where_paths_parted_and_who_stayed_on_a_winning_line_longest() -> None:
    k, _, record = losing_case(BETSY, 4)
    early = (*won_line(BETSY, 4)[:10], "resign")
    answer = analyse_room(BETSY, "4", [(1, list(early), engine.RESIGNED),
                                       (2, list(record), final_status(BETSY, 4, record))])
    assert [g["on_line"] for g in answer["players"]] == [10, k]
    assert answer["longest"] == [2]
    assert answer["parted"] == [{"a": 1, "b": 2, "after": 10}]


def test_too_small_a_budget_is_undecided_and_says_how_far_it_got() -> None:
    k, _, record = losing_case(BETSY, 4)
    answer = analyse_room(BETSY, "4", [(1, list(record), final_status(BETSY, 4, record))], budget=1)
    game = answer["players"][0]
    assert game["result"] == A_UNDECIDED and game["on_line"] is None
    assert game["nodes"] == answer["nodes"] <= 5  # (a search may pass its budget by a node)
    assert game["lost_from"] == len(record)  # the server's own verdict on the end stands
    assert "move" not in game and "line" not in game


def test_paths_part_at_the_first_different_entry() -> None:
    assert parted({1: ["a", "b", "c"], 2: ["a", "b", "d"], 3: []}) == [
        {"a": 1, "b": 2, "after": 2}, {"a": 1, "b": 3, "after": 0}, {"a": 2, "b": 3, "after": 0}]


def test_no_probe_starts_past_the_games_time() -> None:
    _, _, record = losing_case(BETSY, 4)
    answer = analyse_room(BETSY, "4", [(1, list(record), final_status(BETSY, 4, record))], seconds=-1.0)
    game = answer["players"][0]
    assert game["result"] == A_UNDECIDED and game["nodes"] == 0
    assert game["lost_from"] == len(record)  # the server's own verdict needs no search


def test_the_next_probe_halves_the_bracket_and_steps_round_undecided_positions() -> None:
    assert _next_probe(-1, 11, set()) == 5
    assert _next_probe(3, 4, set()) is None  # neighbours: settled
    assert _next_probe(0, 10, {5}) == 7  # past an undecided middle, towards the lost end
    assert _next_probe(0, 10, {5, 7, 8, 9}) == 6
    assert _next_probe(0, 10, {5, 6, 7, 8, 9}) == 2  # then towards the deal
    assert _next_probe(0, 3, {1, 2}) is None  # every position between is undecided


def test_corner_stones_gets_a_tenth_of_the_nodes() -> None:
    assert budgets("corner-stones") == (GAME_BUDGET // 10, PROBE_BUDGET // 10)
    assert budgets("four-seasons") == (GAME_BUDGET, PROBE_BUDGET)


def test_a_position_left_undecided_is_not_searched_again_with_no_more_nodes() -> None:
    # a game resigned at the deal: its end is the deal, probed once, not twice
    answer = analyse_room("four-seasons", "24", [(1, ["resign"], engine.RESIGNED),
                                                 (2, ["resign"], engine.RESIGNED)], budget=3_000)
    first, second = answer["players"]
    assert first["result"] == second["result"] == A_UNDECIDED
    assert first["nodes"] == 3_000 and second["nodes"] == 0
