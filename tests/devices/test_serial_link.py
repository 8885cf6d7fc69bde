"""SerialLink over a pseudo-terminal, with the shared codec's framing on the wire."""

from __future__ import annotations

import asyncio
import threading

import pytest

from companion.devices import framing
from companion.devices.link import (
    LinkClosedError,
    LinkLostError,
    LinkOpenError,
    LinkState,
    PayloadTooLongError,
)
from companion.devices.serial_link import SerialLink
from companion.devices.sim.pty_port import PtyPort

from .helpers import until


@pytest.fixture
async def port(tmp_path):
    port = PtyPort(tmp_path / "counter0")
    port.plug()
    yield port
    port.close()


async def read_frames(port: PtyPort, count: int) -> list[bytes]:
    deframer = framing.Deframer()
    out: list[bytes] = []
    while len(out) < count:
        out += deframer.feed(await asyncio.wait_for(port.read(), 1))
    return out


async def test_messages_are_framed_on_the_way_out_and_split_on_the_way_in(port):
    async with SerialLink(port.path) as link:
        await link.send(b"\x02\x00\x01snapshot")
        await link.send(b"\x00\x00")  # zero bytes survive COBS
        port.write(framing.frame(b"first") + framing.frame(b"second")[:4])
        port.write(framing.frame(b"second")[4:])

        assert await read_frames(port, 2) == [b"\x02\x00\x01snapshot", b"\x00\x00"]
        assert await asyncio.wait_for(link.recv(), 1) == b"first"
        assert await asyncio.wait_for(link.recv(), 1) == b"second"
    assert link.state is LinkState.CLOSED


async def test_a_corrupt_frame_is_skipped_and_the_next_one_arrives(port):
    async with SerialLink(port.path) as link:
        damaged = bytearray(framing.frame(b"lost"))
        damaged[2] ^= 0x10
        port.write(bytes(damaged) + framing.frame(b"kept"))

        assert await asyncio.wait_for(link.recv(), 1) == b"kept"


async def test_callbacks_receive_messages_instead_of_the_queue(port):
    got: list[bytes] = []
    async with SerialLink(port.path) as link:
        unregister = link.on_message(got.append)
        port.write(framing.frame(b"one"))
        await until(lambda: bool(got))
        unregister()
        port.write(framing.frame(b"two"))
        assert await asyncio.wait_for(link.recv(), 1) == b"two"
    assert got == [b"one"]


async def test_pulling_the_cable_is_reported_and_the_same_path_reopens(port):
    link = SerialLink(port.path)
    await link.open()
    port.unplug()

    with pytest.raises(LinkLostError):
        await asyncio.wait_for(link.recv(), 1)
    assert link.state is LinkState.LOST
    with pytest.raises(LinkLostError):
        await link.send(b"late")
    with pytest.raises(LinkOpenError):
        await link.open()  # still unplugged

    port.plug()
    await link.open()
    await link.send(b"back")
    assert await read_frames(port, 1) == [b"back"]
    await link.close()


async def test_too_long_a_message_is_refused_before_it_reaches_the_line(port):
    async with SerialLink(port.path) as link:
        with pytest.raises(PayloadTooLongError, match="at most 20 bytes"):
            await link.send(bytes(21))


async def test_a_missing_port_cannot_be_opened(tmp_path):
    link = SerialLink(str(tmp_path / "nothing-here"))

    with pytest.raises(LinkOpenError, match="nothing-here"):
        await link.open()
    with pytest.raises(LinkClosedError):
        await link.recv()


async def test_a_port_is_held_by_one_link_at_a_time(port):
    async with SerialLink(port.path):
        with pytest.raises(LinkOpenError):
            await SerialLink(port.path).open()


async def test_serial_io_runs_on_the_loop_without_threads(port):
    before = set(threading.enumerate())

    async with SerialLink(port.path) as link:
        await link.send(b"x")
        port.write(framing.frame(b"y"))
        assert await asyncio.wait_for(link.recv(), 1) == b"y"
        port.unplug()
        with pytest.raises(LinkLostError):
            await asyncio.wait_for(link.recv(), 1)

    assert set(threading.enumerate()) <= before


async def test_reopening_while_the_old_connection_still_closes_keeps_the_new_one(port):
    link = SerialLink(port.path)
    await link.open()

    for _ in range(30):
        dropping = asyncio.create_task(link.drop("line noise"))
        await asyncio.sleep(0)
        async with asyncio.timeout(1):
            while not link.is_open:
                try:
                    await link.open()
                except LinkOpenError:
                    await asyncio.sleep(0)
        await dropping  # the old connection has finished closing: it reported what it had to
        assert link.is_open

    await link.send(b"still here")
    assert await read_frames(port, 1) == [b"still here"]
    await link.close()
