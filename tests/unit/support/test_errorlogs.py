"""The counting of ERROR records that the fuzzer and the fault tests rely on
(tests/support/errorlogs.py): a count that missed a record would let a leak back."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from tests.support.errorlogs import ErrorRecords, error_lines, log_sizes, no_error_records


def test_records_at_error_from_any_logger_are_counted_with_their_tracebacks() -> None:
    with ErrorRecords() as errors:
        logging.getLogger("patience.net").warning("a refusal")
        logging.getLogger("asyncio").error("Task exception was never retrieved")
        try:
            raise ValueError("boom")
        except ValueError:
            logging.getLogger("patience.net").exception("connection handler failed")
    logging.getLogger("patience").error("after the block")
    assert len(errors.records) == 2 and errors.tracebacks == 1
    assert "ValueError: boom" in errors.shown()[1]


def test_no_error_records_fails_its_block_on_one_record() -> None:
    with pytest.raises(AssertionError, match="1 records at ERROR, 0 with a traceback"), \
            no_error_records():
        logging.getLogger("patience.hub").error("pub/sub failed")


def test_a_server_logs_error_lines_are_found_from_where_the_test_began(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    log.write_text(json.dumps({"level": "ERROR", "message": "before the test"}) + "\n")
    start = log_sizes([log])[log]
    lines = [{"level": "INFO", "message": "serving"},
             {"level": "WARNING", "message": "pub/sub connection lost"},
             {"level": "ERROR", "message": "connection handler failed", "exc_info": "Traceback ..."},
             {"level": "WARNING", "message": "odd", "exc_info": "Traceback ..."}]
    with log.open("a") as f:
        f.write("".join(json.dumps(line) + "\n" for line in lines))
        f.write("Traceback (most recent call last):\n  File \"x\", line 1\nKeyError: 1\n")
    found = error_lines(log, start)
    assert len(found) == 3
    assert "connection handler failed" in found[0] and "odd" in found[1]
    assert found[2].startswith("Traceback")
    assert error_lines(tmp_path / "absent.log") == []
