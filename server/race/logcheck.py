"""Checking the results log from the log alone, without I/O: the chain, every
record replayed, every ranking, rating and board recomputed.

:class:`LogCheck` takes the lines in order and keeps what they add up to: each
name's rating per variant, the rating boards per variant and season, the daily
boards and the daily wins. A line that does not hold raises :class:`Fault`
naming it. The rankings and ratings are computed by the very functions the
server uses (server/race/rules.py's ranking, server/race/ratings.py's rate,
server/race/daily.py's board score), so an honest log gives equal numbers to
the last bit (docs/reference/results-log.md).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any, Final

from ..game.deals import BadDealNumber, parse_deal_number
from ..game.engine import WON, foundation_cards, new_game
from ..game.records import is_undo, step
from ..game.variants import UnknownVariant, get_rules
from .daily import board_score
from .ratings import NEW, Skill, rate
from .resultlog import Line, Link, link_fault, parse
from .rows import PlayerRow, RoomRow
from .rules import ranking

SEATS_MAX: Final = 8
MOVES_MAX: Final = 5_001  # the move cap, and one resignation past it
NAME_MAX: Final = 24


class Fault(Exception):
    """The first entry that does not hold, and why."""

    def __init__(self, seq: int, reason: str) -> None:
        super().__init__(f"entry {seq} does not hold: {reason}")
        self.seq = seq
        self.reason = reason


@dataclass
class Played:
    """One seat's game as its record replays."""

    n: int
    name: str | None
    bot: bool
    legal: bool
    undos: int
    fc: int
    won: bool
    fc_ms: int | None
    done_ms: int | None
    moves: int
    resigned: bool


def play_seat(variant: str, deal: str, seat: Any) -> Played:
    """Replay one seat, keeping what the store's move script keeps: the time a
    foundation count last rose (``fc_ms``) and the time the game ended."""
    if not isinstance(seat, dict):
        raise ValueError("a seat is an object")
    n, name, bot, moves, ms = (seat.get(k) for k in ("n", "name", "bot", "moves", "ms"))
    if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= SEATS_MAX:
        raise ValueError(f"a seat's n is a number from 1 to {SEATS_MAX}")
    if name is not None and (not isinstance(name, str) or not 0 < len(name) <= NAME_MAX):
        raise ValueError("a seat's name is a name or null")
    if not isinstance(bot, bool):
        raise ValueError("a seat's bot is true or false")
    if (not isinstance(moves, list) or not isinstance(ms, list) or len(moves) != len(ms)
            or len(moves) > MOVES_MAX or not all(isinstance(t, str) for t in moves)
            or not all(isinstance(t, int) and not isinstance(t, bool) for t in ms)):
        raise ValueError(f"a seat's moves and ms are lists of one text and one time per move "
                         f"(at most {MOVES_MAX})")
    total = get_rules(variant).spec.total_cards
    history = [new_game(variant, deal)]
    # a seat starts at the deal's own foundation cards (the store's fc0), as the move script compares
    fc, fc_ms, legal, undos = foundation_cards(history[0]), None, True, 0
    for text, t in zip(moves, ms, strict=True):
        try:
            step(history, text)
        except ValueError:
            legal = False
            break
        undos += is_undo(text)
        now = foundation_cards(history[-1])
        if now > fc:
            fc_ms = t
        fc = now
    won = legal and fc == total
    last = moves[-1].strip().lower() if moves else ""
    return Played(n, name, bot, legal, undos, fc, won, fc_ms, ms[-1] if won and ms else None,
                  len(moves), last == "resign")


def ranked_places(variant: str, race_ms: int, played: list[Played]) -> list[dict[str, Any]]:
    """The race's ranking from the replayed seats, by the server's own rule."""
    room = RoomRow("", variant, "", len(played), 1, True, "finished", 0, race_ms, [
        PlayerRow(p.n, p.name or "", p.moves,
                  status=WON if p.won else ("resigned" if p.resigned else "stuck"), fc=p.fc,
                  fc_ms=p.fc_ms, done_ms=p.done_ms, ident=p.name, bot=int(p.bot))
        for p in played])
    return ranking(room)


@dataclass
class LogCheck:
    """What the log adds up to so far, and where its chain stands."""

    link: Link = Link()
    ratings: dict[str, dict[str, Skill]] = field(default_factory=dict)  # casefolded name -> variant -> skill
    shown: dict[str, str] = field(default_factory=dict)  # casefolded name -> as written
    # "VARIANT SEASON" ("bots VARIANT SEASON": a bots' board) -> name -> ordinal
    rating_boards: dict[str, dict[str, float]] = field(default_factory=dict)
    daily_boards: dict[str, dict[str, int]] = field(default_factory=dict)  # "DATE VARIANT" -> name -> score
    wins: dict[str, dict[str, int]] = field(default_factory=dict)  # "VARIANT SEASON" -> name -> wins
    races: dict[str, dict[str, Any]] = field(default_factory=dict)  # race -> its entry
    voided: dict[str, set[str]] = field(default_factory=dict)  # race -> the names voided
    carried: set[str] = field(default_factory=set)  # names whose rating began before the log
    before_log: set[str] = field(default_factory=set)  # voided races rated before the log began
    counts: dict[str, int] = field(default_factory=lambda: {"result": 0, "void": 0, "rename": 0})

    def feed(self, text: str | bytes) -> Line:
        """Check the next line and add it up; :class:`Fault` if it does not hold."""
        seq = self.link.seq + 1
        try:
            line = parse(text)
        except ValueError as exc:
            raise Fault(seq, str(exc)) from None
        fault = link_fault(line, self.link)
        if fault is not None:
            raise Fault(seq, fault)
        kind = line.entry["kind"]
        try:
            if kind == "result":
                self._result(line)
            elif kind == "void":
                self._void(line.entry)
            else:
                self._rename(line.entry)
        except Fault:
            raise
        except (ValueError, KeyError, TypeError) as exc:  # a malformed field, named
            raise Fault(line.seq, f"malformed {kind} entry: {exc!r}") from None
        self.counts[kind] += 1
        self.link = Link(line.seq, line.hash)
        return line

    # -- results -------------------------------------------------------------------------------
    def _result(self, line: Line) -> None:
        e, rec, seq = line.entry, line.record, line.seq
        if rec is None:
            raise Fault(seq, "a result without its record")
        race, variant = e["race"], e["variant"]
        if race in self.races:
            raise Fault(seq, f"race {race} is in the log already (entry {self.races[race]['seq']})")
        try:
            variant_id = get_rules(rec["variant"]).spec.id
            parse_deal_number(rec["deal"])
        except (UnknownVariant, BadDealNumber) as exc:
            raise Fault(seq, f"the record's game: {exc}") from None
        if variant_id != variant or rec["variant"] != variant:
            raise Fault(seq, "the entry's variant is not the record's")
        seats = rec["seats"]
        if not isinstance(seats, list) or not 1 <= len(seats) <= SEATS_MAX:
            raise Fault(seq, f"a record has 1 to {SEATS_MAX} seats")
        played = [play_seat(variant, str(rec["deal"]), s) for s in seats]
        if len({p.n for p in played}) != len(played):
            raise Fault(seq, "two seats of the record have one number")
        names = [str(p.name).casefold() for p in played if p.name and not p.bot]
        if len(names) != len(set(names)):
            raise Fault(seq, "one claimed name holds two seats: such a race is never ranked")
        by_n = {p.n: p for p in played}
        # a bot's seat never counts, and the people's places are counted among people only
        standing = [dict(r, place=i) for i, r in enumerate(
            (r for r in ranked_places(variant, int(rec["race_ms"]), played) if not by_n[r["player"]].bot),
            start=1)]
        if not standing:
            raise Fault(seq, "a result with no person racing")
        # the server's own test: a legal record without undos, of a claimed name, not a bot
        counted = {p.n for p in played if p.name and not p.bot and p.legal and not p.undos}
        if e["daily"] is not None:
            self._daily(seq, e, int(rec["race_ms"]), standing, by_n, counted)
        else:
            rated = [(by_n[r["player"]].name, r["place"]) for r in standing if r["player"] in counted]
            self._rated(seq, e, [(str(n), p) for n, p in rated])
        self.races[race] = {**e, "names": sorted({str(p.name).casefold() for p in played if p.name})}

    def _daily(self, seq: int, e: dict[str, Any], race_ms: int, standing: list[dict[str, Any]],
               by_n: dict[int, Played], counted: set[int]) -> None:
        top = standing[0]
        p = by_n[top["player"]]
        if top["player"] not in counted:
            raise Fault(seq, "a daily result whose first place is no claimed name's legal game")
        time_ms = top["time_ms"] or race_ms  # as the server: no foundation card, the race's length
        score = board_score(top["won"], time_ms, top["moves"], top["foundation_cards"])
        board = e["board"]
        if str(board["name"]).casefold() != str(p.name).casefold() or board["score"] != score:
            raise Fault(seq, f"the daily board entry is not the record's: {p.name} scores {score}")
        key = f"{e['daily']} {e['variant']}"
        day = self.daily_boards.setdefault(key, {})
        who = str(p.name).casefold()
        if who in day:
            raise Fault(seq, f"{p.name} has a ranked result of {key} already")
        day[who] = score
        self._show(str(p.name))
        if top["won"]:
            for season in e["boards"]:
                wins = self.wins.setdefault(f"{e['variant']} {season}", {})
                wins[who] = wins.get(who, 0) + 1

    def _rated(self, seq: int, e: dict[str, Any], rated: list[tuple[str, int]]) -> None:
        claimed: dict[str, list[str]] = e["ratings"]
        if len(rated) < 2:
            raise Fault(seq, "a rated race has two claimed names' legal games at least")
        names = {n.casefold(): n for n, _ in rated}
        if not {n.casefold() for n in claimed} <= set(names) or len(names) != len(rated):
            raise Fault(seq, "the entry rates a name that did not race (or one name twice)")
        variant = e["variant"]
        current = []
        for name, _ in rated:
            mine = self.ratings.get(name.casefold(), {}).get(variant)
            given = claimed.get(name)
            if mine is None and given is not None:
                mine = Skill.from_store(given[0])  # the log's first word on this name
                if mine != NEW:
                    self.carried.add(name.casefold())
            current.append(mine or NEW)
        after = rate(current, [p for _, p in rated], e["race"])
        for (name, _), old, new in zip(rated, current, after, strict=True):
            given = claimed.get(name)
            if given is None:
                continue  # not written by the server (it kept changing under the race)
            if given[0] != old.to_store():
                raise Fault(seq, f"{name}'s rating before the race is {old.to_store()!r}, "
                            f"the entry says {given[0]!r}")
            if given[1] != new.to_store():
                raise Fault(seq, f"{name}'s rating after the race is {new.to_store()!r}, "
                            f"the entry says {given[1]!r}")
            self._set(name, variant, new, e["boards"], name in e.get("bots", ()))

    def _set(self, name: str, variant: str, skill: Skill, seasons: list[str], bot: bool = False) -> None:
        who = name.casefold()
        self.ratings.setdefault(who, {})[variant] = skill
        self._show(name)
        for season in seasons:  # a bot account's rating goes on the bots' board, never the persons'
            board = f"bots {variant} {season}" if bot else f"{variant} {season}"
            self.rating_boards.setdefault(board, {})[who] = skill.ordinal

    def _show(self, name: str) -> None:
        self.shown.setdefault(name.casefold(), name)

    # -- voids and renames ---------------------------------------------------------------------
    def _void(self, e: dict[str, Any]) -> None:
        seq, race = int(e["seq"]), e["race"]
        was = self.races.get(race)
        names = {str(n).casefold() for n in e["names"]}
        if was is None:
            self._void_before(seq, race, names, e)
            return
        if e.get("variant", was["variant"]) != was["variant"]:
            raise Fault(seq, f"the void says race {race} was {e['variant']}, the log says {was['variant']}")
        if not names or not names <= set(was["names"]):
            raise Fault(seq, f"the void names someone who did not race in {race}")
        if names & self.voided.get(race, set()):
            raise Fault(seq, f"a name of this void was voided in {race} already")
        self.voided.setdefault(race, set()).update(names)
        if was["daily"] is not None:
            key = f"{was['daily']} {was['variant']}"
            who = str(was["board"]["name"]).casefold()
            removed = who in names and self.daily_boards.get(key, {}).pop(who, None) is not None
            if removed and was["board"]["score"] >> 44 == 0:  # a win: counted no more
                for season in was["boards"]:
                    wins = self.wins.get(f"{was['variant']} {season}", {})
                    if wins.get(who):
                        wins[who] -= 1
        self._void_ratings(seq, names, was["variant"], e, was.get("bots", ()), carry=False)

    def _void_before(self, seq: int, race: str, names: set[str], e: dict[str, Any]) -> None:
        """A void of a race the log does not hold: one rated before the log began. What
        the race gave cannot be recomputed, so the void's ratings are taken as given, as
        a name's first rating is; each must still follow from the log where the log has
        rated that name in that variant, and the race is listed apart."""
        variant = e.get("variant")
        if not isinstance(variant, str):
            raise Fault(seq, f"race {race} is not in the log before this void, which names no variant")
        if not names or names & self.voided.get(race, set()):
            raise Fault(seq, f"this void of {race}, a race before the log, names nobody new")
        self.voided.setdefault(race, set()).update(names)
        self.before_log.add(race)
        self._void_ratings(seq, names, variant, e, (), carry=True)

    def _void_ratings(self, seq: int, names: set[str], variant: str, e: dict[str, Any],
                      bots: Collection[str], carry: bool) -> None:
        """The ratings a void wrote: each of a voided name, its before the log's rating so
        far; with ``carry``, a name the log has not rated in ``variant`` brings its own."""
        for name, (before, after) in e["ratings"].items():
            if name.casefold() not in names:
                raise Fault(seq, f"the void rates {name}, whom it does not void")
            mine = self.ratings.get(name.casefold(), {}).get(variant)
            if mine is None and carry:
                self.carried.add(name.casefold())
            elif mine is None or mine.to_store() != before:
                raise Fault(seq, f"{name}'s rating before the void is "
                            f"{mine.to_store() if mine else None!r}, the entry says {before!r}")
            self._set(name, variant, Skill.from_store(after), e["boards"], name in bots)

    def _rename(self, e: dict[str, Any]) -> None:
        seq, old, new = int(e["seq"]), str(e["old"]), str(e["new"])
        a, b = old.casefold(), new.casefold()
        if not 0 < len(new) <= NAME_MAX:
            raise Fault(seq, "a new name has 1 to 24 characters")
        if a != b and (b in self.ratings or b in self.shown):
            raise Fault(seq, f"{new} has results of its own: a rename never merges two names")
        if a in self.ratings:
            self.ratings[b] = self.ratings.pop(a)
        if self.shown.pop(a, None) is not None:
            self.shown[b] = new
        for rating in self.rating_boards.values():
            if a in rating:
                rating[b] = rating.pop(a)
        for counts in (*self.daily_boards.values(), *self.wins.values()):
            if a in counts:
                counts[b] = counts.pop(a)
        for was in self.races.values():
            if a in was["names"]:
                was["names"] = sorted({b if n == a else n for n in was["names"]})
            if was.get("board") and str(was["board"]["name"]).casefold() == a:
                was["board"] = {**was["board"], "name": new}
        for names in self.voided.values():
            if a in names:
                names.discard(a)
                names.add(b)

    # -- what it all adds up to ----------------------------------------------------------------
    def summary(self) -> dict[str, Any]:
        return {"entries": self.link.seq, "head": self.link.hash, **self.counts,
                "names": len(self.shown), "carried": sorted(self.carried),
                "voided_before_the_log": sorted(self.before_log)}

    def boards(self) -> dict[str, Any]:
        """Every board as recomputed: ratings (ordinal, best first), daily boards
        (score, best first), daily wins, each as [[name, value], ...]."""
        def ranked(board: dict[str, Any], best_high: bool) -> list[list[Any]]:
            rows = sorted(board.items(), key=lambda kv: (-kv[1] if best_high else kv[1], kv[0]))
            return [[self.shown.get(n, n), round(v, 3) if isinstance(v, float) else v] for n, v in rows]
        return {"rating": {k: ranked(v, True) for k, v in sorted(self.rating_boards.items())},
                "daily": {k: ranked(v, False) for k, v in sorted(self.daily_boards.items())},
                "daily_wins": {k: ranked({n: w for n, w in v.items() if w}, True)
                               for k, v in sorted(self.wins.items())}}
