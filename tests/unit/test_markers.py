"""Each test is marked by its folder, and the e2e tests that must not run beside
others are marked so make test can keep them apart (tests/conftest.py)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import TESTS, pytest_collection_modifyitems


@dataclass
class Collected:
    """What the hook reads and writes of a collected test: its file and its marks."""

    path: Path
    marks: list[Any] = field(default_factory=list)

    def add_marker(self, mark: Any) -> None:
        self.marks.append(mark)


def marked(relative: str) -> list[tuple[str, tuple[Any, ...]]]:
    item = Collected(TESTS / relative)
    pytest_collection_modifyitems(None, [item])  # type: ignore[arg-type, list-item]
    return [(m.name, m.args) for m in item.marks]


def test_the_folder_marks_the_kind() -> None:
    assert marked("unit/game/test_cards.py") == [("unit", ())]
    assert marked("integration/server/test_race.py") == [("integration", ())]
    assert marked("e2e/client/test_pty.py") == [("e2e", ())]


def test_cluster_and_bench_tests_run_one_after_another_and_timing_tests_run_alone() -> None:
    # every test that starts a local cluster on one worker, the bench's on another
    assert ("xdist_group", ("cluster",)) in marked("e2e/cluster/test_cluster_faults.py")
    assert ("xdist_group", ("cluster",)) in marked("e2e/bench/test_bench_cluster.py")
    assert ("xdist_group", ("bench",)) in marked("e2e/bench/test_bench_process.py")
    assert ("alone", ()) in marked("e2e/server/test_isolation.py")
    assert ("alone", ()) in marked("e2e/server/test_growth.py")
    assert marked("e2e/web/test_page.py") == [("e2e", ())]


def test_a_test_outside_the_three_folders_is_refused() -> None:
    with pytest.raises(pytest.UsageError, match="tests belong in"):
        marked("test_stray.py")
