"""The session cryptography under CPython: its vectors, and agreement with the standard library."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.devices import seal, wire

VECTORS_PATH = Path(__file__).parents[1] / "vectors" / "sessions.json"
VECTORS = json.loads(VECTORS_PATH.read_text())
VMSIDE = Path(__file__).parents[1] / "firmware" / "vmside"


def test_every_session_vector_holds() -> None:
    sys.path.insert(0, str(VMSIDE))
    try:
        import sealchecks
    finally:
        sys.path.pop(0)
    assert sealchecks.check_vectors(str(VECTORS_PATH)) == []


def test_the_vectors_agree_with_the_standard_library_hmac() -> None:
    # The vectors were not written by the module they check: recompute them here.
    labels = {
        "app": b"munchkin-counter-v2 app proof",
        "counter": b"munchkin-counter-v2 counter proof",
        "key": b"munchkin-counter-v2 session key",
    }
    for v in VECTORS["sessions"]:
        token = bytes.fromhex(v["token"])
        script = bytes.fromhex(v["transcript"])

        def mac(key: bytes, data: bytes) -> bytes:
            return hmac.new(key, data, hashlib.sha256).digest()

        assert mac(token, labels["app"] + script)[:8].hex() == v["app_proof"]
        peer = bytes.fromhex(v["app_link_id"])
        assert mac(token, labels["counter"] + script + peer)[:8].hex() == v["counter_proof"]
        key = mac(token, labels["key"] + script)
        assert key.hex() == v["session_key"]
        for m in v["sealed"]:
            message = bytes.fromhex(m["message"])
            tag = mac(key, bytes([m["direction"]]) + message)[:3]
            assert (message + tag).hex() == m["sealed"], m["what"]


@given(st.binary(max_size=200), st.binary(max_size=300))
def test_hmac_matches_the_standard_library(key: bytes, data: bytes) -> None:
    assert seal.hmac_sha256(key, data) == hmac.new(key, data, hashlib.sha256).digest()


@given(st.binary(min_size=32, max_size=32), st.binary(min_size=1, max_size=17))
def test_what_one_side_seals_only_the_other_side_opens(key: bytes, message: bytes) -> None:
    app = seal.Sealer(key, seal.TO_COUNTER)
    counter = seal.Sealer(key, seal.TO_APP)
    sealed = app.seal(message)
    assert len(sealed) == len(message) + seal.TAG_SIZE <= wire.MAX_MESSAGE
    assert counter.open(sealed) == message
    assert app.open(sealed) is None  # a message sent back to its sender is refused
    other = seal.Sealer(bytes(b ^ 1 for b in key), seal.TO_APP)
    assert other.open(sealed) is None  # another session's key


@given(st.binary(min_size=32, max_size=32), st.binary(min_size=1, max_size=17), st.data())
def test_any_single_bit_of_damage_is_refused(key: bytes, message: bytes, data) -> None:
    sealed = bytearray(seal.Sealer(key, seal.TO_APP).seal(message))
    index = data.draw(st.integers(0, len(sealed) - 1))
    sealed[index] ^= 1 << data.draw(st.integers(0, 7))
    assert seal.Sealer(key, seal.TO_COUNTER).open(bytes(sealed)) is None


def test_a_message_that_does_not_fit_with_its_tag_is_refused() -> None:
    sealer = seal.Sealer(bytes(32), seal.TO_COUNTER)
    assert len(sealer.seal(bytes(17))) == wire.MAX_MESSAGE
    with pytest.raises(seal.SealError, match="at most 17 bytes"):
        sealer.seal(bytes(18))
    assert sealer.open(bytes(21)) is None
    assert sealer.open(bytes(3)) is None  # a tag with no message


def test_sizes_agree_with_the_message_layouts() -> None:
    assert seal.TOKEN_SIZE == wire.TOKEN_SIZE
    assert seal.COUNTER_NONCE_SIZE == wire.NONCE_SIZE
    assert seal.MESSAGE_LIMIT == wire.MAX_MESSAGE
    assert seal.TRANSCRIPT_SIZE == 34


def test_wrong_sizes_are_refused_with_the_field_named() -> None:
    with pytest.raises(seal.SealError, match="counter nonce must be 16 bytes"):
        seal.transcript(bytes(15), bytes(8), 1, seal.NO_LINK_ID)
    with pytest.raises(seal.SealError, match="app nonce must be 8 bytes"):
        seal.transcript(bytes(16), bytes(16), 1, seal.NO_LINK_ID)
    with pytest.raises(seal.SealError, match="counter id"):
        seal.transcript(bytes(16), bytes(8), -1, seal.NO_LINK_ID)
    with pytest.raises(seal.SealError, match="token must be 16 bytes"):
        seal.app_proof(bytes(15), bytes(34))
    with pytest.raises(seal.SealError, match="transcript must be 34 bytes"):
        seal.session_key(bytes(16), bytes(33))
    with pytest.raises(seal.SealError, match="direction"):
        seal.Sealer(bytes(32), 2)


@given(st.binary(min_size=16, max_size=16))
def test_strength_is_the_measure_the_protocol_states(token: bytes) -> None:
    steps = {(token[i + 1] - token[i]) % 256 for i in range(15)}
    drawn = (
        len(set(token)) >= 12
        and len(steps) >= 12
        and any(not 0x20 <= byte <= 0x7E for byte in token)
    )
    assert seal.token_is_strong(token) == drawn


@pytest.mark.parametrize(
    "made_up",
    [
        bytes(range(200, 208)) * 2,  # an 8-byte pattern, twice
        b"password12345678",  # typed
        bytes(range(1, 17)),  # a run
        bytes(range(0, 240, 15)),  # a stride
        bytes([0x9C, 0x11, 0xE4, 0x2A]) * 4,  # a short random-looking pattern
    ],
)
def test_made_up_tokens_are_weak(made_up: bytes) -> None:
    assert not seal.token_is_strong(made_up)


def test_the_app_never_makes_a_weak_token() -> None:
    tokens = [seal.new_token(os.urandom) for _ in range(2000)]
    assert all(seal.token_is_strong(token) for token in tokens)
    assert len(set(tokens)) == len(tokens)


def test_text_is_never_a_token() -> None:
    assert not seal.token_is_strong("0123456789abcdef")
    assert not seal.token_is_strong(None)


def test_proofs_and_keys_differ_for_every_input() -> None:
    token = bytes(range(1, 17))
    base = seal.transcript(bytes(16), bytes(8), 7, seal.NO_LINK_ID)
    variants = [
        seal.transcript(bytes([1]) + bytes(15), bytes(8), 7, seal.NO_LINK_ID),
        seal.transcript(bytes(16), bytes([1]) + bytes(7), 7, seal.NO_LINK_ID),
        seal.transcript(bytes(16), bytes(8), 8, seal.NO_LINK_ID),
        seal.transcript(bytes(16), bytes(8), 7, seal.link_id("00:00:00:00:00:01")),
    ]
    values = {seal.app_proof(token, base), seal.session_key(token, base)[:8]}
    values.add(seal.counter_proof(token, base, seal.NO_LINK_ID))
    values.add(seal.counter_proof(token, base, seal.link_id("00:00:00:00:00:01")))
    for script in variants:
        values.add(seal.app_proof(token, script))
        values.add(seal.session_key(token, script)[:8])
    assert len(values) == 4 + 2 * len(variants)
