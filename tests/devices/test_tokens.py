"""Claim tokens survive a restart of the app and a damaged file never stops it."""

from __future__ import annotations

import pytest

from companion.devices import seal, wire
from companion.devices.tokens import TokenStore


def test_a_token_is_kept_across_restarts(tmp_path):
    token = seal.new_token(wire.random_bytes)
    TokenStore(tmp_path / "counters.json").put(0x12345678, token)

    again = TokenStore(tmp_path / "counters.json")
    assert again.get(0x12345678) == token
    assert 0x12345678 in again
    assert again.get(0x1) is None


def test_only_a_claim_kept_across_restarts_counts_as_a_counter_remembered(tmp_path):
    """The app looks for counters first only where it claimed one that keeps its claim
    (a virtual counter forgets it when it stops)."""
    path = tmp_path / "counters.json"
    store = TokenStore(path)
    assert not store.remembers_counters()
    store.put(3, seal.new_token(wire.random_bytes), save=False)  # a virtual counter
    assert not store.remembers_counters()
    store.put(9, seal.new_token(wire.random_bytes))
    assert store.remembers_counters()
    assert TokenStore(path).remembers_counters()
    store.forget(9)
    assert not TokenStore(path).remembers_counters()


def test_where_a_counter_was_claimed_is_kept_and_follows_it(tmp_path):
    path = tmp_path / "counters.json"
    TokenStore(path).put(7, seal.new_token(wire.random_bytes), place="ble:C0:00:00:00:00:01")
    store = TokenStore(path)
    assert store.place(7) == "ble:C0:00:00:00:00:01"
    store.moved(7, "ble:C0:00:00:00:00:02")
    assert TokenStore(path).place(7) == "ble:C0:00:00:00:00:02"
    store.put(7, seal.new_token(wire.random_bytes))  # claimed again, nowhere in particular
    assert TokenStore(path).place(7) is None
    store.moved(8, "ble:C0:00:00:00:00:03")  # never claimed here: nothing to follow
    assert TokenStore(path).place(8) is None


def test_forgetting_a_token_is_saved(tmp_path):
    store = TokenStore(tmp_path / "counters.json")
    store.put(7, seal.new_token(wire.random_bytes))
    store.forget(7)
    assert TokenStore(tmp_path / "counters.json").get(7) is None


def test_the_default_file_is_in_the_users_data_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_DATA_DIR", str(tmp_path / "data"))
    store = TokenStore()
    store.put(1, bytes(16))
    assert (tmp_path / "data" / "counters.json").exists()


@pytest.mark.parametrize("content", ["{oops", "[]", '{"tokens": {"zz": "00"}}', '{"tokens": 3}'])
def test_a_damaged_file_reads_as_no_tokens(tmp_path, content):
    path = tmp_path / "counters.json"
    path.write_text(content)
    store = TokenStore(path)
    assert store.get(0) is None
    store.put(3, bytes(range(16)))  # and it can be written again
    assert TokenStore(path).get(3) == bytes(range(16))


def test_a_token_of_the_wrong_size_is_refused(tmp_path):
    with pytest.raises(ValueError, match="16 bytes"):
        TokenStore(tmp_path / "counters.json").put(1, b"short")


def test_a_token_kept_for_the_session_only_is_never_written(tmp_path) -> None:
    from companion.devices.tokens import TokenStore

    path = tmp_path / "counters.json"
    store = TokenStore(path)
    store.put(1, bytes(16), save=False)  # a counter that forgets its claim when it stops
    assert store.get(1) == bytes(16)
    assert not path.exists()
    store.put(2, bytes(range(16)), place="ble:C0:00:00:00:00:02")  # a real counter's
    store.moved(1, "ble:C0:00:00:00:00:01")
    reread = TokenStore(path)
    assert reread.get(2) == bytes(range(16)) and reread.get(1) is None
    store.forget(1)
    assert store.get(1) is None and TokenStore(path).get(2) == bytes(range(16))
