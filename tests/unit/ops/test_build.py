"""setup.py's decision: compile the rules core with mypyc, or stay pure Python."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from server.ops.corebuild import SERVER_COMPILED

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def build(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.chdir(ROOT)  # setup.py names the core relative to the project root
    monkeypatch.delenv("PATIENCE_PURE", raising=False)
    monkeypatch.delenv("CC", raising=False)
    spec = importlib.util.spec_from_file_location("patience_setup", ROOT / "setup.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # not as __main__: setup() itself does not run
    return module


@pytest.fixture
def mypycify(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """Records what the build asks mypyc for, instead of compiling."""
    calls: list[dict[str, Any]] = []

    def fake(paths: list[str], **options: Any) -> list[str]:
        calls.append({"paths": paths, **options})
        return ["extension"]

    monkeypatch.setattr("mypyc.build.mypycify", fake)
    return calls


def test_with_a_compiler_the_whole_core_is_compiled(build: ModuleType,
                                                    mypycify: list[dict[str, Any]]) -> None:
    assert build.extensions() == ["extension"]
    (call,) = mypycify
    sources = set(call["paths"])
    assert {"server/game/engine.py", "server/game/solver/search.py", "server/game/__init__.py"} <= sources
    # and the move path's server modules, exactly those corebuild names
    server = {p for p in sources if not p.startswith("server/game/")}
    assert server == {name.replace(".", "/") + ".py" for name in SERVER_COMPILED}
    assert "server/rooms/play.py" in server and all((ROOT / p).is_file() for p in server)
    # two named groups (the shared libraries' names), which together cover every source once
    groups = dict((name, set(paths)) for paths, name in call["separate"])
    assert set(groups) == {"patience_core", "patience_server"}
    assert groups["patience_server"] == server and groups["patience_core"] == sources - server


def test_the_switch_keeps_the_build_pure(build: ModuleType, mypycify: list[dict[str, Any]],
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATIENCE_PURE", "1")
    assert build.extensions() == [] and mypycify == []
    monkeypatch.setenv("PATIENCE_PURE", "0")
    assert build.extensions() == ["extension"]


def test_without_a_c_compiler_the_build_is_pure(build: ModuleType, mypycify: list[dict[str, Any]],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CC", "/nowhere/cc -O2")
    assert build.extensions() == [] and mypycify == []


def test_without_python_headers_the_build_is_pure(build: ModuleType, mypycify: list[dict[str, Any]],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(build, "_python_headers", lambda: False)
    assert build.extensions() == [] and mypycify == []


def test_metadata_steps_compile_nothing(build: ModuleType, mypycify: list[dict[str, Any]]) -> None:
    """pip runs setup.py for metadata first: only the build step compiles."""
    assert build.extensions(["egg_info", "--egg-base", "x"]) == [] and mypycify == []
    assert build.extensions(["dist_info"]) == [] and mypycify == []
    assert build.extensions(["editable_wheel", "--dist-dir", "d"]) == ["extension"]
    assert build.extensions(["egg_info", "build_ext"]) == ["extension"]
