"""Seeded fault injection: repeatable, and the links survive what it does."""

from __future__ import annotations

import asyncio

import pytest

from companion.devices import framing
from companion.devices.link import Link, LinkLostError, LinkState
from companion.devices.serial_link import SerialLink
from companion.devices.sim.faults import ChaosLink, FaultPlan, NoisyLine
from companion.devices.sim.pty_port import PtyPort

from .helpers import until

END = b"end"  # sent last, on a calm line: everything before it has arrived once it does


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


async def until_end(link: Link) -> list[bytes]:
    """Everything received before END."""
    received = []
    async with asyncio.timeout(5):
        while (payload := await link.recv()) != END:
            received.append(payload)
    return received


class CountingPlan(FaultPlan):
    """A plan that also counts the chunks of bytes it was shown."""

    chunks = 0

    def mangle(self, data: bytes) -> tuple[bytes, bool]:
        self.chunks += 1
        return super().mangle(data)


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
        plan.corrupt_rate = plan.drop_rate = 0.0
        await link.send(END)
        received = await until_end(link)

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
    plan = CountingPlan(seed=5, corrupt_rate=0.3, drop_rate=0.2)
    sent = [f"msg{n:03d}".encode() for n in range(120)]
    try:
        async with NoisyLine(SerialLink(port.path), plan) as link:
            for payload in sent:
                seen = plan.chunks
                port.write(framing.frame(payload))
                # One frame per read, so faults hit single frames: the next is written once
                # the line has read this one.
                await until(lambda seen=seen: plan.chunks > seen)
            plan.corrupt_rate = plan.drop_rate = 0.0
            port.write(b"\x00" + framing.frame(END))  # a 0x00 first ends a damaged frame
            received = await until_end(link)
    finally:
        port.close()

    assert plan.faults["corrupt"] > 0 and plan.faults["drop"] > 0
    assert 0 < len(received) < len(sent)
    assert set(received) <= set(sent)  # nothing damaged got through
