"""The import contracts stay true to the code: the rules core's forbidden list
names every third-party dependency, and the core's own imports are the standard
library's or its own."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path
from typing import cast

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def _contract(name_start: str) -> dict[str, object]:
    for contract in PYPROJECT["tool"]["importlinter"]["contracts"]:
        if contract["name"].startswith(name_start):
            return dict(contract)
    raise AssertionError(f"no contract named {name_start!r}")


def _dependency_modules() -> set[str]:
    """The top-level import names of every dependency the server installs."""
    wanted = {re.split(r"[\s<>=;!~\[]", spec, maxsplit=1)[0].lower().replace("_", "-")
              for spec in PYPROJECT["project"]["dependencies"]}
    modules = {module for module, dists in packages_distributions().items()
               if any(d.lower().replace("_", "-") in wanted for d in dists)
               and not module.startswith("_") and module.isidentifier()}
    return modules


def test_the_cores_forbidden_list_names_every_dependency() -> None:
    forbidden = set(cast("list[str]", _contract("the rules core")["forbidden_modules"]))
    modules = _dependency_modules()
    assert {"websockets", "redis", "msgpack"} <= modules  # the lookup itself works
    assert modules <= forbidden, sorted(modules - forbidden)


def test_the_core_imports_the_standard_library_and_itself_only() -> None:
    seen: dict[str, str] = {}
    for path in sorted((ROOT / "server" / "game").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top not in sys.stdlib_module_names and not name.startswith("server.game"):
                    seen[name] = str(path.relative_to(ROOT))
    assert not seen, seen


def test_the_layers_are_packages_not_modules() -> None:
    layers = _contract("the server's layers")["layers"]
    packages = {p.name for p in (ROOT / "server").iterdir() if (p / "__init__.py").exists()}
    named = {part.strip() for layer in layers for part in str(layer).split(":")}  # type: ignore[attr-defined]
    assert named == packages | {"app"}, named ^ (packages | {"app"})
