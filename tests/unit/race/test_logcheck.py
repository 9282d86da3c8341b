"""The results log checked from the log alone: an honest log holds; a changed
entry, a changed record, a forged rating or board score is found at its line."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from server.game.engine import IN_PROGRESS, legal_moves, new_game, play, status
from server.race.daily import board_score
from server.race.logcheck import Fault, LogCheck, play_seat, ranked_places
from server.race.ratings import NEW, Skill, rate
from server.race.resultlog import (
    GENESIS,
    Line,
    Link,
    canonical,
    chained,
    digest,
    race_record,
    rename_fields,
    result_fields,
    seat,
    void_fields,
)

VARIANT = "four-seasons"
SEASONS = ("alltime", "s2026-12-01")


def game(deal: str, moves: int, seed: int, resign: bool = True) -> list[tuple[int, str]]:
    """A legal game of at most ``moves`` moves (foundation moves first), then a resignation."""
    rng = random.Random(seed)
    state = new_game(VARIANT, deal)
    out: list[tuple[int, str]] = []
    for i in range(moves):
        if status(state) != IN_PROGRESS:
            return out
        legal = [str(m) for m in legal_moves(state)]
        up = [m for m in legal if "-f" in m]
        text = rng.choice(up or legal)
        state = play(state, text)
        out.append((100 * (i + 1), text))
    if resign:
        out.append((100 * (moves + 1), "resign"))
    return out


class Server:
    """Writes the log as the server does: each race rated with the same code."""

    def __init__(self) -> None:
        self.lines: list[Line] = []
        self.skills: dict[str, Skill] = {}

    @property
    def link(self) -> Link:
        return Link(self.lines[-1].seq, self.lines[-1].hash) if self.lines else Link()

    def race(self, code: str, deal: str, seats: list[tuple[str | None, int]]) -> Line:
        """A race of these (name, moves) seats: the longest game places first here
        by construction (more foundation cards), so the places are given."""
        played = [seat(n, name, False, game(deal, moves, n)) for n, (name, moves) in enumerate(seats, 1)]
        record = race_record(VARIANT, deal, 120_000, played)
        standing = ranked_places(VARIANT, 120_000, [play_seat(VARIANT, deal, s) for s in played])
        rated = [(played[r["player"] - 1]["name"], r["place"]) for r in standing
                 if played[r["player"] - 1]["name"]]
        before = [self.skills.get(n, NEW) for n, _ in rated]
        after = rate(before, [p for _, p in rated], code)
        ratings = {}
        for (name, _), old, new in zip(rated, before, after, strict=True):
            self.skills[name] = new
            ratings[name] = (old.to_store(), new.to_store())
        line = chained(self.link, "result", 1000 * len(self.lines),
                       result_fields(code, VARIANT, None, ratings, SEASONS, None), record)
        self.lines.append(line)
        return line

    def daily(self, code: str, deal: str, name: str, moves: int, date: str) -> Line:
        played = [seat(1, name, False, game(deal, moves, 7))]
        (top,) = ranked_places(VARIANT, 600_000, [play_seat(VARIANT, deal, played[0])])
        score = board_score(top["won"], top["time_ms"] or 600_000, top["moves"], top["foundation_cards"])
        line = chained(self.link, "result", 1000 * len(self.lines),
                       result_fields(code, VARIANT, date, {}, SEASONS, {"name": name, "score": score}),
                       race_record(VARIANT, deal, 600_000, played))
        self.lines.append(line)
        return line

    def add(self, kind: str, fields: dict[str, Any]) -> Line:
        line = chained(self.link, kind, 1000 * len(self.lines), fields, None)
        self.lines.append(line)
        return line


def texts(server: Server) -> list[str]:
    return [line.text() for line in server.lines]


def checked(lines: list[str]) -> LogCheck:
    log = LogCheck()
    for text in lines:
        log.feed(text)
    return log


def fault_of(lines: list[str]) -> Fault:
    with pytest.raises(Fault) as caught:
        checked(lines)
    return caught.value


@pytest.fixture
def honest() -> Server:
    server = Server()
    server.race("AAAA", "11", [("ann", 30), ("bob", 5), (None, 12)])
    server.race("BBBB", "12", [("bob", 25), ("cid", 3)])
    server.daily("DDDD", "13", "ann", 20, "2026-12-05")
    server.race("CCCC", "14", [("cid", 40), ("ann", 2)])
    return server


def test_an_honest_log_holds_and_gives_the_servers_ratings(honest: Server) -> None:
    log = checked(texts(honest))
    assert log.summary()["entries"] == 4 and log.summary()["result"] == 4
    assert log.link.hash == honest.lines[-1].hash
    for name, skill in honest.skills.items():
        assert log.ratings[name][VARIANT] == skill  # equal to the last bit
    board = log.boards()["rating"][f"{VARIANT} alltime"]
    assert [n for n, _ in board] == sorted(honest.skills, key=lambda n: -honest.skills[n].ordinal)
    assert list(log.boards()["daily"]) == [f"2026-12-05 {VARIANT}"]


def test_a_changed_entry_is_found(honest: Server) -> None:
    lines = texts(honest)
    data = json.loads(lines[1])
    data["entry"]["at"] += 1  # anything of the entry: its hash changes, the next entry no longer holds it
    lines[1] = canonical(data).decode()
    fault = fault_of(lines)
    assert fault.seq == 3 and "hash of the entry before it" in fault.reason


def test_a_changed_record_is_found(honest: Server) -> None:
    lines = texts(honest)
    data = json.loads(lines[3])
    data["record"]["seats"][0]["ms"][0] += 1  # a move's time, nothing else
    lines[3] = canonical(data).decode()
    fault = fault_of(lines)
    assert fault.seq == 4 and "record was changed" in fault.reason


def rechained(lines: list[str], at: int, change: Any) -> list[str]:
    """Change line ``at`` (0-based) and rewrite every hash after it, as a forger
    with the whole log in hand would: the chain holds, the replay must not."""
    out = lines[:at]
    link = Link(at, digest(json.loads(lines[at - 1])["entry"])) if at else Link()
    for i, text in enumerate(lines[at:], start=at):
        data = json.loads(text)
        if i == at:
            change(data)
        entry = {**data["entry"], "prev": link.hash,
                 "record": None if data["record"] is None else digest(data["record"])}
        out.append(canonical({"entry": entry, "record": data["record"]}).decode())
        link = Link(i + 1, digest(entry))
    return out


def test_a_forged_rating_is_found_even_with_the_chain_rewritten(honest: Server) -> None:
    def better(data: dict[str, Any]) -> None:
        before, after = data["entry"]["ratings"]["bob"]
        s = Skill.from_store(after)
        data["entry"]["ratings"]["bob"] = [before, Skill(s.mu + 1, s.sigma, s.races, s.last).to_store()]

    fault = fault_of(rechained(texts(honest), 1, better))
    assert fault.seq == 2 and "bob's rating after the race" in fault.reason


def test_a_forged_move_is_found_even_with_the_chain_rewritten(honest: Server) -> None:
    def cheat(data: dict[str, Any]) -> None:
        # ann's game made to reach one more foundation card than she did: the places change
        data["record"]["seats"][1]["moves"][:0] = ["t1-f1"]
        data["record"]["seats"][1]["ms"][:0] = [1]

    fault = fault_of(rechained(texts(honest), 3, cheat))
    assert fault.seq == 4


def test_a_forged_daily_score_is_found(honest: Server) -> None:
    def faster(data: dict[str, Any]) -> None:
        data["entry"]["board"]["score"] -= 1 << 13

    fault = fault_of(rechained(texts(honest), 2, faster))
    assert fault.seq == 3 and "daily board" in fault.reason


def test_a_removed_entry_is_found(honest: Server) -> None:
    lines = texts(honest)
    fault = fault_of(lines[:1] + lines[2:])
    assert fault.seq == 2 and "number is 3" in fault.reason


def test_a_void_and_a_rename_follow_the_names(honest: Server) -> None:
    ann = honest.skills["ann"]
    refunded = Skill(ann.mu - 1, ann.sigma, ann.races, "VOID1")
    honest.add("void", void_fields("CCCC", ["ann"], "assisted",
                                   {"ann": (ann.to_store(), refunded.to_store())}, ("alltime",)))
    honest.add("void", void_fields("DDDD", ["Ann"], "assisted"))
    honest.add("rename", rename_fields("cid", "dan"))
    log = checked(texts(honest))
    assert log.summary()["void"] == 2 and log.summary()["rename"] == 1
    assert log.ratings["ann"][VARIANT] == refunded
    assert "ann" not in log.daily_boards[f"2026-12-05 {VARIANT}"]
    assert "dan" in log.ratings and "cid" not in log.ratings
    assert [n for n, _ in log.boards()["rating"][f"{VARIANT} alltime"]].count("dan") == 1
    # the renamed name races on: its rating is found under the new name
    honest.skills["dan"] = honest.skills.pop("cid")
    honest.race("EEEE", "15", [("dan", 10), ("bob", 1)])
    assert checked(texts(honest)).ratings["dan"][VARIANT] == honest.skills["dan"]


def test_a_void_that_does_not_hold_is_found(honest: Server) -> None:
    honest.add("void", void_fields("ZZZZ", ["ann"], "no such race"))
    assert fault_of(texts(honest)).seq == 5
    honest.lines.pop()
    honest.add("void", void_fields("BBBB", ["ann"], "she was not there"))
    assert "did not race" in fault_of(texts(honest)).reason
    honest.lines.pop()
    wrong = NEW.to_store()
    honest.add("void", void_fields("BBBB", ["bob"], "stale", {"bob": (wrong, wrong)}))
    assert "rating before the void" in fault_of(texts(honest)).reason


def test_a_void_of_a_race_rated_before_the_log_is_taken_as_given(honest: Server) -> None:
    """A race rated before the log began is not in it: its void names the variant, and
    its ratings stand as given where the log has not rated the name, and must follow
    the log where it has."""
    eve = Skill(31.0, 6.0, 4, "OLD1")
    ann = honest.skills["ann"]
    refunded = Skill(ann.mu + 1, ann.sigma, ann.races, "OLD1")
    honest.add("void", void_fields("OLD1", ["eve", "ann"], "assisted",
                                   {"eve": (NEW.to_store(), eve.to_store()),
                                    "ann": (ann.to_store(), refunded.to_store())},
                                   ("alltime",), VARIANT))
    log = checked(texts(honest))
    assert log.ratings["eve"][VARIANT] == eve and log.ratings["ann"][VARIANT] == refunded
    assert log.summary()["voided_before_the_log"] == ["OLD1"]
    assert "eve" in log.summary()["carried"] and "ann" not in log.summary()["carried"]
    assert "eve" in dict(log.boards()["rating"][f"{VARIANT} alltime"])
    # the same names again, or a before the log does not give, do not hold
    honest.add("void", void_fields("OLD1", ["eve"], "again", {}, (), VARIANT))
    assert "names nobody new" in fault_of(texts(honest)).reason
    honest.lines.pop()
    honest.lines.pop()
    wrong = Skill(ann.mu - 3, ann.sigma, ann.races, "OLD1").to_store()
    honest.add("void", void_fields("OLD2", ["ann"], "stale", {"ann": (wrong, wrong)}, (), VARIANT))
    assert "rating before the void" in fault_of(texts(honest)).reason


def test_a_void_naming_another_variant_than_the_logged_race_is_found(honest: Server) -> None:
    honest.add("void", void_fields("BBBB", ["bob"], "assisted", {}, (), "corners"))
    assert "the log says four-seasons" in fault_of(texts(honest)).reason
    honest.lines.pop()
    honest.add("void", void_fields("BBBB", ["bob"], "assisted", {}, (), VARIANT))
    assert checked(texts(honest)).summary()["voided_before_the_log"] == []


def test_a_rename_never_merges_two_names(honest: Server) -> None:
    honest.add("rename", rename_fields("ann", "BOB"))
    assert "rename never merges" in fault_of(texts(honest)).reason


def test_a_race_logged_twice_is_found(honest: Server) -> None:
    honest.skills.clear()
    honest.race("AAAA", "11", [("eve", 3), ("fay", 1)])
    assert "in the log already" in fault_of(texts(honest)).reason


def test_junk_lines_are_faults_never_crashes() -> None:
    first = chained(Link(), "rename", 0, rename_fields("a", "b"), None).text()
    for junk in ("", "{", "[]", '{"entry": 1, "record": null}', first.replace('"v":1', '"v":2'),
                 first.replace("rename", "banana"), first.replace('"seq":1', '"seq":"1"')):
        assert fault_of([junk]).seq == 1
    result = chained(Link(), "result", 0, {"race": "X", "variant": VARIANT, "daily": None},
                     {"variant": VARIANT, "deal": "1", "race_ms": 1, "seats": "no"})
    assert "seats" in fault_of([result.text()]).reason
    assert checked([first]).link.seq == 1 and json.loads(first)["entry"]["prev"] == GENESIS


def test_a_bot_accounts_rating_goes_on_the_bots_board_only() -> None:
    server = Server()
    line = server.race("BOT1", "21", [("ann", 12), ("robo", 3)])
    data = json.loads(line.text())
    data["entry"]["bots"] = ["robo"]
    entry = {**data["entry"], "record": digest(data["record"])}
    text = canonical({"entry": entry, "record": data["record"]}).decode()
    log = checked([text])
    boards = log.boards()["rating"]
    assert [n for n, _ in boards[f"bots {VARIANT} alltime"]] == ["robo"]
    assert [n for n, _ in boards[f"{VARIANT} alltime"]] == ["ann"]
