"""Build: compile the rules core (``server/game/``, solver included) with mypyc,
and with it the server's modules on the move path (``SERVER_COMPILED`` in
``server/ops/corebuild.py``: the one list, read from there).

Everything else about the package lives in pyproject.toml; this file only adds
the extension modules. The same typed Python source is compiled, so the pure
modules remain a complete fallback: the build stays pure when no C compiler is
found, when mypyc is missing, or when ``PATIENCE_PURE=1`` is set. At run time
``PATIENCE_PURE=1`` also makes the interpreter skip the compiled modules (see
``server/ops/corebuild.py``), which is how the game tests run on both paths.
"""

from __future__ import annotations

import importlib.util
import os
import shlex
import shutil
import sys
import sysconfig
from pathlib import Path

from setuptools import setup

CORE = Path("server") / "game"
# -O2 rather than mypyc's default -O3: the C build is shorter, and callgrind
# counted no fewer instructions per move of the rules path at -O3 worth it
# (docs/benchmarks.md, "Build settings"). Overridable for experiments.
OPT_LEVEL = os.environ.get("PATIENCE_MYPYC_OPT", "2")


def _say(message: str) -> None:
    # pip shows a build backend's stderr with -v; keep it to one line per decision
    print(f"patience-race build: {message}", file=sys.stderr)


def _pure_requested() -> bool:
    return os.environ.get("PATIENCE_PURE", "").strip() not in ("", "0")


def _c_compiler() -> str | None:
    """The C compiler setuptools would call, if it is on PATH."""
    cc = os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc"
    words = shlex.split(cc)
    return shutil.which(words[0]) if words else None


def _python_headers() -> bool:
    # a compiler without Python.h (no python3-dev) cannot build extensions
    return (Path(sysconfig.get_paths()["include"]) / "Python.h").exists()


def _server_sources() -> list[str]:
    """The server's modules compiled with the core, as source paths."""
    spec = importlib.util.spec_from_file_location("patience_corebuild",
                                                  Path("server") / "ops" / "corebuild.py")
    assert spec is not None and spec.loader is not None
    corebuild = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(corebuild)  # plain Python, the standard library only
    return [str(Path(*name.split("."))) + ".py" for name in corebuild.SERVER_COMPILED]


def _core_sources() -> list[str]:
    return sorted(str(p) for p in CORE.rglob("*.py")) + _server_sources()


# Commands that only write metadata: pip runs this file once per build phase, and
# compiling the core for these would triple the install's time for nothing.
METADATA_ONLY = frozenset({"egg_info", "dist_info", "sdist"})
BUILDS = frozenset({"build", "build_ext", "bdist_wheel", "editable_wheel", "develop", "install"})


def extensions(argv: list[str] | None = None) -> list[object]:
    args = set(sys.argv[1:] if argv is None else argv)
    if args & METADATA_ONLY and not args & BUILDS:
        return []
    if _pure_requested():
        _say("PATIENCE_PURE is set: pure Python")
        return []
    if _c_compiler() is None:
        _say("no C compiler found: pure Python")
        return []
    if not _python_headers():
        _say("no Python headers (Python.h) found: pure Python")
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        _say("mypyc is not installed: pure Python")
        return []
    _say(f"compiling {CORE} and the move path's server modules with mypyc (opt level {OPT_LEVEL})")
    # Two named groups, the core and the server's modules: the shared libraries get
    # stable names (patience_core__mypyc.*.so, patience_server__mypyc.*.so) instead
    # of hashes, and build_ext compiles the two C files side by side (one group
    # took about twice the wall time on two cores; a call from the server's group
    # into the core's is still a native call, only not inlined).
    core = sorted(str(p) for p in CORE.rglob("*.py"))
    server = _server_sources()
    exts: list[object] = mypycify(core + server, opt_level=OPT_LEVEL,
                                  separate=[(core, "patience_core"), (server, "patience_server")])
    return exts


# setuptools runs this file as __main__; the guard lets tests import it
if __name__ == "__main__":
    setup(ext_modules=extensions(), options={"build_ext": {"parallel": os.cpu_count() or 1}})
