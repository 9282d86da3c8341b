"""``patience-server variants/deal/verify/solve`` for the PySolFC games of issue 15:
simplicity-pysol, czarina-pysol, corners-pysol and les-quatre-coins-pysol."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from server.game.engine import WON, new_game, play, status
from server.game.records import Record
from tests.unit.cli.test_cli import run, write_record
from tests.unit.game.test_golden_deals import LAYOUTS

NEW = {"simplicity-pysol": ("437", "cross"), "czarina-pysol": ("483", "cross"),
       "corners-pysol": ("417", "cross"), "les-quatre-coins-pysol": ("620", "corner-stones")}


def test_variants_lists_the_four_with_family_and_pysolfc_source(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "variants")
    assert code == 0
    lines = {line.split("\t")[0]: line for line in out.splitlines()}
    for variant, (game, family) in NEW.items():
        assert f"\tfamily: {family}\t" in lines[variant]
        assert f"sources: PySolFC {game} (rules as coded);" in lines[variant]


@pytest.mark.parametrize("variant", sorted(NEW))
def test_deal_json_matches_the_golden_file(capsys: pytest.CaptureFixture[str], variant: str) -> None:
    code, out, err = run(capsys, "deal", variant, "24", "--json")
    assert code == 0 and err == ""
    assert json.loads(out)["piles"] == LAYOUTS[variant, "24"]


@pytest.mark.parametrize(("variant", "deal"), [("czarina-pysol", "2"), ("corners-pysol", "2"),
                                               ("simplicity-pysol", "1")])
def test_solve_then_verify(capsys: pytest.CaptureFixture[str], tmp_path: Path, variant: str,
                           deal: str) -> None:
    code, out, _ = run(capsys, "solve", variant, deal, "--budget", "10000", "--json")
    doc = json.loads(out)
    assert code == 0 and doc["result"] == "won"
    state = new_game(variant, int(deal))
    for move in doc["moves"]:
        state = play(state, move)
    assert status(state) == WON
    record = Record(variant, int(deal), tuple(doc["moves"]))
    code, out, err = run(capsys, "verify", write_record(tmp_path, record.to_dict()))
    assert code == 0 and err == "" and json.loads(out)["legal"] is True
