"""``patience-server`` offline tools: variants, deal, verify. In-process through
``main`` (capsys), and once through the installed console script."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from server.cli.main import main
from server.game.records import Record
from server.game.variants import variant_ids
from tests.support.game import random_game
from tests.unit.game.test_golden_deals import LAYOUTS

SCRIPT = Path(sys.executable).parent / "patience-server"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_line_error(err: str, *fragments: str) -> None:
    assert err.startswith("patience-server: "), err
    assert err.count("\n") == 1 and err.endswith("\n"), err
    assert "Traceback" not in err
    for f in fragments:
        assert f.lower() in err.lower(), f"{err!r} lacks {f!r}"


def write_record(tmp_path: Path, doc: object, name: str = "game.json") -> str:
    path = tmp_path / name
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc), encoding="utf-8")
    return str(path)


def legal_record() -> Record:
    trace = random_game("four-seasons", 24, 3, max_moves=40)
    return Record("four-seasons", 24, tuple(str(m) for m in trace.moves))


# -- variants ----------------------------------------------------------------------
def test_variants_lists_every_variant_with_family_and_sources(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "variants")
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert [line.split("\t")[0] for line in lines] == variant_ids()
    pysol = next(line for line in lines if line.startswith("florentine-pysol\t"))
    assert "\tfamily: cross\t" in pysol and "sources: PySolFC 696 (rules as coded);" in pysol
    assert "family: betsy-ross" in next(line for line in lines if line.startswith("betsy-ross\t"))


# -- deal --------------------------------------------------------------------------
@pytest.mark.parametrize(("variant", "deal"), [("four-seasons", "1"), ("corner-stones", "ms100000"),
                                               ("betsy-ross", "123456789"), ("four-seasons-1883", "24")])
def test_deal_json_matches_the_golden_file(capsys: pytest.CaptureFixture[str],
                                           variant: str, deal: str) -> None:
    code, out, err = run(capsys, "deal", variant, deal, "--json")
    assert code == 0 and err == ""
    doc = json.loads(out)
    assert doc["variant"] == variant
    assert doc["deal"] == (int(deal) if deal.isdigit() else deal)
    assert doc["piles"] == LAYOUTS[variant, deal]  # the stock listed next card first


def test_deal_four_seasons_1_stock_next_card_first(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "deal", "four-seasons", "1", "--json")
    piles = json.loads(out)["piles"]
    assert piles["s"][:2] == ["7C", "5H"] and piles["w"] == []
    assert piles["f4"] == ["JD"]
    assert [piles[f"t{k}"] for k in range(1, 6)] == [["2D"], ["9H"], ["JC"], ["5D"], ["7H"]]


def test_deal_text_output(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "deal", "Vanishing Cross", "1")
    assert code == 0
    assert out.splitlines()[0] == "Vanishing Cross #1"
    assert "JD" in out


@pytest.mark.parametrize(("argv", "fragment"), [
    (("deal", "klondike", "1"), "unknown variant"),
    (("deal", "four-seasons", "abc"), "not a deal number"),
    (("deal", "four-seasons", "0"), "deal numbers run from 1"),
    (("deal", "four-seasons", str(10**20)), "deal numbers run from 1"),
    (("deal", "four-seasons", "ms0"), "ms deal numbers"),
])
def test_deal_bad_input(capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], fragment: str) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert_one_line_error(err, fragment)


# -- verify ------------------------------------------------------------------------
def test_verify_legal_record(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    rec = legal_record()
    code, out, err = run(capsys, "verify", write_record(tmp_path, rec.to_dict()))
    assert code == 0 and err == ""
    verdict = json.loads(out)
    assert verdict["legal"] is True
    assert verdict["moves_played"] == len(rec.moves)
    assert "first_illegal" not in verdict


def test_verify_illegal_record(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    rec = legal_record()
    moves = [*rec.moves[:5], "f1-t1", *rec.moves[5:]]
    code, out, err = run(capsys, "verify", write_record(tmp_path, {**rec.to_dict(), "moves": moves}))
    assert code == 1 and err == ""
    verdict = json.loads(out)
    assert verdict["legal"] is False
    assert verdict["first_illegal"] == 5
    assert "foundation" in verdict["reason"]


@pytest.mark.parametrize(("content", "fragment"), [
    ("this is not json", "not JSON"),
    ('{"variant": "four-seasons", "deal": 24, "moves": ["draw", "w-t', "not JSON"),
    ("", "not JSON"),
    ("[" * 50_000, "not JSON"),
    ('["four-seasons", 1]', "record"),
    ('{"variant": "klondike", "deal": 1, "moves": []}', "unknown variant"),
    ('{"variant": "four-seasons", "deal": 0, "moves": []}', "deal"),
    ('{"variant": "four-seasons", "deal": "12x", "moves": []}', "deal"),
    ('{"variant": "four-seasons", "deal": 1, "deal_version": "deal_v9", "moves": []}', "deal_version"),
    ('{"variant": "four-seasons", "deal": 1, "moves": ["draw"], "ms": [1, 2]}', "ms"),
])
def test_verify_bad_record_files(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                 content: str, fragment: str) -> None:
    code, out, err = run(capsys, "verify", write_record(tmp_path, content))
    assert code == 2 and out == ""
    assert_one_line_error(err, fragment)


def test_verify_truncated_record_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    text = legal_record().to_json()
    code, out, err = run(capsys, "verify", write_record(tmp_path, text[: len(text) // 2]))
    assert code == 2 and out == ""
    assert_one_line_error(err, "not JSON")


def test_verify_missing_file_directory_and_binary(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = run(capsys, "verify", str(tmp_path / "nope.json"))
    assert code == 2 and out == ""
    assert_one_line_error(err, "cannot read")
    code, _, err = run(capsys, "verify", str(tmp_path))
    assert code == 2
    assert_one_line_error(err, "cannot read")
    binary = tmp_path / "game.bin"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    code, _, err = run(capsys, "verify", str(binary))
    assert code == 2
    assert_one_line_error(err)


@pytest.mark.parametrize("argv", [(), ("deal",), ("deal", "four-seasons"), ("verify",), ("frobnicate",),
                                  ("deal", "four-seasons", "1", "--bogus")])
def test_usage_errors(capsys: pytest.CaptureFixture[str], argv: tuple[str, ...]) -> None:
    with pytest.raises(SystemExit) as info:
        main(list(argv))
    assert info.value.code == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert_one_line_error(err)


