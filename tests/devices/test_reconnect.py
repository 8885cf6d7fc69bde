"""Reconnect with backoff, over a pty serial port and over the virtual radio."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random

import pytest

from companion.devices import framing
from companion.devices.ble_link import BleLink
from companion.devices.link import Link, LinkState
from companion.devices.reconnect import Backoff, Reconnector
from companion.devices.serial_link import SerialLink
from companion.devices.session import NotACounterError
from companion.devices.sim.pty_port import PtyPort

from .helpers import until

FAST = {"initial_s": 0.01, "max_s": 0.05}  # keeps the tests quick; the shape is what matters


def test_backoff_doubles_up_to_its_ceiling_and_resets():
    backoff = Backoff(initial_s=0.25, max_s=2.0, jitter=0.0)

    delays = [backoff.next_delay() for _ in range(6)]
    backoff.reset()

    assert delays == [0.25, 0.5, 1.0, 2.0, 2.0, 2.0]
    assert backoff.next_delay() == 0.25


def test_backoff_jitter_is_bounded_and_repeatable_with_a_seed():
    first = Backoff(jitter=0.2, rng=random.Random(7))
    second = Backoff(jitter=0.2, rng=random.Random(7))

    delays = [first.next_delay() for _ in range(4)]

    assert delays == [second.next_delay() for _ in range(4)]
    for delay, base in zip(delays, [0.25, 0.5, 1.0, 2.0], strict=True):
        assert base * 0.8 <= delay <= base * 1.2


def test_backoff_rejects_nonsense_settings():
    with pytest.raises(ValueError, match="backoff"):
        Backoff(initial_s=2.0, max_s=1.0)


async def test_serial_link_is_reopened_and_resynced_after_the_cable_comes_back(tmp_path):
    port = PtyPort(tmp_path / "counter0")
    port.plug()
    resyncs: list[int] = []

    async def resync(link: Link) -> None:
        resyncs.append(len(resyncs))
        await link.send(b"\x02snapshot")

    reconnector = Reconnector(SerialLink(port.path), on_open=resync, backoff=Backoff(**FAST))
    reconnector.start()
    try:
        await asyncio.wait_for(reconnector.wait_open(), 1)
        attempts = reconnector.attempts
        port.unplug()
        await until(lambda: reconnector.attempts >= attempts + 2)  # it kept trying meanwhile
        assert reconnector.link.state is not LinkState.OPEN
        port.plug()
        await asyncio.wait_for(reconnector.wait_open(), 1)

        deframer = framing.Deframer()
        assert deframer.feed(await asyncio.wait_for(port.read(), 1)) == [b"\x02snapshot"]
        assert resyncs == [0, 1]
        assert reconnector.attempts > reconnector.opens == 2
    finally:
        await reconnector.stop()
        port.close()
    assert reconnector.link.state is LinkState.CLOSED


async def test_a_port_that_is_missing_at_start_is_opened_once_it_appears(tmp_path):
    port = PtyPort(tmp_path / "late")
    reconnector = Reconnector(SerialLink(port.path), backoff=Backoff(**FAST))
    reconnector.start()
    try:
        await until(lambda: reconnector.attempts >= 2)  # tried, and tried again
        assert reconnector.opens == 0
        port.plug()
        await asyncio.wait_for(reconnector.wait_open(), 1)
        assert reconnector.link.is_open
    finally:
        await reconnector.stop()
        port.close()


@pytest.mark.slow
async def test_ble_link_reconnects_and_notifications_flow_again(radio, make_counter):
    counter = await make_counter(echo=False)
    link = await BleLink.find(counter.peripheral.address, backend=radio.bleak_backend())
    reconnector = Reconnector(link, backoff=Backoff(**FAST))
    reconnector.start()
    try:
        await asyncio.wait_for(reconnector.wait_open(), 2)
        await counter.peripheral.disconnect()
        await until(lambda: reconnector.opens == 2, 2)
        await asyncio.wait_for(reconnector.wait_open(), 2)
        await counter.peripheral.notify(b"\x05press")

        assert await asyncio.wait_for(link.recv(), 1) == b"\x05press"
        assert counter.peripheral.connections == 2
    finally:
        await reconnector.stop()


async def test_a_failed_setup_is_dropped_and_retried(tmp_path):
    port = PtyPort(tmp_path / "booting")
    port.plug()
    answers = iter([NotACounterError("no HELLO yet"), None])

    async def setup(_link: Link) -> None:
        error = next(answers)
        if error is not None:
            raise error

    reconnector = Reconnector(SerialLink(port.path), on_open=setup, backoff=Backoff(**FAST))
    reconnector.start()
    try:
        await asyncio.wait_for(reconnector.wait_open(), 1)
    finally:
        await reconnector.stop()
        port.close()

    assert reconnector.opens == 2
    assert isinstance(reconnector.last_error, NotACounterError)


async def test_a_setup_that_breaks_unexpectedly_is_logged_and_the_link_still_comes_back(
    tmp_path, caplog
):
    port = PtyPort(tmp_path / "buggy")
    port.plug()
    answers = iter([RuntimeError("a bug in the setup"), None])

    async def setup(_link: Link) -> None:
        error = next(answers)
        if error is not None:
            raise error

    link = SerialLink(port.path)
    reconnector = Reconnector(link, on_open=setup, backoff=Backoff(**FAST))
    with caplog.at_level(logging.ERROR, logger="companion.plumbing.tasks"):
        reconnector.start()
        try:
            await until_open(reconnector, link)
        finally:
            await reconnector.stop()
            port.close()

    assert "retry loop failed" in caplog.text and "a bug in the setup" in caplog.text
    assert isinstance(reconnector.last_error, RuntimeError)
    assert reconnector.opens == 2


async def until_open(reconnector: Reconnector, link: Link) -> None:
    """Wait until the second setup left the link open (the first one broke)."""
    await until(lambda: reconnector.opens >= 2 and link.is_open, 2)


class SwallowingLink(Link):
    """A carrier whose connect eats a cancellation and reports success, as some BLE stacks do."""

    transport = "memory"

    def __init__(self) -> None:
        super().__init__("swallower")
        self.connecting = asyncio.Event()

    async def _open(self) -> None:
        self.connecting.set()
        # The library's bug: the cancellation is lost and the connect "succeeds".
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.sleep(30)

    async def _send(self, payload: bytes) -> None:
        return None

    async def _close(self) -> None:
        return None


async def test_stop_is_prompt_even_when_the_carrier_swallows_the_cancellation():
    link = SwallowingLink()
    reconnector = Reconnector(link, backoff=Backoff(**FAST))
    reconnector.start()
    await asyncio.wait_for(link.connecting.wait(), 2)

    stopping = asyncio.ensure_future(reconnector.stop())
    done, _ = await asyncio.wait({stopping}, timeout=2)  # before the fix: forever
    if not done:
        stopping.cancel()
    assert done, "stop() hung on a carrier that swallowed the cancellation"

    assert not reconnector.running
    assert link.state is LinkState.CLOSED
