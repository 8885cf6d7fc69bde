"""The shared codec inside the real MicroPython VM: vectors, rejections and fuzzing."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mpvm import MicroPythonVM

from companion.devices import framing, wire

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def vm() -> Iterator[MicroPythonVM]:
    machine = MicroPythonVM()
    machine.run("import vmchecks\nimport wire\nimport seal\nimport framing")
    yield machine
    machine.close()


def test_it_is_really_micropython(vm: MicroPythonVM) -> None:
    impl = vm.call("__import__('sys').implementation.name")
    assert impl == "micropython"


def test_every_vector_holds_in_micropython(vm: MicroPythonVM) -> None:
    assert vm.call("vmchecks.check_vectors('/vectors/messages.json')") == []


def test_the_same_checks_hold_in_cpython() -> None:
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent / "vmside"))
    try:
        import vmchecks
    finally:
        sys.path.pop(0)
    assert (
        vmchecks.check_vectors(str(Path(__file__).parents[1] / "vectors" / "messages.json")) == []
    )


def _fuzz_decode(vm: MicroPythonVM, inputs: list[bytes]) -> list[str]:
    return vm.call(f"vmchecks.fuzz_decode({json.dumps([d.hex() for d in inputs])})")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.binary(max_size=24), min_size=1, max_size=25))
def test_micropython_decoder_raises_only_wire_error_and_agrees_with_cpython(
    vm: MicroPythonVM, inputs: list[bytes]
) -> None:
    results = _fuzz_decode(vm, inputs)
    for data, got in zip(inputs, results, strict=True):
        assert not got.startswith("LEAK"), (data.hex(), got)
        try:
            expected = "ok:" + wire.encode(wire.decode(data)).hex()
        except wire.WireError as exc:
            expected = f"err:{exc.code}"
        assert got == expected, data.hex()


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(sorted(wire.MESSAGE_TYPES)), st.binary(max_size=17)),
        min_size=1,
        max_size=25,
    )
)
def test_micropython_decoder_on_known_types(vm: MicroPythonVM, inputs: list) -> None:
    datas = [bytes([t, 1, 0]) + rest for t, rest in inputs]
    for data, got in zip(datas, _fuzz_decode(vm, datas), strict=True):
        assert not got.startswith("LEAK"), (data.hex(), got)
        assert got.startswith("err:") or got == "ok:" + data.hex()


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(st.binary(min_size=3, max_size=20), st.integers(0, 10_000)),
        min_size=1,
        max_size=25,
    )
)
def test_micropython_deframer_never_accepts_a_corrupted_frame(vm: MicroPythonVM, cases) -> None:
    corrupted = []
    for payload, where in cases:
        good = bytearray(framing.frame(payload))
        i = where % (len(good) - 1)
        good[i] ^= 1 << (where % 8)
        corrupted.append(bytes(good))
    results = vm.call(f"vmchecks.fuzz_deframe({json.dumps([c.hex() for c in corrupted])})")
    assert results == [[] for _ in corrupted]


@settings(max_examples=30, deadline=None)
@given(st.lists(st.binary(max_size=40), min_size=1, max_size=25))
def test_micropython_deframer_survives_garbage(vm: MicroPythonVM, inputs: list[bytes]) -> None:
    results = vm.call(f"vmchecks.fuzz_deframe({json.dumps([d.hex() for d in inputs])})")
    for data, got in zip(inputs, results, strict=True):
        assert not isinstance(got, str), got
        assert got == [p.hex() for p in framing.Deframer().feed(data)]


def test_micropython_without_urandom_refuses_to_make_tokens(vm: MicroPythonVM) -> None:
    got = vm.run(
        "import os\nkept = os.urandom\ndel os.urandom\n"
        "try:\n    seal.new_token(wire.random_bytes)\n    print('made one')\n"
        "except NotImplementedError as exc:\n    print('refused', exc)\n"
        "os.urandom = kept"
    )
    assert got.startswith("refused") and "urandom" in got
    assert len(vm.call("list(seal.new_token(wire.random_bytes))")) == wire.TOKEN_SIZE
