"""Seeded fault injection: repeatable, and the links survive what it does."""

from __future__ import annotations

import asyncio

import pytest

from companion.devices import wire
from companion.devices.chaos import ChaosLink, FaultPlan
from companion.devices.link import Link, LinkLostError, LinkState
from companion.devices.pty_port import PtyPort
from companion.devices.serial_link import SerialLink


class LoopbackLink(Link):
    """A link whose far end is this test: what is sent comes straight back."""

    transport = "loopback"

    def __init__(self) -> None:
        super().__init__("here")
        self.sent: list[bytes] = []

    async def _open(self) -> None:
        return None

    async def _send(self, payload: bytes) -> None:
        self.sent.append(payload)
        self._deliver(payload)

    async def _close(self) -> None:
        return None


async def drain(link: Link) -> list[bytes]:
    """Everything received until the link has been quiet for a moment."""
    received = []
    while True:
        try:
            received.append(await asyncio.wait_for(link.recv(), 0.05))
        except TimeoutError:
            return received


def test_the_same_seed_gives_the_same_faults():
    data = bytes(range(1, 200))

    def run(seed: int) -> list[tuple[bytes, bool]]:
        plan = FaultPlan(seed=seed, corrupt_rate=0.3, drop_rate=0.3, cut_rate=0.05)
        return [plan.mangle(data) for _ in range(50)]

    assert run(3) == run(3)
    assert run(3) != run(4)


def test_rates_outside_zero_to_one_are_refused():
    with pytest.raises(ValueError, match="drop_rate"):
        FaultPlan(drop_rate=1.5)


def test_a_quiet_plan_changes_nothing():
    plan = FaultPlan(seed=1)

    assert plan.mangle(b"\x01\x02\x03") == (b"\x01\x02\x03", False)
    assert plan.mangle_message(b"msg") == (b"msg", False)
    assert sum(plan.faults.values()) == 0


async def test_message_faults_drop_and_damage_but_never_invent():
    plan = FaultPlan(seed=11, corrupt_rate=0.2, drop_rate=0.2)
    inner = LoopbackLink()
    sent = [bytes([n, n, n]) for n in range(1, 101)]

    async with ChaosLink(inner, plan) as link:
        for payload in sent:
            await link.send(payload)
        received = await drain(link)

    assert plan.faults["drop"] > 0 and plan.faults["corrupt"] > 0
    intact = [payload for payload in received if payload in sent]
    assert len(received) < len(sent)
    assert len(received) - len(intact) <= plan.faults["corrupt"]
    assert intact == sorted(intact)  # order is kept


async def test_a_cut_leaves_both_layers_lost_and_the_link_reopens():
    inner = LoopbackLink()
    link = ChaosLink(inner, FaultPlan(seed=0, cut_rate=1.0))
    await link.open()

    await link.send(b"x")

    assert link.state is LinkState.LOST
    assert inner.state is LinkState.LOST
    with pytest.raises(LinkLostError):
        await link.recv()
    link.plan.cut_rate = 0.0
    await link.open()
    await link.send(b"y")
    assert await link.recv() == b"y"
    await link.close()


async def test_serial_byte_faults_are_caught_by_the_crc(tmp_path):
    port = PtyPort(tmp_path / "noisy")
    port.plug()
    plan = FaultPlan(seed=5, corrupt_rate=0.3, drop_rate=0.2)
    sent = [f"msg{n:03d}".encode() for n in range(120)]
    try:
        async with SerialLink(port.path, faults=plan) as link:
            for payload in sent:
                port.write(wire.frame(payload))
                # One frame per read, so faults hit single frames; a bare sleep(0) lets a
                # busy machine batch many frames into one read and draw few faults.
                await asyncio.sleep(0.001)
            received = await drain(link)
    finally:
        port.close()

    assert plan.faults["corrupt"] > 0 and plan.faults["drop"] > 0
    assert 0 < len(received) < len(sent)
    assert set(received) <= set(sent)  # nothing damaged got through
