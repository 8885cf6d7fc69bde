"""A virtual counter writes on its line, byte for byte, what the firmware's serial carrier writes.

The same messages (and the same long press) go to a serial virtual counter on its
pseudo-terminal and to the firmware's `serial_link.run` on two pipes, each with a
counter of the same pin map and id; what comes back is compared as raw bytes, so
the leading 0x00 of every frame and which frames a line gets at all are checked,
not only the messages in them.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable

from counter import buttons, serial_link
from counter.outbox import Outbox
from counter.store import MemoryStore

from companion.devices import framing, wire
from companion.devices.sim.counters import SerialVirtualCounter

WAIT_S = 5.0
TOKEN = bytes.fromhex("5be1c0d2a7f3946e18b27c05d9e4a361")


def _fixed_random(n: int) -> bytes:
    return bytes(range(1, n + 1))


async def _collect(read: Callable[[], bytes], replies: int) -> bytes:
    """The raw bytes of the next ``replies`` frames read from a line."""
    deframer = framing.Deframer()
    data = b""
    got = 0
    async with asyncio.timeout(WAIT_S):
        while got < replies:
            chunk = read()
            data += chunk
            got += len(deframer.feed(chunk))
            if got < replies:
                await asyncio.sleep(0.005)
    return data


def _reader(fd: int) -> Callable[[], bytes]:
    def read() -> bytes:
        try:
            return os.read(fd, 256)
        except BlockingIOError:
            return b""

    return read


def _frame(msg: wire.Message) -> bytes:
    return framing.frame(wire.encode(msg))


# What the app does, and how many frames a board answers with.
STEPS: list[tuple[str, bytes, int]] = [
    ("press claim before any HELLO", b"", 0),  # nobody said HELLO: no CLAIM_OPEN
    (
        "boot text, then HELLO",
        b"MPY: soft reboot\r\n\x00" + _frame(wire.Hello(wire.ROLE_APP, seq=1)),
        2,  # HELLO, and the dropped text told as ERROR BAD_FRAME
    ),
    ("press claim after HELLO", b"", 1),  # CLAIM_OPEN
    ("claim", _frame(wire.Claim(TOKEN, seq=2)), 1),  # ACK
    ("HELLO to a claimed counter", _frame(wire.Hello(wire.ROLE_APP, seq=3)), 2),
    ("a state change without a session", _frame(wire.ConfigBrightness(90, seq=4)), 1),
]


async def test_a_serial_virtual_counter_frames_as_the_firmware_does(board_env, tmp_path) -> None:
    virtual = SerialVirtualCounter("tracker", link_path=tmp_path / "tracker")
    virtual.counter.random_bytes = _fixed_random
    fw_counter = type(virtual.counter)(
        virtual.counter.board,
        store=MemoryStore(),
        counter_id=virtual.counter_id,
        links=("serial",),
        random_bytes=_fixed_random,
    )
    outbox = Outbox(["serial"])
    r_in, w_in = os.pipe()
    r_out, w_out = os.pipe()
    os.set_blocking(r_out, False)
    stdin = open(r_in, "rb", buffering=0)  # noqa: SIM115  (closed below)
    stdout = open(w_out, "wb", buffering=0)  # noqa: SIM115
    carrier = asyncio.create_task(serial_link.run(fw_counter, outbox, stdin, stdout))
    await virtual.start()
    line = os.open(virtual.address, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
    try:
        for step, data, replies in STEPS:
            if data:
                os.write(w_in, data)
                os.write(line, data)
            else:
                board_env.app.handle_presses(fw_counter, [("claim", buttons.LONG)], outbox)
                virtual.press("claim", long=True)
            from_firmware = await _collect(_reader(r_out), replies)
            from_virtual = await _collect(_reader(line), replies)
            assert from_virtual == from_firmware, step
            assert from_virtual.count(b"\x00") == 2 * replies, step  # 0x00 before and after
    finally:
        os.close(line)
        await virtual.stop()
        carrier.cancel()
        await asyncio.gather(carrier, return_exceptions=True)
        for fd in (w_in, r_out):
            os.close(fd)
        stdin.close()
        stdout.close()
