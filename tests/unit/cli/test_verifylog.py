"""verify-log's own parts: reading a file of lines, the published head, and
waiting out the read API's budget (429) instead of failing."""

from __future__ import annotations

import email.message
import io
import json
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from server.cli import verifylog
from server.cli.main import main
from server.race.resultlog import Link, chained, digest, rename_fields


def lines(n: int) -> list[str]:
    out, link = [], Link()
    for i in range(n):
        line = chained(link, "rename", i, rename_fields(f"a{i}", f"b{i}"), None)
        out.append(line.text())
        link = Link(line.seq, line.hash)
    return out


def test_a_file_of_lines_holds_or_names_its_first_fault(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "log.ndjson"
    log.write_text("\n".join(lines(3)) + "\n")
    assert main(["verify-log", str(log), "--boards", str(tmp_path / "b.json")]) == 0
    assert "the log holds: 3 entries (0 results, 0 voids, 3 renames)" in capsys.readouterr().out
    assert set(json.loads((tmp_path / "b.json").read_text())) == {"rating", "daily", "daily_wins"}
    kept = lines(3)
    log.write_text("\n".join([kept[0], kept[2]]) + "\n")
    assert main(["verify-log", str(log)]) == 1
    assert "entry 2 does not hold" in capsys.readouterr().out
    assert main(["verify-log", str(tmp_path / "none.ndjson")]) == 2


def test_the_published_head_must_be_in_the_log(tmp_path: Path) -> None:
    log = tmp_path / "log.ndjson"
    kept = lines(2)
    log.write_text("\n".join(kept) + "\n")
    head = json.loads(kept[0])["entry"]
    assert main(["verify-log", str(log), "--head", digest(head)]) == 0
    assert main(["verify-log", str(log), "--head", "f" * 64]) == 1


def test_a_429_is_waited_out(monkeypatch: pytest.MonkeyPatch) -> None:
    answers: list[Any] = []

    def urlopen(url: str, timeout: float) -> Any:
        answers.append(url)
        if len(answers) < 3:
            headers = email.message.Message()
            headers["Retry-After"] = "1"
            raise urllib.error.HTTPError(url, 429, "Too Many Requests", headers, io.BytesIO(b""))
        return io.BytesIO(b'{"ok": true}')

    waits: list[float] = []
    monkeypatch.setattr(urllib.request, "urlopen", urlopen)
    monkeypatch.setattr(time, "sleep", waits.append)
    assert verifylog._get("http://server/api/v1/log") == {"ok": True}
    assert waits == [1.0, 1.0] and len(answers) == 3
