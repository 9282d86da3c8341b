"""``patience-server arena``: bad options get one line and exit 2, before any Redis."""

from __future__ import annotations

import pytest

from server.cli.arena import parse_start
from server.ops.config import ConfigError
from tests.unit.cli.test_cli import assert_one_line_error, run


@pytest.mark.parametrize(("args", "says"), [
    (["--variant", "nosuch", "--minutes", "5"], "nosuch"),
    (["--variant", "czarina", "--minutes", "0"], "--minutes"),
    (["--variant", "czarina", "--minutes", "5", "--group", "9"], "--group"),
    (["--variant", "czarina", "--minutes", "5", "--race-seconds", "5"], "--race-seconds"),
    (["--variant", "czarina", "--minutes", "5", "--id", "ABC"], "--id"),
    (["--variant", "czarina", "--minutes", "5", "--start", "tomorrow"], "--start"),
])
def test_bad_options_get_one_line(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
                                  args: list[str], says: str) -> None:
    def no_redis(*_: object) -> None:
        raise AssertionError("a Redis was looked for")

    monkeypatch.setattr("server.store.embedded.resolve_redis_url", no_redis)
    code, out, err = run(capsys, "arena", "create", *args)
    assert code == 2 and out == ""
    assert_one_line_error(err, says)


def test_start_times() -> None:
    assert parse_start("now", 1000) == 1000
    assert parse_start("+10", 1000) == 1000 + 600_000
    assert parse_start("2026-12-01T18:00", 0) == 1_796_148_000_000  # UTC unless told
    with pytest.raises(ConfigError):
        parse_start("+x", 0)
