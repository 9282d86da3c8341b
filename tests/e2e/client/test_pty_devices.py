"""A name moved between real client processes, against a real ``patience-server``
and Redis: claimed in one terminal (its recovery codes shown once), linked to a
second with a link code, the second's key revoked from the first, and the name
recovered on a third with a recovery code, which shuts the first out too."""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.client.test_pty import PATIENCE, Terminal
from tests.support.served import SERVER, Served, served

pytestmark = pytest.mark.skipif(not (PATIENCE.exists() and SERVER.exists()),
                                reason="the console scripts are not installed")

SMALL = (24, 80)
RECOVERY = re.compile(r"\b([0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4})\b")
LINK = re.compile(r"Link code ([0-9A-Z]{4}-[0-9A-Z]{4})")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Served]:
    with served(tmp_path) as running:
        yield running


def terminal(server: Served, config: Path, name: str, *extra: str) -> Terminal:
    return Terminal(["--server", server.url, "--name", name, *extra], config, SMALL)


def refused(server: Served, config: Path, name: str) -> str:
    """Start a client with the key kept in ``config``: the server refuses it."""
    term = terminal(server, config, name)
    status = term.finish(10)
    assert status == 1, term.raw
    return term.raw


def test_claim_link_revoke_and_recover_across_client_processes(server: Served, tmp_path: Path) -> None:
    name = f"ann{secrets.token_hex(2)}"
    first, second, third = (tmp_path / f"cfg-{n}" for n in ("laptop", "phone", "newpc"))
    laptop = terminal(server, first, name)
    try:
        laptop.wait_text("1  Quick race")
        laptop.child.send("7")
        laptop.wait_text("name to claim")
        laptop.child.send("\r")
        laptop.wait_text("shown this once")
        codes = RECOVERY.findall(laptop.text)
        assert len(codes) == 8, laptop.text
        laptop.child.send("\r")  # written down
        laptop.wait(lambda: "1  Quick race" in laptop.text and "shown this once" not in laptop.text)
        assert f"as {name} (claimed)" in laptop.text
        laptop.child.send("d")
        laptop.wait_text("this device")
        laptop.child.send("l")
        laptop.wait(lambda: LINK.search(laptop.text) is not None)
        found = LINK.search(laptop.text)
        assert found is not None
        phone = terminal(server, second, name, "--link", found.group(1))
        try:
            phone.wait_text(f"as {name} (claimed)", timeout=10)
            phone.child.send("q")
            assert phone.finish() == 0
        finally:
            phone.child.close(force=True)
        # the phone's key is kept: it signs in by itself
        phone = terminal(server, second, name)
        try:
            phone.wait_text(f"as {name} (claimed)", timeout=10)
            phone.child.send("q")
            assert phone.finish() == 0
        finally:
            phone.child.close(force=True)
        laptop.child.send("u")
        laptop.wait(lambda: "   2  terminal on" in laptop.text)
        laptop.child.send("x")
        laptop.wait_text("number of the device to revoke")
        laptop.child.send("2\r")
        laptop.wait(lambda: "   2  terminal on" not in laptop.text and "   1  terminal on" in laptop.text)
        laptop.child.send("q")  # back to the lobby's menu
        laptop.wait_text("1  Quick race")
        laptop.child.send("q")
        assert laptop.finish() == 0
    finally:
        laptop.child.close(force=True)
    assert "refused the key kept for it" in refused(server, second, name)
    # every device lost: a recovery code on a new one, which revokes the laptop's key too
    newpc = terminal(server, third, name, "--recover", codes[5].lower())
    try:
        newpc.wait_text(f"as {name} (claimed)", timeout=10)
        newpc.wait_text("every other device's key is revoked")
        newpc.child.send("q")
        assert newpc.finish() == 0
    finally:
        newpc.child.close(force=True)
    assert "refused the key kept for it" in refused(server, first, name)
