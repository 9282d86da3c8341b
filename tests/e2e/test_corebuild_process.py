"""Which core a fresh interpreter loads (real processes)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from server.ops import corebuild
from server.ops.corebuild import COMPILED, PURE
from tests.unit.ops.test_corebuild import ROOT, _version


def test_the_pure_switch_covers_the_compiled_server_modules() -> None:
    code = ("import server.rooms.play, server.net.sansio, server.game.engine as e;"
            "print(server.rooms.play.__file__, server.net.sansio.__file__, e.__file__)")
    env = {**os.environ, "PATIENCE_PURE": "1"}
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, check=True,
                         capture_output=True, text=True, timeout=60).stdout.split()
    assert len(out) == 3 and all(f.endswith(".py") for f in out)
    assert {"server.rooms.play", "server.net.sansio",
            "server.wire.viewcodec"} <= set(corebuild.SERVER_COMPILED)


def test_the_environment_switch_forces_the_pure_core() -> None:
    assert _version("1").endswith(f"(rules core: {PURE})\n")
    # without the switch: whatever the build made (compiled wherever a C compiler was found)
    built = _version("0")
    assert built.endswith((f"(rules core: {COMPILED})\n", f"(rules core: {PURE})\n"))


def test_the_build_is_the_one_ci_expects() -> None:
    expected = os.environ.get("PATIENCE_EXPECT_CORE")
    if not expected:
        pytest.skip("PATIENCE_EXPECT_CORE is not set (.ci/run sets it: CI machines have a C compiler)")
    assert _version("0").endswith(f"(rules core: {expected})\n")
