"""tools/winrates.py's switches for the loss-proof measurements:
``--first-numbers`` solves deals 1..COUNT, ``--no-capacity`` turns the cross
family's capacity test off (the search then cuts nothing in four-seasons)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.scripts import load_script


def test_first_numbers_and_no_capacity(tmp_path: Path) -> None:
    script = load_script("winrates")
    assert script.main(["run", "--variants", "four-seasons", "--runs", "2:300",
                        "--out", str(tmp_path / "a.jsonl"), "--first-numbers"]) == 0
    lines = [json.loads(x) for x in (tmp_path / "a.jsonl").read_text().splitlines()]
    assert [x["deal"] for x in lines] == [1, 2]
    assert script.deal_numbers(1)[0] != 1  # the seeded list otherwise
    for flags, cuts in (((), True), (("--no-capacity", "--tag", "off"), False)):
        out = tmp_path / f"{bool(flags)}.jsonl"
        assert script.main(["run", "--variants", "four-seasons", "--runs", "10:20000", "--out",
                            str(out), "--first-numbers", *flags]) == 0
        rec = [json.loads(x) for x in out.read_text().splitlines()][-1]
        assert rec["deal"] == 10 and rec["result"] == "unknown"
        assert (rec["stages"][-1][3] > 0) == cuts  # the complete stage's cuts
