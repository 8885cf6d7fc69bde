"""A damaged claim-token file is never written over: it is set aside, or left alone, and said."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.devices import seal, wire
from companion.devices.tokens import MAX_TOKENS_BYTES, TokenStore


def _saved(path: Path, tokens: dict[int, bytes]) -> bytes:
    store = TokenStore(path)
    for counter_id, token in tokens.items():
        store.put(counter_id, token)
    return path.read_bytes()


@pytest.mark.parametrize(
    "damage",
    [
        lambda whole: whole[: len(whole) // 2],  # cut off by a crash or a full disk
        lambda whole: whole[:-3] + b"\xff\xfe}",  # one bad byte
        lambda whole: b"[" * 100_000,  # nested far too deep
    ],
    ids=["truncated", "invalid-utf8", "deeply-nested"],
)
def test_an_unreadable_file_is_set_aside_before_the_next_claim_writes(tmp_path, damage):
    path = tmp_path / "counters.json"
    damaged = damage(
        _saved(path, {1: seal.new_token(wire.random_bytes), 2: seal.new_token(wire.random_bytes)})
    )
    path.write_bytes(damaged)

    store = TokenStore(path)
    assert store.problem is not None
    assert "counters.json" in store.problem and "kept as counters.json.damaged-" in store.problem
    (kept,) = tmp_path.glob("counters.json.damaged-*")
    assert kept.read_bytes() == damaged

    token = seal.new_token(wire.random_bytes)
    store.put(9, token)
    assert TokenStore(path).get(9) == token
    assert kept.read_bytes() == damaged, "the damaged copy is never touched again"


def test_readable_tokens_of_a_partly_damaged_file_are_recovered(tmp_path):
    path = tmp_path / "counters.json"
    good = seal.new_token(wire.random_bytes)
    path.write_text(json.dumps({"format": 1, "tokens": {"00000001": good.hex(), "02": "zz"}}))

    store = TokenStore(path)

    assert store.get(1) == good
    assert store.problem is not None and "1 of its 2 tokens are unreadable" in store.problem
    assert "1 counters' tokens were recovered" in store.problem
    assert TokenStore(path).get(1) == good, "the recovered token is saved at once"
    (kept,) = tmp_path.glob("counters.json.damaged-*")
    assert '"zz"' in kept.read_text()


def test_a_file_that_cannot_be_set_aside_is_left_alone(tmp_path, monkeypatch):
    path = tmp_path / "counters.json"
    path.write_text('{"format": 1, "tokens": {"01": ')

    def read_only_folder(self: Path, target: Path) -> Path:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(Path, "replace", read_only_folder)
    store = TokenStore(path)
    assert store.problem is not None
    assert "could not be set aside (Permission denied)" in store.problem
    assert "kept for this session only" in store.problem

    token = seal.new_token(wire.random_bytes)
    store.put(5, token)  # the claim still works for this session...
    assert store.get(5) == token
    assert path.read_text() == '{"format": 1, "tokens": {"01": '  # ...and the file is untouched


def test_an_oversized_file_is_not_read(tmp_path):
    path = tmp_path / "counters.json"
    with path.open("wb") as handle:
        handle.truncate(MAX_TOKENS_BYTES + 1)
    store = TokenStore(path)
    assert store.problem is not None and "larger than" in store.problem
    assert store.get(0) is None


def test_a_good_file_reports_nothing(tmp_path):
    path = tmp_path / "counters.json"
    _saved(path, {3: seal.new_token(wire.random_bytes)})
    assert TokenStore(path).problem is None
    assert list(tmp_path.glob("counters.json.damaged-*")) == []
