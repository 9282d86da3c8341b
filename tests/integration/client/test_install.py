"""The install id: made at first launch, kept, sent in hello; the server counts the
daily's practice against it, so a name claimed after practising is not ranked."""

from __future__ import annotations

import stat
from pathlib import Path

from client.config import install_id
from client.connection import ClientSession
from tests.integration.client.test_e2e_daily import VARIANT, player, server_url, unique

__all__ = ["server_url"]  # the fixture, shared with the daily's end-to-end tests


def test_the_install_id_is_made_once_and_kept_private(tmp_path: Path) -> None:
    first = install_id(tmp_path)
    assert len(first) >= 32 and install_id(tmp_path) == first
    assert stat.S_IMODE((tmp_path / "install").stat().st_mode) == 0o600
    assert install_id(tmp_path / "elsewhere") != first


def test_an_unwritable_config_directory_still_gives_an_id(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    assert install_id(blocked)


async def _daily(s: ClientSession) -> dict[str, object]:
    await s.daily(VARIANT)
    await s.wait_for(lambda st: (st.room or {}).get("daily") is not None, 60)
    await s.ready()
    await s.wait_for(lambda st: st.view is not None, 10)
    await s.resign()
    await s.wait_for(lambda st: st.results is not None, 10)
    return dict(s.state.results or {})


async def test_practice_as_a_guest_then_a_claimed_name_on_the_same_install_is_not_ranked(
        server_url: str, tmp_path: Path) -> None:
    home = tmp_path / "home"
    device = install_id(home)
    guest = player(server_url, unique("guest"), home)
    guest.device = device
    await guest.connect()
    try:
        assert (await _daily(guest))["ranked"] is False
    finally:
        await guest.close(keep_seat=False)
    name = unique("gil")
    later = player(server_url, name, home)
    later.device = device
    await later.connect()
    try:
        await later.claim()
        await later.wait_for(lambda st: st.claimed, 10)
        results = await _daily(later)
        assert results["ranked"] is False
        assert str(results["share"]).endswith("(practice)")
    finally:
        await later.close(keep_seat=False)
