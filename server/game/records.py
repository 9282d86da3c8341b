"""Game records: what was dealt and what was played, replayable by anyone.

A record is ``{"variant", "deal", "deal_version", "moves": [...]}`` with an
optional parallel ``"ms"`` list of millisecond offsets. The same fields
travel in msgpack. Replaying a record reproduces the final state exactly.

An entry ``undo`` (solo games only: the server refuses it anywhere else)
takes back the last move still standing, as a stack: two undos in a row take
back the last two moves. It is an ordinary entry of the record, so a replay
sees every move ever made, undone or not, in the order it was made. Undo is
legal only while the game is in progress and a move is left to take back.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Final

from .deals import DEAL_VERSION, BadDealNumber, parse_deal_number
from .engine import DEAD, IN_PROGRESS, WON, foundation_cards, new_game, play, status
from .moves import MAX_MOVE_TEXT, GameOver, IllegalMove
from .state import State
from .variants import UnknownVariant, get_rules

MAX_RECORD_MOVES = 20_000
UNDO: Final = "undo"


def is_undo(text: str) -> bool:
    return text.strip().lower() == UNDO


def step(history: list[State], text: str, known_status: str | None = None) -> None:
    """Play one record entry on ``history`` (every position still standing, the
    current one last): a move appends its position, ``undo`` drops the last
    one. Raises the engine's errors (all ValueError) and changes nothing then.
    ``known_status``: the status of ``history[-1]``, when the caller has it."""
    if not is_undo(text):
        history.append(play(history[-1], text, known_status))
        return
    st = known_status or status(history[-1])
    if st != IN_PROGRESS:
        raise GameOver(f"the game is {st}: nothing can be undone")
    if len(history) < 2:
        raise IllegalMove("there is no move to undo")
    history.pop()


def positions(start: State, texts: list[str], known_status: str | None = None) -> list[State]:
    """The positions standing after playing ``texts`` from ``start`` (undos taken
    into account), the current one last. ``known_status`` IN_PROGRESS skips the
    dead-game searches on the way, for entries known to have been accepted."""
    history = [start]
    for text in texts:
        step(history, text, known_status)
    return history


class BadRecord(ValueError):
    """The record is malformed: it cannot even be replayed."""


@dataclass(frozen=True)
class Record:
    variant: str
    deal: int | str
    moves: tuple[str, ...]
    deal_version: str = DEAL_VERSION
    ms: tuple[int, ...] | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"variant": self.variant, "deal": self.deal,
                               "deal_version": self.deal_version, "moves": list(self.moves)}
        if self.ms is not None:
            out["ms"] = list(self.ms)
        return out

    def to_json(self) -> str:
        return json.dumps(self.to_dict())


def record_from_dict(data: object) -> Record:
    """Validate the shape of a record; raise :class:`BadRecord` saying what is wrong."""
    if not isinstance(data, dict):
        raise BadRecord("a record is an object with variant, deal, deal_version and moves")
    missing = [k for k in ("variant", "deal", "moves") if k not in data]
    if missing:
        raise BadRecord(f"the record lacks {', '.join(missing)}")
    version = data.get("deal_version", DEAL_VERSION)
    if version != DEAL_VERSION:
        raise BadRecord(f"unknown deal_version {version!r}; this server knows {DEAL_VERSION}")
    try:
        variant = get_rules(data["variant"]).spec.id
        deal = data["deal"]
        if not isinstance(deal, int | str):
            raise BadRecord("deal must be a number")
        parse_deal_number(deal)
    except (UnknownVariant, BadDealNumber) as exc:
        raise BadRecord(str(exc)) from None
    moves = data["moves"]
    if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
        raise BadRecord("moves must be a list of move texts")
    if len(moves) > MAX_RECORD_MOVES:
        raise BadRecord(f"more than {MAX_RECORD_MOVES} moves")
    if any(len(m) > MAX_MOVE_TEXT for m in moves):
        raise BadRecord(f"a move text is longer than {MAX_MOVE_TEXT} characters")
    ms = data.get("ms")
    if ms is not None and (not isinstance(ms, list) or len(ms) != len(moves)
                           or not all(isinstance(x, int) and not isinstance(x, bool) for x in ms)):
        raise BadRecord("ms must be a list of integers, one per move")
    if ms is not None and any(b < a for a, b in zip([0, *ms], ms, strict=False)):
        # times since the start of the race, as the server stamps them: they never go back
        raise BadRecord("ms must not be negative or go backwards: no move comes before the one before it")
    return Record(variant, deal, tuple(moves), version, tuple(ms) if ms is not None else None)


def record_from_json(text: object) -> Record:
    # typed object and checked here: compiled, a `str` parameter would meet
    # bytes (which json.loads reads) or junk with a bare TypeError
    if not isinstance(text, str | bytes | bytearray):
        raise BadRecord(f"a record is JSON text, not {type(text).__name__}")
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise BadRecord(f"not JSON: {exc.msg if isinstance(exc, json.JSONDecodeError) else exc}") from None
    except RecursionError:  # e.g. "[[[[..." nested deeper than the decoder's stack
        raise BadRecord("not JSON: nested too deeply") from None
    return record_from_dict(data)


@dataclass
class Replay:
    state: State
    moves_played: int
    first_illegal: int | None = None
    reason: str | None = None
    states: list[State] = field(default_factory=list)

    @property
    def legal(self) -> bool:
        return self.first_illegal is None


def replay(record: Record) -> Replay:
    """Play the record's moves from its deal, stopping at the first illegal one."""
    history = [new_game(record.variant, record.deal)]
    for i, text in enumerate(record.moves):
        try:
            step(history, text)
        except ValueError as exc:
            return Replay(history[-1], i, i, str(exc))
    return Replay(history[-1], len(record.moves))


def replay_facts(record: Record) -> tuple[State, dict[str, Any]]:
    """The record replayed: its last position, and what it shows without a
    status (whether legal, foundation cards, moves played, undos, the final
    position's digest; where it stopped, if illegal). A status could need a
    dead-position search, which a server's results check must not run."""
    r = replay(record)
    out: dict[str, Any] = {
        "legal": r.legal,
        "foundation_cards": foundation_cards(r.state),
        "moves_played": r.moves_played,
        "undos": sum(1 for text in record.moves[:r.moves_played] if is_undo(text)),
        "final_state": r.state.digest(),
    }
    if not r.legal:
        out["first_illegal"] = r.first_illegal
        out["reason"] = r.reason
    return r.state, out


def verify(record: Record) -> dict[str, Any]:
    """The verdict printed by ``patience-server verify``."""
    state, facts = replay_facts(record)
    st = status(state)
    return {"variant": record.variant, "deal": record.deal, "legal": facts.pop("legal"),
            "won": st == WON, "dead": st == DEAD, **facts}
