"""The folder gives each test its marker (tests/conftest.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import TESTS, kind_of


def test_this_test_is_marked_unit_and_nothing_else(request: pytest.FixtureRequest) -> None:
    marks = {m.name for m in request.node.iter_markers()} & {"unit", "integration", "e2e"}
    assert marks == {"unit"}


@pytest.mark.parametrize(("path", "kind"), [
    ("unit/game/test_x.py", "unit"),
    ("integration/server/test_x.py", "integration"),
    ("e2e/test_x.py", "e2e"),
    ("test_x.py", None),
    ("support/test_x.py", None),
    ("e2e", None),
])
def test_the_kind_is_the_first_folder_under_tests(path: str, kind: str | None) -> None:
    assert kind_of(TESTS / path) == kind


def test_a_path_outside_the_tests_has_no_kind() -> None:
    assert kind_of(TESTS.parent / "server" / "unit" / "test_x.py") is None
    assert kind_of(Path("/") / "unit" / "test_x.py") is None
