"""The session cryptography inside the real MicroPython VM: vectors, and agreement with CPython."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mpvm import MicroPythonVM

from companion.devices import seal

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def vm() -> Iterator[MicroPythonVM]:
    machine = MicroPythonVM()
    machine.run("import sealchecks\nimport seal")
    yield machine
    machine.close()


def test_it_is_really_micropython_with_the_boards_copy(vm: MicroPythonVM) -> None:
    assert vm.call("__import__('sys').implementation.name") == "micropython"
    assert vm.call("seal.__file__") == "/flash/seal.py"


def test_micropython_hmac_matches_cpython_with_a_key_longer_than_a_block(vm: MicroPythonVM) -> None:
    key = bytes(range(70))
    got = vm.call(f"list(seal.hmac_sha256(bytes({list(key)}), b'abc'))")
    assert bytes(got) == seal.hmac_sha256(key, b"abc")


def test_every_session_vector_holds_in_micropython(vm: MicroPythonVM) -> None:
    assert vm.call("sealchecks.check_vectors('/vectors/sessions.json')") == []


@settings(max_examples=30, deadline=None)
@given(
    st.binary(min_size=32, max_size=32),
    st.sampled_from([seal.TO_COUNTER, seal.TO_APP]),
    st.lists(st.binary(max_size=20), min_size=1, max_size=20),
)
def test_micropython_seals_exactly_like_cpython(
    vm: MicroPythonVM, key: bytes, direction: int, messages: list[bytes]
) -> None:
    hexes = json.dumps([m.hex() for m in messages])
    got = vm.call(f"sealchecks.seal_many({key.hex()!r}, {direction}, {hexes})")
    sealer = seal.Sealer(key, direction)
    for message, result in zip(messages, got, strict=True):
        if len(message) + seal.TAG_SIZE > seal.MESSAGE_LIMIT:
            assert result == "err"
        else:
            assert result == sealer.seal(message).hex()


@settings(max_examples=30, deadline=None)
@given(st.binary(min_size=32, max_size=32), st.lists(st.binary(max_size=24), max_size=20))
def test_micropython_opens_only_what_cpython_opens(
    vm: MicroPythonVM, key: bytes, inputs: list[bytes]
) -> None:
    sender = seal.Sealer(key, seal.TO_APP)
    inputs = inputs + [sender.seal(m[:17]) for m in inputs]
    hexes = json.dumps([d.hex() for d in inputs])
    got = vm.call(f"sealchecks.open_many({key.hex()!r}, 0, {hexes})")
    receiver = seal.Sealer(key, seal.TO_COUNTER)
    for data, result in zip(inputs, got, strict=True):
        want = receiver.open(data)
        assert result == (None if want is None else want.hex())
