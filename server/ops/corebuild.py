"""Which rules core runs: the mypyc-compiled ``server.game`` or its pure source.

The build (setup.py) compiles ``server/game/`` to extension modules that sit
beside the ``.py`` files they came from, and with it the server's modules on
the move path (:data:`SERVER_COMPILED`); Python's import system prefers an
extension module to a source file of the same name, so a compiled build runs
compiled. ``PATIENCE_PURE=1`` at run time turns that preference around for all
of them: :func:`install_pure_finder` (called from ``server/__init__.py``,
before anything can import them) puts a finder first on ``sys.meta_path``
that loads ``server.game``, its submodules and the server's compiled modules
from source only. That is how one build can run the tests on both paths. The
two go together: a compiled server module reaches into the core's native
classes, so it never runs beside a pure core.

This module lives outside ``server/game/`` on purpose: it must work, and be
plain Python, whichever core is loaded.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Mapping, Sequence
from importlib.abc import MetaPathFinder
from importlib.machinery import EXTENSION_SUFFIXES, SOURCE_SUFFIXES, FileFinder, ModuleSpec, SourceFileLoader
from pathlib import Path
from types import ModuleType

CORE: str = "server.game"
# The server's modules compiled with the core, in their own mypyc group beside the
# core's (setup.py reads this list): each runs once or more per move, and compiled they take about
# a good share off the server's CPU per move (docs/benchmarks.md).
SERVER_COMPILED: tuple[str, ...] = (
    "server.ops.aio", "server.ops.clock", "server.ops.limits",
    "server.race.rows", "server.race.rules",
    "server.wire.protocol", "server.wire.viewcodec",
    "server.store.batch", "server.store.keys", "server.store.resp", "server.store.rooms",
    "server.net.connection", "server.net.frames", "server.net.outbox", "server.net.sansio",
    "server.net.sansio_server",
    "server.rooms.hub", "server.rooms.play", "server.rooms.player", "server.rooms.progress",
    "server.rooms.session", "server.rooms.verdicts",
    "server.handlers.endpoint",
)
PURE_ENV: str = "PATIENCE_PURE"
COMPILED, PURE, MIXED = "compiled", "pure Python", "partly compiled"


def pure_requested(environ: Mapping[str, str] | None = None) -> bool:
    """True when ``PATIENCE_PURE`` asks for the pure core ("", "0": no)."""
    value = (os.environ if environ is None else environ).get(PURE_ENV, "")
    return value.strip() not in ("", "0")


class SourceOnlyFinder(MetaPathFinder):
    """Finds the modules of ``package`` (a subpackage, never a top-level one)
    and the ``modules`` named (never top-level ones) among ``.py`` files only,
    so compiled extension modules beside them are never loaded."""

    def __init__(self, package: str = CORE, modules: Sequence[str] = ()) -> None:
        self.package = package
        self.modules = frozenset(modules)

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        ours = fullname == self.package or fullname.startswith(self.package + ".") \
            or fullname in self.modules
        if not ours or path is None:
            return None
        for entry in path:
            spec = FileFinder(entry, (SourceFileLoader, SOURCE_SUFFIXES)).find_spec(fullname)
            if spec is not None and spec.loader is not None:
                return spec
        return None


def install_pure_finder() -> bool:
    """Put :class:`SourceOnlyFinder` first on ``sys.meta_path`` if the
    environment asks for the pure core; idempotent. True if it is installed."""
    if not pure_requested():
        return False
    if not any(isinstance(f, SourceOnlyFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, SourceOnlyFinder(CORE, SERVER_COMPILED))
    return True


def core_modules(package: str = CORE) -> list[str]:
    """The dotted names of every module of ``package``, from its source files."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ImportError(f"{package} is not an importable package")
    root = Path(list(spec.submodule_search_locations)[0])
    names = []
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names.append(".".join([package, *parts]))
    return names


def compiled_modules(package: str = CORE) -> list[str]:
    """What the build compiles: the modules of ``package`` and, for the rules
    core, the server's modules compiled with it."""
    return core_modules(package) + (list(SERVER_COMPILED) if package == CORE else [])


def is_compiled(name: str) -> bool:
    """Whether the module ``name`` is (or would be) loaded from an extension."""
    spec = importlib.util.find_spec(name)
    origin = spec.origin if spec is not None else None
    return origin is not None and origin.endswith(tuple(EXTENSION_SUFFIXES))


def stale_modules(package: str = CORE) -> list[str]:
    """Modules whose source changed after their extension module was built, in
    a source tree built in place (``pip install -e .``): Python would load the
    old compiled code. (Not for installed wheels: an installer need not keep
    the build's file times.)"""
    stale = []
    for name in compiled_modules(package):
        spec = importlib.util.find_spec(name)
        origin = spec.origin if spec is not None else None
        if origin is None or not origin.endswith(tuple(EXTENSION_SUFFIXES)):
            continue
        built = Path(origin)
        stem = built.name.split(".")[0]
        source = built.parent / ("__init__.py" if stem == "__init__" else f"{stem}.py")
        if source.exists() and source.stat().st_mtime > built.stat().st_mtime:
            stale.append(name)
    return stale


def rules_core(package: str = CORE) -> str:
    """``compiled``, ``pure Python``, or ``partly compiled (…)`` naming the
    pure modules (a build that went wrong half way: worth saying loudly). The
    server's modules compiled with the core count with it."""
    modules = compiled_modules(package)
    pure = [m for m in modules if not is_compiled(m)]
    if not pure:
        return COMPILED
    if len(pure) == len(modules):
        return PURE
    return f"{MIXED} (pure: {', '.join(pure)})"


__all__ = ["COMPILED", "MIXED", "PURE", "PURE_ENV", "SERVER_COMPILED", "SourceOnlyFinder",
           "compiled_modules", "core_modules",
           "install_pure_finder", "is_compiled", "pure_requested", "rules_core", "stale_modules"]
