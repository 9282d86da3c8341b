"""What a server logged at ERROR, counted: in this process (:class:`ErrorRecords`)
or in a server process's log file (:func:`error_lines`).

A hostile frame, a lost Redis shard or a failover is met with a refusal or a
warning, never an ERROR record or a traceback (docs/operations/reliability.md);
the fuzzer and the fault tests count both, on whichever build runs (the
compiled one in ``make test``: docs/design/compiled-code.md says why that
matters).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType


class ErrorRecords(logging.Handler):
    """Every record at ERROR or above, from any logger (attached to the root)."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    @property
    def tracebacks(self) -> int:
        """How many of the records carry a traceback."""
        return sum(1 for r in self.records if r.exc_info or r.stack_info)

    def shown(self, limit: int = 3, start: int = 0) -> list[str]:
        """The records from ``start`` on (``limit`` of them), each with its
        traceback, for an assertion's message."""
        formatter = logging.Formatter("%(levelname)s %(name)s %(message)s")
        return [formatter.format(r) for r in self.records[start:start + limit]]

    def __enter__(self) -> ErrorRecords:
        logging.getLogger().addHandler(self)
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        logging.getLogger().removeHandler(self)


@contextmanager
def no_error_records() -> Iterator[ErrorRecords]:
    """Fail the block if anything was logged at ERROR in it (with a traceback or not)."""
    with ErrorRecords() as errors:
        yield errors
    assert not errors.records, (f"{len(errors.records)} records at ERROR, {errors.tracebacks} "
                                "with a traceback:\n" + "\n".join(errors.shown()))


def error_lines(log: Path, start: int = 0) -> list[str]:
    """The lines of a server process's log from byte ``start`` on that say
    ERROR or CRITICAL (its JSON lines' ``level``) or carry a traceback (a JSON
    line's ``exc_info``, or a plain line of an interpreter's own traceback)."""
    if not log.exists():
        return []
    with log.open("rb") as f:
        f.seek(start)
        text = f.read().decode(errors="replace")
    found = []
    for line in text.splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            if line.startswith("Traceback (most recent call last)"):
                found.append(line)
            continue
        if isinstance(record, dict) and (record.get("level") in ("ERROR", "CRITICAL")
                                         or "exc_info" in record):
            found.append(line)
    return found


def log_sizes(logs: list[Path]) -> dict[Path, int]:
    """Where each log ends now: what :func:`error_lines` reads from after a test."""
    return {log: log.stat().st_size if log.exists() else 0 for log in logs}
