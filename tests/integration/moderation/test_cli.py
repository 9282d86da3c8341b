"""``patience-server admin`` on a real Redis: the same service as the admin API,
JSON on standard output, a refusal one line on standard error and exit 1."""

from __future__ import annotations

import json

import pytest
from redis import Redis

from server.cli.main import main


def admin(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["admin", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_admin_command(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
                           moderation_redis_url: str) -> None:
    with Redis.from_url(moderation_redis_url) as client:
        client.flushdb()
    monkeypatch.setenv("REDIS_URL", moderation_redis_url)
    monkeypatch.setenv("PATIENCE_SECRET", "s")
    monkeypatch.setattr("getpass.getuser", lambda: "kim")
    code, out, err = admin(capsys, "ban", "addr", "192.0.2.7", "--reason", "a flood of rooms",
                           "--minutes", "30")
    assert (code, err) == (0, "") and json.loads(out)["target"] == "192.0.2.7"
    code, out, _ = admin(capsys, "bans")
    assert [b["target"] for b in json.loads(out)["bans"]] == ["192.0.2.7"]
    code, out, err = admin(capsys, "void", "NOPE", "--reason", "x")
    assert code == 1 and out == "" and err.startswith("patience-server: not_found: ") and err.count("\n") == 1
    code, out, err = admin(capsys, "unban", "addr", "192.0.2.7", "--reason", "lifted early")
    assert code == 0 and json.loads(out)["lifted"]
    code, out, _ = admin(capsys, "audit", "--limit", "5")
    entries = json.loads(out)["entries"]
    assert [(e["action"], e["reason"], e["by"]) for e in entries][:2] == \
        [("unban_addr", "lifted early", "cli kim"), ("ban_addr", "a flood of rooms", "cli kim")]
    code, out, _ = admin(capsys, "queue")
    assert code == 0 and "queue" in json.loads(out)
