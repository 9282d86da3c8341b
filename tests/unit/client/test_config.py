"""Resume tokens per server (and name) in the user's config directory."""

from __future__ import annotations

import json
import stat
import time
from pathlib import Path

import pytest

from client.config import CommitmentBook, KeyStore, TokenStore, server_key


def test_tokens_are_kept_per_server_and_name(tmp_path: Path) -> None:
    store = TokenStore(tmp_path)
    store.save("ws://a:1", "ann", "tok-a")
    store.save("ws://b:2", "ann", "tok-b")
    store.save("ws://a:1", "bob", "tok-bob")
    again = TokenStore(tmp_path)  # a new run reads the file
    assert again.load("ws://a:1", "ann") == "tok-a"
    assert again.load("WS://A:1/", "ann") == "tok-a"
    assert again.load("ws://b:2", "ann") == "tok-b"
    assert again.load("ws://a:1", "bob") == "tok-bob"
    assert again.load("ws://c:3", "ann") is None
    again.forget("ws://a:1", "ann")
    assert TokenStore(tmp_path).load("ws://a:1", "ann") is None
    assert TokenStore(tmp_path).load("ws://a:1", "bob") == "tok-bob"


def test_file_is_private(tmp_path: Path) -> None:
    store = TokenStore(tmp_path / "cfg")
    store.save("ws://a:1", "ann", "secret")
    assert store.path is not None
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600
    assert json.loads(store.path.read_text())[server_key("ws://a:1")]["ann"]["token"] == "secret"


def test_default_dir_is_the_user_config_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    store = TokenStore()
    store.save("ws://a:1", "ann", "t")
    assert (tmp_path / "patience-race" / "tokens.json").exists()


def test_release_keeps_the_token_for_the_next_run(tmp_path: Path) -> None:
    store = TokenStore(tmp_path)
    store.save("ws://a:1", "ann", "t")
    store.release("ws://a:1", "ann")
    data = json.loads((tmp_path / "tokens.json").read_text())
    assert data[server_key("ws://a:1")]["ann"]["pid"] is None
    assert TokenStore(tmp_path).load("ws://a:1", "ann") == "t"


def test_old_tokens_are_ignored(tmp_path: Path) -> None:
    entry = {"token": "old", "pid": None, "saved_at": int(time.time()) - 3 * 24 * 3600}
    (tmp_path / "tokens.json").write_text(json.dumps({server_key("ws://a:1"): {"ann": entry}}))
    assert TokenStore(tmp_path).load("ws://a:1", "ann") is None


def test_a_broken_or_unwritable_config_costs_only_persistence(tmp_path: Path) -> None:
    (tmp_path / "tokens.json").write_text("{not json")
    store = TokenStore(tmp_path)
    assert store.load("ws://a:1", "ann") is None
    blocked = tmp_path / "file"
    blocked.write_text("")
    odd = TokenStore(blocked / "sub")  # a directory under a file cannot be made
    odd.save("ws://a:1", "ann", "t")
    assert odd.load("ws://a:1", "ann") == "t"  # kept in memory for this run
    memory = TokenStore.in_memory()
    memory.save("ws://a:1", "ann", "m")
    assert memory.load("ws://a:1", "ann") == "m" and memory.path is None
    assert not any(p.name.startswith(".tokens-") for p in tmp_path.iterdir())


def test_keys_are_kept_per_server_and_name_privately(tmp_path: Path) -> None:
    keys = KeyStore(tmp_path / "cfg")
    keys.save("ws://a:1", "Ann", "key-a")
    keys.save("ws://b:2", "ann", "key-b")
    again = KeyStore(tmp_path / "cfg")
    assert again.load("WS://A:1/", "Ann") == "key-a"
    assert again.load("ws://a:1", "ann") == "key-a"  # the server matches names whatever the case
    assert again.load("ws://b:2", "ann") == "key-b"
    assert again.load("ws://a:1", "bob") is None and again.load("ws://c:3", "ann") is None
    assert again.path is not None and stat.S_IMODE(again.path.stat().st_mode) == 0o600
    assert stat.S_IMODE(again.path.parent.stat().st_mode) == 0o700
    again.save("ws://a:1", "ann", "key-a2")  # claimed again under another spelling: one entry
    assert json.loads(again.path.read_text())[server_key("ws://a:1")] == {
        "ann": {"key": "key-a2", "saved_at": pytest.approx(time.time(), abs=5)}}
    # keys never expire, unlike tokens
    data = json.loads(again.path.read_text())
    data[server_key("ws://a:1")]["ann"]["saved_at"] = 0
    again.path.write_text(json.dumps(data))
    assert KeyStore(tmp_path / "cfg").load("ws://a:1", "ann") == "key-a2"


def test_ratings_are_remembered_for_claimed_names_only(tmp_path: Path) -> None:
    keys = KeyStore(tmp_path)
    keys.save("ws://a:1", "ann", "k")
    keys.save_rating("ws://a:1", "ANN", 3.25)
    keys.save_rating("ws://a:1", "bob", 1.0)
    assert KeyStore(tmp_path).rating("ws://a:1", "ann") == 3.25
    assert KeyStore(tmp_path).rating("ws://a:1", "bob") is None
    assert KeyStore(tmp_path).load("ws://a:1", "ann") == "k"
    memory = KeyStore.in_memory()
    memory.save("ws://a:1", "ann", "m")
    assert memory.load("ws://a:1", "ann") == "m" and memory.path is None


def test_commitments_keep_the_first_seen_of_the_last_week(tmp_path: Path) -> None:
    book = CommitmentBook(tmp_path)
    book.note("ws://a:1", "2026-11-30", "czarina", "first")
    book.note("ws://a:1", "2026-11-30", "czarina", "changed later")
    assert CommitmentBook(tmp_path).seen("ws://a:1", "2026-11-30", "czarina") == "first"
    assert book.seen("ws://a:1", "2026-11-30", "corners") is None
    for day in range(1, 10):
        book.note("ws://a:1", f"2026-12-{day:02d}", "czarina", f"c{day}")
    kept = json.loads((tmp_path / "commitments.json").read_text())[server_key("ws://a:1")]
    assert sorted(kept) == [f"2026-12-{d:02d}|czarina" for d in range(3, 10)]
    assert stat.S_IMODE((tmp_path / "commitments.json").stat().st_mode) == 0o600
