"""Virtual counters run the firmware's logic: HELLO as hardware says it, frames for the app."""

from __future__ import annotations

import asyncio

import pytest

from companion.devices import wire
from companion.devices.discovery import hello
from companion.devices.serial_link import SerialLink
from companion.devices.sim.counters import LedFrame, SerialVirtualCounter


async def test_a_serial_virtual_counter_answers_on_its_pty_like_hardware(tmp_path):
    counter = SerialVirtualCounter("tracker", link_path=tmp_path / "tracker")
    await counter.start()
    try:
        async with SerialLink(counter.address) as link, asyncio.timeout(5):
            answer = await hello(link)
    finally:
        await counter.stop()
    assert answer.role == wire.ROLE_TRACKER
    assert answer.counter_id == counter.counter_id
    assert answer.caps & wire.CAP_SERIAL and not answer.caps & wire.CAP_CLAIMED
    assert not (tmp_path / "tracker").exists()  # switched off: the device link is gone


def test_frames_are_drawable_and_listeners_hear_each_one(tmp_path):
    counter = SerialVirtualCounter("board", link_path=tmp_path / "board")
    frames: list[LedFrame] = []
    unregister = counter.on_frame(frames.append)
    counter.open_claim_window()  # a long press: the counter blinks for the claim
    unregister()
    counter.open_claim_window()

    assert len(frames) == 1
    frame = frames[0]
    assert frame.role == "board" and frame.spaces == 10 and frame.positions == 6
    assert len(frame.pixels) == 60 == len(frame.rgb) // 3
    line = frame.ansi()
    assert line.count("\x1b[38;2;") == 60  # one coloured cell per LED
    assert line.endswith("\x1b[0m")


def test_a_counter_is_a_board_or_a_tracker(tmp_path):
    with pytest.raises(ValueError, match="board or a tracker"):
        SerialVirtualCounter("lamp", link_path=tmp_path / "x")
    with pytest.raises(ValueError, match="is a board, not a tracker"):
        SerialVirtualCounter("tracker", link_path=tmp_path / "x", pinout="levelboard-esp32s3")
