"""Which rules core runs, and the switch to the pure one (server/ops/corebuild.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

import pytest

from server.cli.main import main
from server.ops import corebuild
from server.ops.corebuild import COMPILED, MIXED, PURE, SourceOnlyFinder, pure_requested, rules_core

ROOT = Path(__file__).resolve().parents[3]


def _fake_package(root: Path, name: str) -> Path:
    """A package of two modules, ``a`` with a (broken) extension module beside
    its source: finding it is enough to count as compiled, loading it fails."""
    pkg = root / name
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("WHERE = 'source'\n")
    (pkg / "b.py").write_text("")
    (pkg / f"a{EXTENSION_SUFFIXES[0]}").write_bytes(b"not a shared object")
    return pkg


def test_a_half_compiled_package_is_reported_as_such(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_package(tmp_path, "halfcore")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert rules_core("halfcore") == f"{MIXED} (pure: halfcore, halfcore.b)"
    assert corebuild.core_modules("halfcore") == ["halfcore", "halfcore.a", "halfcore.b"]


def test_the_source_only_finder_skips_the_extension_beside_a_module(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_package(tmp_path, "skipcore")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ImportError):  # the default import prefers the extension
        __import__("skipcore.a")
    for name in ("skipcore", "skipcore.a"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    finder = SourceOnlyFinder("skipcore")
    monkeypatch.setattr(sys, "meta_path", [finder, *sys.meta_path])
    module = __import__("skipcore.a", fromlist=["WHERE"])
    assert module.WHERE == "source"
    assert finder.find_spec("json", None) is None  # others are left to the usual finders
    for name in ("skipcore", "skipcore.a"):
        sys.modules.pop(name, None)


def test_the_finder_takes_the_named_modules_from_source_too(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The server's modules compiled with the core go pure with it: a compiled
    one would reach into the core's native classes."""
    _fake_package(tmp_path, "skipcore2")
    _fake_package(tmp_path, "skipserver")
    monkeypatch.syspath_prepend(str(tmp_path))
    finder = SourceOnlyFinder("skipcore2", ["skipserver.a"])
    monkeypatch.setattr(sys, "meta_path", [finder, *sys.meta_path])
    try:
        assert __import__("skipserver.a", fromlist=["WHERE"]).WHERE == "source"
        assert finder.find_spec("skipserver.b", list(sys.modules["skipserver"].__path__)) is None
    finally:
        for name in ("skipserver", "skipserver.a"):
            sys.modules.pop(name, None)


def test_the_server_modules_count_with_the_core(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A build that compiled the core but not the server's modules is partly
    compiled, and an edit to a compiled server module is noticed as stale."""
    _fake_package(tmp_path, "corepart")
    server = _fake_package(tmp_path, "serverpart")
    (server / f"b{EXTENSION_SUFFIXES[0]}").write_bytes(b"not a shared object")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(corebuild, "CORE", "corepart")
    monkeypatch.setattr(corebuild, "SERVER_COMPILED", ("serverpart.a", "serverpart.b"))
    assert corebuild.compiled_modules("corepart") == ["corepart", "corepart.a", "corepart.b",
                                                      "serverpart.a", "serverpart.b"]
    assert rules_core("corepart") == f"{MIXED} (pure: corepart, corepart.b)"
    source, built = server / "b.py", server / f"b{EXTENSION_SUFFIXES[0]}"
    os.utime(source, (1_000, 1_000))
    os.utime(built, (2_000, 2_000))
    assert "serverpart.b" not in corebuild.stale_modules("corepart")
    os.utime(source, (3_000, 3_000))
    assert "serverpart.b" in corebuild.stale_modules("corepart")


@pytest.mark.parametrize(("value", "pure"), [("1", True), ("yes", True), ("", False), ("0", False),
                                             (" 0 ", False), (None, False)])
def test_the_pure_switch(value: str | None, pure: bool) -> None:
    environ = {} if value is None else {"PATIENCE_PURE": value}
    assert pure_requested(environ) is pure


def test_the_report_matches_what_was_loaded() -> None:
    from server.game import engine, views
    from server.game.solver import search

    loaded = [m.__file__ or "" for m in (engine, views, search)]
    compiled = [f.endswith(tuple(EXTENSION_SUFFIXES)) for f in loaded]
    assert rules_core() == (COMPILED if all(compiled) else PURE)
    if pure_requested():
        assert not any(compiled)


def test_version_says_which_core_runs(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("patience-server ") and out.endswith(f"(rules core: {rules_core()})\n")


def _version(pure: str) -> str:
    env = {**os.environ, "PATIENCE_PURE": pure}
    return subprocess.run([sys.executable, "-m", "server.cli.main", "--version"], cwd=ROOT, env=env,
                          check=True, capture_output=True, text=True, timeout=60).stdout


def test_an_edit_after_the_build_is_noticed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pkg = _fake_package(tmp_path, "stalecore")
    monkeypatch.syspath_prepend(str(tmp_path))
    built = pkg / f"a{EXTENSION_SUFFIXES[0]}"
    os.utime(pkg / "a.py", (1_000, 1_000))
    os.utime(built, (2_000, 2_000))
    assert corebuild.stale_modules("stalecore") == []
    os.utime(pkg / "a.py", (3_000, 3_000))
    assert corebuild.stale_modules("stalecore") == ["stalecore.a"]


