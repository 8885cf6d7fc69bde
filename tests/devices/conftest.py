"""Fixtures for the device layer: a virtual BLE radio with counters on it, pty serial ports."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable

import pytest

from companion.devices import wire
from companion.devices.sim.bumble_backend import VirtualRadio
from companion.devices.sim.virtual_peripheral import VirtualPeripheral


class EchoCounter:
    """A minimal far end on the virtual radio: records writes, can notify, echoes if asked."""

    def __init__(self, radio: VirtualRadio, name: str, echo: bool) -> None:
        self.received: list[bytes] = []
        self.echo = echo
        self.peripheral = VirtualPeripheral(
            radio,
            name,
            service_uuid=wire.SERVICE_UUID,
            write_uuid=wire.RX_CHAR_UUID,
            notify_uuid=wire.TX_CHAR_UUID,
            on_write=self._on_write,
        )

    async def _on_write(self, payload: bytes) -> None:
        self.received.append(payload)
        if self.echo:
            await self.peripheral.notify(payload)


@pytest.fixture
async def radio() -> AsyncIterator[VirtualRadio]:
    radio = VirtualRadio()
    yield radio
    await radio.close()


@pytest.fixture
async def make_counter(
    radio: VirtualRadio,
) -> AsyncIterator[Callable[..., Awaitable[EchoCounter]]]:
    made: list[EchoCounter] = []

    async def make(name: str = "MCounter-1", echo: bool = True) -> EchoCounter:
        counter = EchoCounter(radio, name, echo)
        await counter.peripheral.start()
        made.append(counter)
        return counter

    yield make
    for counter in made:
        await counter.peripheral.stop()
