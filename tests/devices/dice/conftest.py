"""Fixtures for the dice: virtual dice on the virtual radio (`radio`, from the device tests' own
fixtures), a hub connected to them."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest

from companion.devices.dice import DiceHub, DieType
from companion.devices.dice.ble_source import BleDieSource
from companion.devices.dice.scan import FoundDie, open_source, scan
from companion.devices.sim.bumble_backend import VirtualRadio
from companion.devices.sim.dice import VirtualDie

CONNECT_TIMEOUT_S = 10.0  # s: generous for a loaded machine; it takes milliseconds


@pytest.fixture
async def hub() -> AsyncIterator[DiceHub]:
    hub = DiceHub()
    yield hub
    await hub.close()


@pytest.fixture
async def on_air() -> AsyncIterator[list[VirtualDie]]:
    """Virtual dice started by a test; switched off afterwards."""
    dice: list[VirtualDie] = []
    yield dice
    for die in dice:
        await die.stop()


Connect = Callable[..., Awaitable[BleDieSource]]


@pytest.fixture
def connect(radio: VirtualRadio, hub: DiceHub, on_air: list[VirtualDie]) -> Connect:
    """Start a virtual die, find it by scanning, add it to the hub and wait until it is up."""

    async def connect(
        die: VirtualDie, seat: int | None = -1, shell: DieType = DieType.D6
    ) -> BleDieSource:
        if die not in on_air:
            await die.start()
            on_air.append(die)
        found = await find(radio, die.address)
        source = open_source(found, backend=radio.bleak_backend(), shell=shell)
        await hub.add(source, seat)
        async with asyncio.timeout(CONNECT_TIMEOUT_S):
            await source.wait_connected()
        return source

    return connect


async def find(radio: VirtualRadio, address: str) -> FoundDie:
    for _ in range(20):
        for found in await scan(backend=radio.bleak_backend(), timeout_s=0.05):
            if found.device.address == address:
                return found
    raise AssertionError(f"no die at {address} was heard")
