"""A Pixels die as a dice source: identify it, follow its roll state, blink it."""

from __future__ import annotations

import asyncio
from typing import Any

from bleak.backends.device import BLEDevice

from companion.devices.ble_link import BleBackend
from companion.devices.dice import pixels_protocol as proto
from companion.devices.dice.ble_source import IDENTIFY_TIMEOUT_S, BleDieSource
from companion.devices.dice.model import DieType, Motion
from companion.devices.dice.source import BLINK_COLOUR, RollGate, loop_time
from companion.devices.link import Link, LinkOpenError

BLINK_DURATION_MS = 1200  # ms: two soft flashes, long enough to spot across a table


class PixelsSource(BleDieSource):
    """A Pixels die: WhoAreYou on every connect, then RollState messages.

    The identity's firmware build time decides the corrections older firmware needs
    (`pixels_protocol.face_value`, `pixels_protocol.tilted_is_crooked`).
    """

    maker = "Pixels"
    characteristics = proto.CHARACTERISTICS

    def __init__(
        self, device: BLEDevice, *, backend: BleBackend | None = None, name: str | None = None
    ) -> None:
        super().__init__(device, backend=backend, name=name)
        self.pixel_id: int | None = None
        self.build_timestamp = 0  # the firmware's build time, from the die's identity
        self.led_count = 0
        # The state reported on connecting may be an old roll: only motion arms the gate.
        self._gate = RollGate(armed=False)
        self._identified: asyncio.Event = asyncio.Event()

    def decode(self, data: bytes) -> proto.Message:
        return proto.decode(data)

    def handle(self, message: Any) -> None:
        if isinstance(message, proto.IAmADie):
            self._gate.rested()
            self.build_timestamp = message.build_timestamp
            self.led_count = message.led_count
            self._report(
                die_type=message.die_type,
                pixel_id=message.pixel_id,
                name=message.name or self.name,
                battery_percent=message.battery_percent,
                motion=message.roll_state.motion,
                last_face=self._face(message.die_type, message.face_index),
            )
            self._identified.set()
        elif isinstance(message, proto.RollStateMessage):
            self._roll_state(message)
        elif isinstance(message, proto.BatteryLevel):
            self._report(battery_percent=message.percent)

    def _face(self, die_type: DieType, face_index: int) -> int:
        return proto.face_value(die_type, face_index, self.build_timestamp)

    def _roll_state(self, message: proto.RollStateMessage) -> None:
        motion = message.state.motion
        face = self._face(self.die_type, message.face_index)
        if motion is Motion.CROOKED and proto.tilted_is_crooked(
            self.led_count, self.build_timestamp
        ):
            motion = Motion.SETTLED  # that firmware's name for a roll that ended a little tilted
        if motion is Motion.SETTLED:
            self._report_settled(face, self._gate.settled(), loop_time())
            return
        if motion in (Motion.ROLLING, Motion.HANDLING):
            self._gate.moving()
        elif motion is Motion.RESTING:
            self._gate.rested()
        self._report(motion=motion, last_face=face if motion is Motion.RESTING else None)

    async def _on_open(self, link: Link) -> None:
        self._identified.clear()
        await link.send(proto.who_are_you())
        try:
            async with asyncio.timeout(IDENTIFY_TIMEOUT_S):
                await self._identified.wait()
        except TimeoutError:
            raise LinkOpenError(f"{self.name} did not say what it is") from None

    async def blink(self, rgb: tuple[int, int, int] = BLINK_COLOUR) -> bool:
        return await self.send(proto.blink(rgb, count=2, duration_ms=BLINK_DURATION_MS))


__all__ = ["PixelsSource"]
