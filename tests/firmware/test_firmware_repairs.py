"""What a real board met and the firmware now survives, checked under CPython with board fakes.

Each test here failed on the firmware as it was: a Bluetooth carrier that failed at
start took the serial line down with it, the REPL escape was missed after a stray
0x03, each restart of the serial task left its old session behind, an identical
SNAPSHOT (sent on every reconnect) was written to flash again, and text on the line
before a frame (MicroPython's "MPY: soft reboot") cost the app that frame.
"""

from __future__ import annotations

import asyncio
import os
import sys
import types
from pathlib import Path

import counterchecks
import pytest
from counter import serial_link
from counter.logic import _SAVE_MIN_INTERVAL_MS, _SAVE_QUIET_MS
from counter.outbox import Outbox
from counter.serial_link import REPL_ESCAPE, ReplRequested, SerialProtocol
from mpvm import PINOUTS
from test_firmware_app import Host

from companion.devices import framing, wire

TRACKER = str(PINOUTS / "tracker-esp32c3.json")


async def test_a_bluetooth_carrier_that_fails_leaves_the_serial_line_working(
    board_env, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = types.ModuleType("counter.ble_link")

    class BleCarrier:
        def __init__(self, *args) -> None:
            raise OSError(19, "ENODEV: the radio did not start")

    broken.BleCarrier = BleCarrier
    monkeypatch.setitem(sys.modules, "counter.ble_link", broken)
    host = Host()
    task = asyncio.create_task(
        board_env.app.main(
            str(PINOUTS / "tracker-esp32c3.json"),
            stdin=host.stdin,
            stdout=host.stdout,
            data_dir=str(tmp_path / "data"),
        )
    )
    try:
        (hello,) = await host.send(wire.Hello(wire.ROLE_APP, seq=1))
        assert hello.role == wire.ROLE_TRACKER
        log = tmp_path / "data" / "log.txt"
        async with asyncio.timeout(10):
            while not (log.exists() and "ble failed: OSError" in log.read_text()):
                await asyncio.sleep(0.01)
        (pong,) = await host.send(wire.Ping(7, seq=2))  # and the line still answers
        assert pong.token == 7
    finally:
        task.cancel()
        host.close()


async def test_a_radio_that_will_not_start_is_logged_and_the_counter_runs_on_serial(
    board_env, tmp_path: Path
) -> None:
    host = Host()
    task = asyncio.create_task(
        board_env.app.main(
            str(PINOUTS / "tracker-esp32c3.json"),
            stdin=host.stdin,
            stdout=host.stdout,
            data_dir=str(tmp_path / "data"),
            radio="bluetooth: [Errno 19] ENODEV",
        )
    )
    try:
        (hello,) = await host.send(wire.Hello(wire.ROLE_APP, seq=1))
        assert not hello.caps & wire.CAP_BLE and hello.caps & wire.CAP_SERIAL
        assert "bluetooth: [Errno 19] ENODEV" in (tmp_path / "data" / "log.txt").read_text()
    finally:
        task.cancel()
        host.close()


def test_the_repl_escape_is_heard_after_a_stray_ctrl_c() -> None:
    counter, _ = counterchecks.make(TRACKER)
    for before in (b"\x03", b"\x03\x03", b"\x03\x03\x03\x03", b"abc\x03\x03 counter"):
        proto = SerialProtocol(counter)
        with pytest.raises(ReplRequested):
            proto.feed(before + REPL_ESCAPE)
    proto = SerialProtocol(counter)
    proto.feed(REPL_ESCAPE[:-1])  # one byte short: still the protocol
    with pytest.raises(ReplRequested):
        proto.feed(REPL_ESCAPE[-1:])


class FailingLine:
    """A USB serial line whose writes fail (a host that went away mid-frame)."""

    def __init__(self) -> None:
        self.r, self.w = os.pipe()
        self.stdin = open(self.r, "rb", buffering=0)  # noqa: SIM115  (closed in close())

    def write(self, data: bytes) -> int:
        raise OSError(5, "EIO")

    def close(self) -> None:
        os.close(self.w)
        self.stdin.close()


async def test_a_restarted_serial_task_leaves_no_session_behind(board_env) -> None:
    counter, _ = counterchecks.make(TRACKER)
    line = FailingLine()
    try:
        for _ in range(3):  # the supervisor restarts it after each failure
            os.write(line.w, framing.frame(wire.encode(wire.Hello(wire.ROLE_APP, seq=1))))
            run = serial_link.run(counter, Outbox(["serial"]), line.stdin, line)
            with pytest.raises(OSError):
                await asyncio.wait_for(run, 10)
        assert counter.sessions == [counter.session]  # only the default one
    finally:
        line.close()


def test_an_identical_snapshot_is_not_written_to_flash_again() -> None:
    app, clock = counterchecks.claimed(TRACKER)
    counterchecks.send(app, wire.Snapshot(4, [3, 5], seq=3))
    counterchecks.send(app, wire.ConfigBrightness(200, seq=4))
    clock.now += _SAVE_QUIET_MS + _SAVE_MIN_INTERVAL_MS
    app.poll()
    writes = app.counter.flash_writes
    # The app reconnects and sends the same table and settings, as it does every time.
    app = counterchecks.authenticated(app.counter, seq=10)
    assert counterchecks.send(app, wire.Snapshot(4, [3, 5], seq=12)) == ["Ack"]
    assert counterchecks.send(app, wire.ConfigBrightness(200, seq=13)) == ["Ack"]
    clock.now += _SAVE_QUIET_MS + _SAVE_MIN_INTERVAL_MS
    app.poll()
    assert app.counter.flash_writes == writes
    app = counterchecks.authenticated(app.counter, seq=20)  # the last session went quiet
    assert counterchecks.send(app, wire.Snapshot(5, [4, 5], seq=22)) == ["Ack"]
    clock.now += _SAVE_QUIET_MS + _SAVE_MIN_INTERVAL_MS
    app.poll()
    assert app.counter.flash_writes == writes + 1  # a real change is saved


def test_every_frame_the_counter_sends_starts_with_a_delimiter() -> None:
    counter, _ = counterchecks.make(TRACKER)
    proto = SerialProtocol(counter)
    (reply,) = proto.feed(framing.frame(wire.encode(wire.Hello(wire.ROLE_APP, seq=1))))
    assert reply.startswith(b"\x00") and reply.endswith(b"\x00")
    (prompt,) = counter.press("claim", True)
    assert proto.deliver("all", prompt).startswith(b"\x00")


def test_the_app_finds_a_frame_glued_to_the_soft_reboot_banner() -> None:
    """An older counter sends no leading delimiter: the banner and its first frame are one."""
    hello = wire.encode(wire.Hello(wire.ROLE_BOARD, seq=1))
    rom = b"ESP-ROM:esp32c3-api1-20210207\r\nBuild:Feb  7 2021\r\n"
    rom += b"rst:0xc (RTC_SW_CPU_RST),boot:0xc (SPI_FAST_FLASH_BOOT)\r\n"
    for text in (b"MPY: soft reboot\r\n", rom, b"x" * 100 + b"\n", b"\n"):
        deframer = framing.Deframer()
        assert deframer.feed(text + framing.frame(hello)) == [hello]
        assert deframer.feed(framing.frame(hello)) == [hello]  # and the next as ever
