"""Claim tokens and other small records: one damaged byte anywhere costs one record at most,
and usually none (the copy beside the file still has it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.devices import seal, wire
from companion.devices.tokens import TokenStore
from companion.store.records import COPY_SUFFIX, read_records, write_records

COUNTERS = 5


def saved_tokens(path: Path) -> dict[int, bytes]:
    tokens = {0x1000 + n: seal.new_token(wire.random_bytes) for n in range(COUNTERS)}
    store = TokenStore(path)
    for counter_id, token in tokens.items():
        store.put(counter_id, token, place=f"ble:C0:00:00:00:00:0{counter_id % 10}")
    return tokens


def kept(path: Path, tokens: dict[int, bytes]) -> int:
    store = TokenStore(path)
    return sum(store.get(counter_id) == token for counter_id, token in tokens.items())


@pytest.mark.parametrize("copy", ["with-its-copy", "copy-gone"])
def test_one_bad_byte_anywhere_costs_at_most_one_claim(tmp_path: Path, copy: str) -> None:
    folder = tmp_path / "pristine"
    folder.mkdir()
    path = folder / "counters.json"
    tokens = saved_tokens(path)
    whole = path.read_bytes()
    losses = []
    for offset in range(0, len(whole), 3):
        trial = tmp_path / f"at-{offset}"
        trial.mkdir()
        damaged = bytearray(whole)
        damaged[offset] ^= 0x5A
        (trial / "counters.json").write_bytes(bytes(damaged))
        if copy == "with-its-copy":
            (trial / f"counters.json{COPY_SUFFIX}").write_bytes(whole)
        losses.append(COUNTERS - kept(trial / "counters.json", tokens))
    assert max(losses) <= (0 if copy == "with-its-copy" else 1), losses
    print(f"{len(losses)} damaged bytes: {sum(losses)} claims lost in all ({copy})")


def test_a_damaged_line_is_set_aside_said_and_written_back_whole(tmp_path: Path) -> None:
    path = tmp_path / "counters.json"
    tokens = saved_tokens(path)
    lines = path.read_bytes().split(b"\n")
    lines[2] = lines[2][:10] + b"#" + lines[2][11:]
    path.write_bytes(b"\n".join(lines))

    store = TokenStore(path)
    assert store.problem is not None and "kept as counters.json.damaged-" in store.problem
    assert "every token was recovered" in store.problem
    assert all(store.get(counter_id) == token for counter_id, token in tokens.items())
    assert TokenStore(path).problem is None, "written back whole"


def test_the_copy_stands_in_for_a_file_that_is_gone(tmp_path: Path) -> None:
    path = tmp_path / "counters.json"
    tokens = saved_tokens(path)
    path.unlink()
    assert kept(path, tokens) == COUNTERS
    assert path.exists()


def test_a_file_cut_short_is_seen_as_damaged(tmp_path: Path) -> None:
    path = tmp_path / "records"
    write_records(path, {f"{n:02x}": {"value": str(n)} for n in range(6)})
    whole = path.read_bytes()
    path.write_bytes(whole[: whole.rindex(b"\n", 0, len(whole) - 1) + 1])  # the last line gone
    (tmp_path / f"records{COPY_SUFFIX}").unlink()
    found = read_records(path, 10_000)
    assert found.damaged == 1 and len(found.records) == 5


@pytest.mark.parametrize("copy", ["with-its-copy", "copy-gone", "copy-damaged"])
def test_when_every_token_came_back_no_counter_is_said_to_need_claiming_again(
    tmp_path: Path, copy: str
) -> None:
    folder = tmp_path / "pristine"
    folder.mkdir()
    path = folder / "counters.json"
    tokens = saved_tokens(path)
    whole = path.read_bytes()
    beside = (folder / f"counters.json{COPY_SUFFIX}").read_bytes()
    wrong = []
    for offset in range(len(whole)):
        trial = tmp_path / f"at-{offset}"
        trial.mkdir()
        damaged = bytearray(whole)
        damaged[offset] ^= 0x5A
        (trial / "counters.json").write_bytes(bytes(damaged))
        if copy == "with-its-copy":
            (trial / f"counters.json{COPY_SUFFIX}").write_bytes(beside)
        elif copy == "copy-damaged":  # a byte gone bad in the copy's last line too
            (trial / f"counters.json{COPY_SUFFIX}").write_bytes(beside[:-3] + b"#" + beside[-2:])
        store = TokenStore(trial / "counters.json")
        every = all(store.get(counter_id) == token for counter_id, token in tokens.items())
        if every and store.problem is not None and "the others" in store.problem:
            wrong.append((offset, store.problem))
    assert wrong == []
