"""The firmware's small modules under CPython, with shims for the hardware."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from counter import board, limiter, segments
from counter.logic import Counter
from counter.outbox import Outbox
from counter.serial_link import REPL_ESCAPE, ReplRequested, SerialProtocol
from counter.store import FileStore, MemoryStore
from mpvm import PINOUTS

from companion.devices import framing, wire

ALL_PINOUTS = sorted(PINOUTS.glob("*.json"))


@pytest.mark.parametrize("path", ALL_PINOUTS, ids=lambda p: p.stem)
def test_board_attributes_mirror_the_pin_map(path: Path) -> None:
    data = json.loads(path.read_text())
    b = board.load(str(path))
    assert b.id == data["id"] and b.role == data["role"]
    for name, spec in data["buttons"].items():
        assert b.buttons[name].pin == spec["pin"]
        assert getattr(b.buttons, name).active == spec["active"]
    assert b.power.budget_ma == data["power"]["budget_ma"]
    if data["role"] == "board":
        assert b.strip.count == b.led_count == data["strip"]["spaces"] * b.positions
    else:
        assert b.positions == 1 and b.strip is None
    assert (b.battery is None) == (data["battery"] is None)
    assert b.to_dict() == data


def test_board_refuses_a_pin_map_without_its_lights() -> None:
    with pytest.raises(ValueError, match="strip"):
        board.from_dict({"role": "board", "power": {"budget_ma": 500}})
    with pytest.raises(ValueError, match="role"):
        board.from_dict({"role": "lamp"})


def test_limiter_scales_to_the_budget_and_keeps_colour_ratios() -> None:
    buf = bytearray([255, 128, 0] * 60)
    before = limiter.estimate_ma(buf, 60, 20, 1000)
    assert before == 60 * 383 * 20 // 255 + 60  # 1862 mA
    after = limiter.limit(buf, 60, 500, 20, 1000)
    assert after <= 500 and after > 450
    assert buf[0] > buf[1] > buf[2] == 0
    assert abs(buf[0] / buf[1] - 2) < 0.1


def test_limiter_leaves_a_frame_under_budget_or_without_budget_alone() -> None:
    buf = bytearray([10, 20, 30] * 5)
    copy = bytes(buf)
    limiter.limit(buf, 5, 500, 20, 1000)
    assert bytes(buf) == copy
    big = bytearray([255] * 30)
    assert limiter.limit(big, 10, 0, 20, 1000) == 10 * 765 * 20 // 255 + 10
    assert bytes(big) == bytes([255] * 30)


def test_limiter_darkens_everything_when_idle_draw_eats_the_budget() -> None:
    buf = bytearray([255] * 30)
    limiter.limit(buf, 10, 5, 20, 1000)
    assert bytes(buf) == bytes(30)


def test_brightness_scale() -> None:
    buf = bytearray([255, 100, 0])
    limiter.scale(buf, 1, 128)
    assert list(buf) == [128, 50, 0]


@pytest.mark.parametrize(
    ("value", "text"), [(0, " 0"), (7, " 7"), (10, "10"), (99, "99"), (100, "--"), (-1, "--")]
)
def test_seven_segment_numbers(value: int, text: str) -> None:
    buf = bytearray(2)
    segments.number(buf, value)
    table = {segments.BLANK: " ", segments.DASH: "-"}
    table.update({segments.DIGITS[d]: str(d) for d in range(10)})
    assert "".join(table[b] for b in buf) == text


def test_file_store_replaces_files_whole(tmp_path: Path) -> None:
    store = FileStore(str(tmp_path / "data"))
    assert store.read("state.bin") is None
    store.write("state.bin", b"one")
    store.write("state.bin", b"two")
    assert store.read("state.bin") == b"two"
    assert sorted(p.name for p in (tmp_path / "data").iterdir()) == ["state.bin"]
    store.remove("state.bin")
    assert store.read("state.bin") is None


def test_file_store_survives_a_power_cut_between_remove_and_rename(tmp_path: Path) -> None:
    store = FileStore(str(tmp_path / "data"))
    store.write("state.bin", b"one")
    # What flash holds if power fails after the old file was removed, before the rename.
    (tmp_path / "data" / "state.bin").replace(tmp_path / "data" / "state.bin.tmp")
    (tmp_path / "data" / "state.bin.tmp").write_bytes(b"two")

    assert FileStore(str(tmp_path / "data")).read("state.bin") == b"two"


def test_outbox_fans_out_and_keeps_the_newest() -> None:
    box = Outbox(["serial", "ble"])
    for i in range(10):
        box.put(bytes([i]))
    box.put(b"claim", to_all=True)
    assert box.has("serial") and box.has("ble")
    got = [box.pop("ble") for _ in range(Outbox.MAX)]
    assert got[-1] == ("all", b"claim") and got[0] == ("auth", bytes([3]))
    assert not box.has("ble") and box.has("serial")


def _counter(clock: list[int] | None = None) -> Counter:
    now = clock if clock is not None else [0]
    return Counter(
        board.load(str(PINOUTS / "tracker-esp32c3.json")),
        store=MemoryStore(),
        clock=lambda: now[0],
        counter_id=1,
    )


def test_serial_protocol_answers_frames_and_survives_ctrl_c_bytes() -> None:
    proto = SerialProtocol(_counter())
    # A Ctrl-C byte inside a frame is data, not an interrupt.
    hello = framing.frame(wire.encode(wire.Hello(wire.ROLE_APP, seq=3)))
    ping = framing.frame(wire.encode(wire.Ping(0x03030303, seq=4)))
    replies = proto.feed(b"\x03\x03" + b"\x00" + hello + ping)
    deframer = framing.Deframer()
    messages = [wire.decode(p) for r in replies for p in deframer.feed(r)]
    assert [type(m).__name__ for m in messages] == ["Hello", "Pong", "Error"]
    assert messages[1].token == 0x03030303
    # The two bytes before the first delimiter were a frame of junk: told, not acted on.
    assert (messages[2].code, messages[2].ref_seq) == (wire.ERR_BAD_FRAME, 0)


def test_serial_protocol_hands_back_the_repl_on_the_escape_even_split() -> None:
    proto = SerialProtocol(_counter())
    proto.feed(REPL_ESCAPE[:10])
    with pytest.raises(ReplRequested):
        proto.feed(REPL_ESCAPE[10:])
    assert len(REPL_ESCAPE) > framing.MAX_FRAME and 0 not in REPL_ESCAPE


def test_serial_protocol_sends_intents_only_to_an_authenticated_app() -> None:
    proto = SerialProtocol(_counter())
    assert proto.frames([b"\x05\x01\x00\x01\x00"]) == []


def test_presses_before_authentication_send_nothing_and_blink() -> None:
    now = [0]
    counter = _counter(now)
    assert counter.press("plus") == []
    counter.frame(200)
    assert counter.display_text() == "id"  # a short "not connected" blink
    assert counter.press("claim") == []  # a short press on claim does nothing
    assert counter.press("volume") == []


def test_hello_says_what_the_tracker_is() -> None:
    counter = _counter()
    hello = counter.hello()
    assert hello.role == wire.ROLE_TRACKER and hello.slots == 1 and hello.led_count == 1
    caps = wire.CAP_SEGMENTS | wire.CAP_STATUS_LED | wire.CAP_BATTERY | wire.CAP_LEVEL_BUTTONS
    assert hello.caps == caps | wire.CAP_SERIAL
    assert hello.counter_id == 1


def test_forgetting_the_claim_needs_a_new_claim() -> None:
    counter = _counter()
    counter.press("claim", long=True)
    counter.handle(wire.encode(wire.Hello(wire.ROLE_APP, seq=1)))
    weak = wire.decode(counter.handle(wire.encode(wire.Claim(bytes(16), seq=2)))[0])
    assert weak.code == wire.ERR_WEAK_TOKEN and not counter.claimed
    token = bytes.fromhex("e2177a03c95d48b1f60e2c9b73a45d18")
    assert wire.decode(counter.handle(wire.encode(wire.Claim(token, seq=3)))[0]).TYPE == 6
    assert counter.claimed
    counter.forget()
    assert not counter.claimed and counter.store.read("token.bin") is None


def test_counter_survives_every_fuzzed_message_without_raising() -> None:
    from hypothesis import given, settings
    from hypothesis import strategies as st

    counter = _counter()

    @settings(max_examples=300, deadline=None)
    @given(st.binary(max_size=24))
    def check(data: bytes) -> None:
        for reply in counter.handle(data):
            assert len(reply) <= wire.MAX_MESSAGE
            wire.decode(reply)

    check()


def test_the_session_module_names_no_address_as_seal_does() -> None:
    from counter import session

    from companion.devices import seal

    assert session.NO_LINK_ID == seal.NO_LINK_ID
