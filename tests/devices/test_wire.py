"""The shared codec against the test vectors, under CPython."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.devices import firmware_host, framing, seal, wire
from companion.plumbing.places import shipped

VECTORS = json.loads((Path(__file__).parents[1] / "vectors" / "messages.json").read_text())
MESSAGES = VECTORS["messages"]


def build(fields: dict) -> wire.Message:
    """A message from its vector description (type name + constructor keywords)."""
    kwargs = dict(fields)
    cls = getattr(wire, kwargs.pop("type"))
    return cls(**kwargs)


@pytest.mark.parametrize("vector", MESSAGES, ids=[v["name"] for v in MESSAGES])
def test_encode_gives_the_pinned_bytes(vector: dict) -> None:
    assert wire.encode(build(vector["message"])).hex() == vector["hex"]


@pytest.mark.parametrize("vector", MESSAGES, ids=[v["name"] for v in MESSAGES])
def test_decode_gives_the_pinned_message(vector: dict) -> None:
    msg = wire.decode(bytes.fromhex(vector["hex"]))
    assert msg == build(vector["message"])
    assert msg.to_dict() == vector["message"]


@pytest.mark.parametrize("vector", MESSAGES, ids=[v["name"] for v in MESSAGES])
def test_frame_gives_the_pinned_bytes_and_deframes_back(vector: dict) -> None:
    payload = bytes.fromhex(vector["hex"])
    assert framing.frame(payload).hex() == vector["frame"]
    deframer = framing.Deframer()
    assert deframer.feed(bytes.fromhex(vector["frame"])) == [payload]
    assert deframer.dropped == 0


def test_vectors_cover_every_message_type_and_sub_type() -> None:
    kinds = set()
    for vector in MESSAGES:
        msg = build(vector["message"])
        kinds.add((msg.TYPE, msg.KEY))
    no_sub_type = -1
    expected = {(t, no_sub_type) for t in wire.MESSAGE_TYPES if t not in (3, 4)}
    expected |= {(wire.MSG_CONFIG, key) for key in wire.CONFIG_TYPES}
    expected |= {(wire.MSG_SHOW, effect) for effect in wire.SHOW_TYPES}
    assert kinds == expected


def test_every_message_fits_one_ble_payload() -> None:
    assert all(len(bytes.fromhex(v["hex"])) <= wire.MAX_MESSAGE for v in MESSAGES)


@pytest.mark.parametrize(
    "vector", VECTORS["rejections"], ids=[v["name"] for v in VECTORS["rejections"]]
)
def test_decode_rejects_with_the_pinned_error_code(vector: dict) -> None:
    with pytest.raises(wire.WireError) as caught:
        wire.decode(bytes.fromhex(vector["hex"]))
    assert caught.value.code == getattr(wire, vector["error"])
    assert isinstance(caught.value, ValueError)


@pytest.mark.parametrize(
    "vector", VECTORS["frame_rejections"], ids=[v["name"] for v in VECTORS["frame_rejections"]]
)
def test_deframer_drops_and_counts_bad_frames(vector: dict) -> None:
    deframer = framing.Deframer()
    good = bytes.fromhex(MESSAGES[0]["hex"])
    # A bad frame must not disturb the next good one.
    assert deframer.feed(bytes.fromhex(vector["frame"]) + framing.frame(good)) == [good]
    assert deframer.dropped == 1


def test_deframer_reassembles_frames_split_anywhere() -> None:
    payloads = [bytes.fromhex(v["hex"]) for v in MESSAGES]
    stream = b"".join(framing.frame(p) for p in payloads)
    for chunk in (1, 2, 3, 7, 64):
        deframer = framing.Deframer()
        got = []
        for i in range(0, len(stream), chunk):
            got.extend(deframer.feed(stream[i : i + chunk]))
        assert got == payloads


def test_no_single_bit_flip_of_any_vector_frame_is_accepted() -> None:
    for vector in MESSAGES:
        good = bytearray(bytes.fromhex(vector["frame"]))
        for i in range(len(good) - 1):
            for bit in range(8):
                bad = bytearray(good)
                bad[i] ^= 1 << bit
                deframer = framing.Deframer()
                assert deframer.feed(bytes(bad)) == [], (vector["name"], i, bit)


@pytest.mark.parametrize("vector", VECTORS["crc"])
def test_crc16_ccitt_false(vector: dict) -> None:
    assert framing.crc16(bytes.fromhex(vector["data"])) == vector["crc"]


@pytest.mark.parametrize("vector", VECTORS["cobs"])
def test_cobs_round_trip(vector: dict) -> None:
    data = bytes.fromhex(vector["data"])
    assert framing.cobs_encode(data).hex() == vector["encoded"]
    assert 0 not in framing.cobs_encode(data)
    assert framing.cobs_decode(bytes.fromhex(vector["encoded"])) == data


def test_frame_refuses_an_oversize_payload() -> None:
    with pytest.raises(framing.FrameError, match="limit is 20"):
        framing.frame(bytes(21))


def test_framing_and_the_codec_agree_on_the_message_budget() -> None:
    assert framing.MAX_PAYLOAD == wire.MAX_MESSAGE


def test_new_tokens_and_nonces_are_fresh_and_tokens_strong() -> None:
    tokens = {seal.new_token(wire.random_bytes) for _ in range(20)}
    assert len(tokens) == 20 and all(seal.token_is_strong(t) for t in tokens)
    assert len({wire.random_bytes(wire.NONCE_SIZE) for _ in range(20)}) == 20


def test_no_predictable_fallback_when_the_port_has_no_urandom(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import os

    monkeypatch.delattr(os, "urandom")
    with pytest.raises(NotImplementedError, match="urandom"):
        seal.new_token(wire.random_bytes)
    with pytest.raises(NotImplementedError, match="urandom"):
        wire.random_bytes(wire.NONCE_SIZE)


def test_one_spelling_of_the_advertised_name() -> None:
    assert wire.counter_name(0x12341A2B) == "MCounter-1A2B"
    assert wire.counter_name(0x5) == "MCounter-0005"


@pytest.mark.parametrize(
    "make",
    [
        lambda: wire.Snapshot(1, [1] * 9),
        lambda: wire.Snapshot(1, [256]),
        lambda: wire.Snapshot(1, [1], [16]),
        lambda: wire.Snapshot(70000),
        lambda: wire.ConfigColours(0, [(1, 2, 3)] * 6),
        lambda: wire.ConfigColours(0, [(1, 2)]),
        lambda: wire.ShowCombat(0, 40000, 1, True),
        lambda: wire.ShowRoll(0, 7),
        lambda: wire.Error(1, 0, "x" * 15),
        lambda: wire.Error(1, 0, "é"),
        lambda: wire.Claim(b"short"),
        lambda: wire.Claim("a" * 16),
        lambda: wire.Button(9),
        lambda: wire.Hello(7),
        lambda: wire.Ping(-1),
        lambda: wire.Ack(1, 2, seq=True),
    ],
)
def test_constructors_refuse_values_the_wire_cannot_carry(make) -> None:
    with pytest.raises(wire.WireError):
        make()


def test_encode_refuses_things_that_are_not_messages() -> None:
    with pytest.raises(wire.WireError):
        wire.encode(wire.Message())  # type: ignore[arg-type]
    with pytest.raises(wire.WireError):
        wire.encode(b"\x01")  # type: ignore[arg-type]


def test_messages_compare_by_type_seq_and_fields() -> None:
    assert wire.Ping(1, seq=2) == wire.Ping(1, seq=2)
    assert wire.Ping(1, seq=2) != wire.Ping(1, seq=3)
    assert wire.Ping(1) != wire.Ack(1, 0)
    assert len({wire.Ping(1), wire.Ping(1)}) == 1
    assert repr(wire.Ping(1)) == "Ping(seq=0, token=1)"


def test_the_codec_imports_nothing_from_the_app() -> None:
    source = Path(wire.__file__).read_text()
    imports = {line.split()[1] for line in source.splitlines() if line.startswith("import ")}
    assert imports <= {"hashlib", "struct"}
    assert "from companion" not in source and "import companion" not in source


PROTOCOL_DOC = (Path(__file__).parents[2] / "docs" / "protocol.md").read_text()


@pytest.mark.parametrize(
    "name", [n for n in dir(wire) if n.startswith("MSG_")], ids=lambda n: n[4:]
)
def test_protocol_doc_lists_every_message_type(name: str) -> None:
    label = name[4:]
    assert f"| 0x{getattr(wire, name):02X} | {label} |" in PROTOCOL_DOC


@pytest.mark.parametrize(
    "name", [n for n in dir(wire) if n.startswith("ERR_")], ids=lambda n: n[4:]
)
def test_protocol_doc_lists_every_error_code(name: str) -> None:
    assert f"| {getattr(wire, name)} | {name[4:]} |" in PROTOCOL_DOC


def test_protocol_doc_has_the_uuids_and_the_session_labels() -> None:
    for uuid in (wire.SERVICE_UUID, wire.RX_CHAR_UUID, wire.TX_CHAR_UUID):
        assert uuid in PROTOCOL_DOC
    for label in (seal._LABEL_APP, seal._LABEL_COUNTER, seal._LABEL_KEY):
        assert f'`"{label.decode()}"' in PROTOCOL_DOC
    assert f"first {seal.TAG_SIZE} bytes of HMAC(session key" in PROTOCOL_DOC
    assert f"first {seal.PROOF_SIZE} bytes of HMAC(token" in PROTOCOL_DOC


def test_protocol_doc_session_example_is_real() -> None:
    block = PROTOCOL_DOC.split("## 7. A session, byte by byte", 1)[1]
    lines = [line for line in block.splitlines() if line.startswith(("app> ", "<ctr "))]
    raw = [(line[:4], bytes.fromhex(line[5:].split("  ")[0])) for line in lines]
    hello, challenge, auth, proof = (wire.decode(data) for _, data in raw[1:5])
    assert isinstance(auth, wire.Auth) and isinstance(proof, wire.Proof)
    assert hello.caps & wire.CAP_CLAIMED and hello.counter_id == 0x12345678
    # The counter's HELLO is what the firmware says for that tracker on both carriers.
    firmware_host.load()
    from counter import board, logic

    tracker = logic.Counter(
        board.load(str(shipped("hardware/pinouts") / "tracker-esp32c3.json")),
        counter_id=0x12345678,
        links=("serial", "ble"),
    )
    tracker.token = bytes(range(1, 17))
    mine = tracker.hello()
    assert (mine.caps, mine.slots, mine.led_count) == (hello.caps, hello.slots, hello.led_count)
    assert hello.caps & wire.CAP_BLE
    token = bytes(range(1, 17))
    script = seal.transcript(
        challenge.nonce, auth.app_nonce, hello.counter_id, seal.link_id("C0:98:E5:49:00:01")
    )
    assert auth.proof == seal.app_proof(token, script)
    assert proof.app_link_id == seal.link_id("F0:F1:F2:F3:F4:F5")
    assert proof.proof == seal.counter_proof(token, script, proof.app_link_id)
    app = seal.session_sealer(token, script, seal.TO_COUNTER)
    counter = seal.session_sealer(token, script, seal.TO_APP)
    opened = []
    for who, data in raw[5:]:
        message = (counter if who == "app>" else app).open(data)
        assert message is not None, data.hex()
        opened.append(wire.decode(message))
    assert [type(m).__name__ for m in (wire.decode(raw[0][1]), hello, challenge, auth, proof)] == [
        "Hello",
        "Hello",
        "Challenge",
        "Auth",
        "Proof",
    ]
    assert [type(m).__name__ for m in opened] == ["Snapshot", "Ack", "Button", "Ack"]
