"""The admin token from the environment or a file (server/ops/config.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from server.ops.config import ConfigError, Settings

TOKEN = "k" * 24


def test_the_token_comes_from_the_environment_or_a_file(tmp_path: Path) -> None:
    assert Settings.from_env({}).admin_token == ""
    assert Settings.from_env({"PATIENCE_ADMIN_TOKEN": TOKEN}).admin_token == TOKEN
    path = tmp_path / "token"
    path.write_text(TOKEN + "\nignored\n")
    assert Settings.from_env({"PATIENCE_ADMIN_TOKEN_FILE": str(path)}).admin_token == TOKEN


@pytest.mark.parametrize("env", [{"PATIENCE_ADMIN_TOKEN": "short"},
                                 {"PATIENCE_ADMIN_TOKEN": TOKEN, "PATIENCE_ADMIN_TOKEN_FILE": "x"},
                                 {"PATIENCE_ADMIN_TOKEN_FILE": "/nonexistent/token"},
                                 {"PATIENCE_ADMIN_TOKEN": "\u00e9" * 30},
                                 {"PATIENCE_ADMIN_RATE_PER_2S": "0"}])
def test_a_bad_token_stops_the_server_at_start(env: dict[str, str]) -> None:
    with pytest.raises(ConfigError):
        Settings.from_env(env)
