"""Names' keys are kept per server (welcome.server_id), not per spelling of its address."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from client.app import KEY_ON_COMMAND_LINE, parse_args
from client.config import CommitmentBook, KeyStore, ServerBook, TokenStore
from client.connection import ClientSession, NameTaken
from tests.support.fakeserver import FakeServer

SID = "5e1f0c0ffee0d15ea5e0b0a7"


@pytest.fixture
async def fake() -> AsyncIterator[FakeServer]:
    server = await FakeServer(server_id=SID).start()
    yield server
    await server.stop()


def session(url: str, tmp_path: Path, name: str = "ann", key: str | None = None) -> ClientSession:
    return ClientSession(url, name, tokens=TokenStore(tmp_path), keys=KeyStore(tmp_path),
                         commitments=CommitmentBook(tmp_path), servers=ServerBook(tmp_path), key=key,
                         backoff_initial=0.02, backoff_max=0.2, open_timeout=2)


def other_spelling(url: str) -> str:
    return url.replace("127.0.0.1", "localhost")


async def test_a_name_claimed_on_one_address_is_yours_on_another(fake: FakeServer, tmp_path: Path) -> None:
    s = session(fake.url, tmp_path)
    await s.connect()
    try:
        await s.claim()
        await s.wait_for(lambda st: st.claimed)
    finally:
        await s.close()
    kept = json.loads((tmp_path / "keys.json").read_text())
    assert list(kept) == [f"id:{SID}"]  # filed by the server, not by the address

    again = session(other_spelling(fake.url), tmp_path)  # never seen: asks the server who it is
    await again.connect()
    try:
        assert again.state.claimed and fake.hellos[-1]["key"] == fake.claimed["ann"]
        assert fake.hellos[-2] == {"t": "hello", "proto": 1}  # the question carries no name, no key
        assert ServerBook(tmp_path).id_of(other_spelling(fake.url)) == SID
    finally:
        await again.close()
    third = session(other_spelling(fake.url), tmp_path)  # now known: the key goes in the first hello
    hellos = len(fake.hellos)
    await third.connect()
    try:
        assert third.state.claimed and len(fake.hellos) == hellos + 1
    finally:
        await third.close()


async def test_keys_kept_by_address_move_under_the_id(fake: FakeServer, tmp_path: Path) -> None:
    fake.claimed["ann"] = "k-ann"
    KeyStore(tmp_path).save(fake.url, "ann", "k-ann")  # an older client filed it by address
    CommitmentBook(tmp_path).note(fake.url, "2026-11-29", "czarina", "ab" * 32)
    s = session(fake.url, tmp_path)
    await s.connect()
    try:
        assert s.state.claimed
    finally:
        await s.close()
    assert json.loads((tmp_path / "keys.json").read_text()) == {
        f"id:{SID}": {"ann": {"key": "k-ann", "saved_at": pytest.approx(0, abs=10**10)}}}
    assert CommitmentBook(tmp_path).seen(f"id:{SID}", "2026-11-29", "czarina") == "ab" * 32
    assert KeyStore(tmp_path).load(other_spelling(fake.url), "ann") is None  # by address: gone


async def test_a_key_is_never_sent_to_another_server(fake: FakeServer, tmp_path: Path) -> None:
    KeyStore(tmp_path).save(f"id:{'0' * 24}", "ann", "k-elsewhere")  # a key of another server
    fake.claimed["ann"] = "k-here"
    with pytest.raises(NameTaken):
        await session(fake.url, tmp_path).connect()
    assert all("key" not in h for h in fake.hellos)


def test_the_key_is_read_from_a_file_the_environment_or_a_warned_flag(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("PATIENCE_KEY", raising=False)
    path = tmp_path / "key"
    path.write_text(" k-file \n")
    assert parse_args(["--key-file", str(path)]).key == "k-file"
    assert parse_args([]).key is None
    monkeypatch.setenv("PATIENCE_KEY", "k-env")
    assert parse_args([]).key == "k-env"
    assert capsys.readouterr().err == ""
    assert parse_args(["--key", "k-argv"]).key == "k-argv"  # still works, but says why not
    assert capsys.readouterr().err.strip() == KEY_ON_COMMAND_LINE
    monkeypatch.setattr("getpass.getpass", lambda prompt: "k-typed")
    assert parse_args(["--ask-key"]).key == "k-typed"
    with pytest.raises(SystemExit):
        parse_args(["--key-file", str(path), "--ask-key"])
    with pytest.raises(SystemExit):
        parse_args(["--key", "k" * 65])
