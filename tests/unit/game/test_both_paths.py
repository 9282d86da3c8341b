"""The compiled rules core and its pure source answer bad input alike.

Compiled by mypyc, a function checks its typed parameters itself and raises a
bare ``TypeError``; the functions that take outside input are typed ``object``
and check it, so both builds give the project's own errors with the same
messages. Each side runs in its own interpreter (``PATIENCE_PURE=1`` or not),
whichever build this test run itself uses.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from server.game.deals import BadDealNumber, canonical_deal_text, parse_deal_number
from server.game.engine import new_game, play
from server.game.moves import BadMove, IllegalMove, parse
from server.game.records import BadRecord, record_from_dict, record_from_json
from server.game.variants import UnknownVariant, get_rules
from server.ops.corebuild import rules_core

ROOT = Path(__file__).resolve().parents[3]
OURS = (BadDealNumber, BadMove, IllegalMove, BadRecord, UnknownVariant)
RECORD = {"variant": "four-seasons", "deal": 24, "moves": ["draw"]}


def _record(**changes: object) -> dict[str, object]:
    return {**RECORD, **changes}


def cases() -> list[tuple[str, Callable[[], object]]]:
    """Bad input at every boundary: deal numbers, move texts, record fields,
    variant names."""
    start = new_game("four-seasons", 24)
    return [
        ("deal 1.0", lambda: parse_deal_number(1.0)),
        ("deal None", lambda: parse_deal_number(None)),
        ("deal bytes", lambda: parse_deal_number(b"24")),
        ("deal list", lambda: parse_deal_number([24])),
        ("deal True", lambda: parse_deal_number(True)),
        ("deal text", lambda: parse_deal_number("24x")),
        ("deal 0", lambda: parse_deal_number(0)),
        ("canonical 2.5", lambda: canonical_deal_text(2.5)),
        ("new_game deal 1.0", lambda: new_game("four-seasons", 1.0)),
        ("new_game variant 5", lambda: new_game(5, 24)),
        ("new_game unknown", lambda: new_game("klondike", 24)),
        ("variant None", lambda: get_rules(None)),
        ("move 5", lambda: parse(5)),
        ("move bytes", lambda: parse(b"t1-f1")),
        ("move same pile", lambda: parse("t3-t3")),
        ("move too long", lambda: parse("t1-" + "f" * 40)),
        ("play 5", lambda: play(start, 5)),
        ("play None", lambda: play(start, None)),
        ("play illegal", lambda: play(start, "t1-t1:2")),
        ("record not a dict", lambda: record_from_dict(["four-seasons"])),
        ("record deal 1.0", lambda: record_from_dict(_record(deal=1.0))),
        ("record deal None", lambda: record_from_dict(_record(deal=None))),
        ("record variant 5", lambda: record_from_dict(_record(variant=5))),
        ("record moves ints", lambda: record_from_dict(_record(moves=[1]))),
        ("record ms bools", lambda: record_from_dict(_record(ms=[True]))),
        ("record json 5", lambda: record_from_json(5)),
        ("record json bytes", lambda: record_from_json(b"{")),
    ]


def outcomes() -> dict[str, object]:
    """Each case's exception type and message, and which core answered."""
    answers: dict[str, list[str]] = {}
    for label, call in cases():
        try:
            call()
            answers[label] = ["accepted", ""]
        except Exception as exc:  # whatever it was: recording it is the point
            answers[label] = [type(exc).__name__, str(exc)]
    return {"core": rules_core(), "answers": answers}


def _outcomes_in(pure: bool) -> dict[str, object]:
    env = {**os.environ, "PATIENCE_PURE": "1" if pure else "0"}
    code = "import json, tests.unit.game.test_both_paths as t; print(json.dumps(t.outcomes()))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, check=True,
                         capture_output=True, text=True, timeout=60).stdout
    result: dict[str, object] = json.loads(out)
    return result


def test_every_boundary_refuses_with_our_own_error() -> None:
    names = {cls.__name__ for cls in OURS}
    for label, call in cases():
        try:
            call()
        except OURS:
            continue
        except Exception as exc:
            raise AssertionError(f"{label}: {type(exc).__name__}: {exc} ({rules_core()})") from None
        raise AssertionError(f"{label}: accepted; expected one of {sorted(names)}")


