"""Under seeded faults, absolute snapshots plus reconnect-and-resync bring a counter to the
app's state: the transport half of the product's fault guarantee.

The far ends here only keep the newest snapshot they decoded, which is all a
counter does with them; the full game-level chaos test runs on the virtual
counters' firmware logic.
"""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from companion.devices import framing, wire
from companion.devices.ble_link import BleLink
from companion.devices.link import Link, LinkClosedError
from companion.devices.reconnect import Backoff, Reconnector
from companion.devices.serial_link import SerialLink
from companion.devices.sim.faults import ChaosLink, FaultPlan, NoisyLine
from companion.devices.sim.pty_port import PtyPort
from companion.devices.sim.virtual_peripheral import VirtualPeripheral

SNAPSHOTS = 300
FAST = Backoff(initial_s=0.005, max_s=0.02)


def snapshot(rev: int) -> wire.Snapshot:
    return wire.Snapshot(rev, levels=(rev % 10 + 1, (rev * 7) % 10 + 1), flags=(rev % 2, 0))


class Holder:
    """Applies every snapshot it can decode, as it arrives, and ignores the rest.

    No revision check: a message damaged past the carrier's checks may carry a
    wrong revision, and only "the last snapshot wins" is sure to converge.
    """

    def __init__(self) -> None:
        self.current: wire.Snapshot | None = None
        self.garbage = 0

    def take(self, payload: bytes) -> None:
        try:
            message = wire.decode(payload)
        except wire.WireError:
            self.garbage += 1
            return
        if isinstance(message, wire.Snapshot):
            self.current = message


async def play(link: Link, plan: FaultPlan, holder: Holder) -> Reconnector:
    """Push SNAPSHOTS snapshots through chaos, then calm the line and wait for convergence."""
    latest = snapshot(0)

    async def resync(link: Link) -> None:
        await link.send(latest.encode())

    reconnector = Reconnector(link, on_open=resync, backoff=FAST)
    reconnector.start()
    for rev in range(1, SNAPSHOTS + 1):
        latest = snapshot(rev)
        if link.is_open:
            # lost mid-send: the resync after the reconnect carries it
            with contextlib.suppress(LinkClosedError):
                await link.send(latest.encode())
        await asyncio.sleep(0.001)
    plan.corrupt_rate = plan.drop_rate = plan.cut_rate = 0.0
    async with asyncio.timeout(3):
        while holder.current != latest:
            if link.is_open:
                await link.send(latest.encode())  # the app's periodic resend
            await asyncio.sleep(0.01)
    return reconnector


async def test_serial_counter_converges_through_corrupted_dropped_and_cut_lines(tmp_path):
    port = PtyPort(tmp_path / "noisy")
    holder = Holder()
    deframer = framing.Deframer()
    port.on_data(lambda data: [holder.take(payload) for payload in deframer.feed(data)])
    port.plug()
    plan = FaultPlan(seed=2024, corrupt_rate=0.05, drop_rate=0.05, cut_rate=0.02)
    link = NoisyLine(SerialLink(port.path), plan)
    try:
        reconnector = await play(link, plan, holder)
        await reconnector.stop()
    finally:
        port.close()

    assert holder.current == snapshot(SNAPSHOTS)
    assert plan.faults["corrupt"] and plan.faults["drop"] and plan.faults["cut"]
    assert reconnector.opens == plan.faults["cut"] + 1
    assert deframer.dropped > 0  # damaged frames were seen and thrown away


@pytest.mark.slow
async def test_ble_counter_converges_through_lost_damaged_messages_and_cuts(radio):
    holder = Holder()
    peripheral = VirtualPeripheral(
        radio,
        "MCounter-C",
        service_uuid=wire.SERVICE_UUID,
        write_uuid=wire.RX_CHAR_UUID,
        notify_uuid=wire.TX_CHAR_UUID,
        on_write=holder.take,
    )
    await peripheral.start()
    plan = FaultPlan(seed=7, corrupt_rate=0.05, drop_rate=0.05, cut_rate=0.01)
    ble = await BleLink.find(peripheral.address, backend=radio.bleak_backend())
    try:
        reconnector = await play(ChaosLink(ble, plan), plan, holder)
        await reconnector.stop()
    finally:
        await peripheral.stop()

    assert holder.current == snapshot(SNAPSHOTS)
    assert plan.faults["corrupt"] and plan.faults["drop"] and plan.faults["cut"]
    assert peripheral.connections == plan.faults["cut"] + 1
