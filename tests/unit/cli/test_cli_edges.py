"""``patience-server`` edges: negative deal numbers, times that go back, a busy
port, a long solve on a terminal."""

from __future__ import annotations

import io
import time
from pathlib import Path
from typing import Any

import pytest

import server.game.solver as solver
from server.cli.main import main
from tests.unit.cli.test_cli import assert_one_line_error, legal_record, run, write_record


@pytest.mark.parametrize("number", ["-5", " -5", "ms-5", "MS -5", "-24"])
@pytest.mark.parametrize("command", ["deal", "solve"])
def test_negative_deal_numbers_are_refused_everywhere(capsys: pytest.CaptureFixture[str],
                                                      command: str, number: str) -> None:
    code, out, err = run(capsys, command, "four-seasons", number)
    assert code == 2 and out == ""
    assert_one_line_error(err, "deal numbers run from 1")


@pytest.mark.parametrize("deal", ["-5", -5, "ms-5"])
def test_verify_refuses_negative_deal_numbers_of_any_spelling(capsys: pytest.CaptureFixture[str],
                                                              tmp_path: Path, deal: object) -> None:
    path = write_record(tmp_path, {"variant": "four-seasons", "deal": deal, "moves": []})
    code, out, err = run(capsys, "verify", path)
    assert code == 2 and out == ""
    assert_one_line_error(err, "deal numbers run from 1")


@pytest.mark.parametrize("ms", [[5, 3], [-1, 2], [0, 10, 9]])
def test_verify_refuses_times_that_go_backwards(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                ms: list[int]) -> None:
    rec = legal_record().to_dict()
    rec["moves"] = rec["moves"][:len(ms)]
    path = write_record(tmp_path, {**rec, "ms": ms})
    code, out, err = run(capsys, "verify", path)
    assert code == 2 and out == ""
    assert_one_line_error(err, "backwards")


def test_verify_takes_times_that_stand_still_or_go_on(capsys: pytest.CaptureFixture[str],
                                                     tmp_path: Path) -> None:
    rec = legal_record().to_dict()
    rec["moves"] = rec["moves"][:3]
    code, _, _ = run(capsys, "verify", write_record(tmp_path, {**rec, "ms": [0, 0, 7]}))
    assert code == 0


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_long_solve_shows_its_time_on_a_terminal_and_wipes_it(monkeypatch: pytest.MonkeyPatch,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    real = solver.solve

    def slow(*args: Any, **kw: Any) -> Any:
        time.sleep(2.3)
        return real(*args, **kw)

    monkeypatch.setattr(solver, "solve", slow)
    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    assert main(["solve", "four-seasons", "1", "--budget", "50"]) == 0
    shown = terminal.getvalue()
    assert "solving Four Seasons #1 (budget 50 nodes): 1 s" in shown
    assert "2 s" in shown and shown.endswith("\r\x1b[K")
    assert "Four Seasons #1:" in capsys.readouterr().out


def test_a_solve_into_a_file_or_pipe_prints_no_progress(monkeypatch: pytest.MonkeyPatch) -> None:
    real = solver.solve

    def slow_solve(*args: Any, **kwargs: Any) -> Any:
        time.sleep(1.3)
        return real(*args, **kwargs)

    monkeypatch.setattr(solver, "solve", slow_solve)
    plain = io.StringIO()
    monkeypatch.setattr("sys.stderr", plain)
    assert main(["solve", "four-seasons", "1", "--budget", "50"]) == 0
    assert plain.getvalue() == ""


def test_the_license_is_an_spdx_string_the_build_backend_takes() -> None:
    import tomllib

    doc = tomllib.loads((Path(__file__).resolve().parents[3] / "pyproject.toml").read_text())
    assert doc["project"]["license"] == "MIT"  # a table makes setuptools warn on every install
    assert "setuptools>=77" in doc["build-system"]["requires"]  # the first to take SPDX strings
