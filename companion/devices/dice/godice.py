"""A GoDice die as a dice source: read its resting vector through the shell it wears."""

from __future__ import annotations

from typing import Any

from bleak.backends.device import BLEDevice

from companion.devices.ble_link import BleBackend
from companion.devices.dice import godice_protocol as proto
from companion.devices.dice.ble_source import BleDieSource
from companion.devices.dice.model import DieType, Motion
from companion.devices.dice.source import BLINK_COLOUR, RollGate, loop_time
from companion.devices.link import Link


class GoDiceSource(BleDieSource):
    """A GoDice: "R" when it starts tumbling, "S" with a vector when it settles.

    The die cannot tell which shell it wears; `shell` is what its owner set
    (a bare GoDice is a d6).
    """

    maker = "GoDice"
    characteristics = ((proto.WRITE_CHAR_UUID, proto.NOTIFY_CHAR_UUID),)

    def __init__(
        self,
        device: BLEDevice,
        *,
        backend: BleBackend | None = None,
        name: str | None = None,
        shell: DieType = DieType.D6,
    ) -> None:
        super().__init__(device, backend=backend, name=name, die_type=shell)
        self.colour: proto.Colour | None = None
        # The die itself tells a real roll ("S") from a nudge ("MS", "FS", "TS"), so a
        # settle counts even if the tumble began before the app connected.
        self._gate = RollGate(armed=True)

    def set_shell(self, shell: DieType) -> None:
        """The owner put the die in another shell (or took it out: `DieType.D6`)."""
        self._report(die_type=shell)

    def decode(self, data: bytes) -> proto.Message:
        return proto.decode(data)

    def handle(self, message: Any) -> None:
        if isinstance(message, proto.RollStarted):
            self._gate.moving()
            self._report(motion=Motion.ROLLING, last_face=None)
        elif isinstance(message, proto.Resting):
            face = proto.face_for(self.die_type, message.vector)
            if message.stability is proto.Stability.STABLE:
                self._report_settled(face, self._gate.settled(), loop_time())
            else:
                self._gate.rested()
                tilted = message.stability is proto.Stability.TILT
                self._report(motion=Motion.CROOKED if tilted else Motion.RESTING, last_face=face)
        elif isinstance(message, proto.Battery):
            self._report(battery_percent=message.percent)
        elif isinstance(message, proto.ColourReport):
            self._report(colour=message.colour)

    async def _on_open(self, link: Link) -> None:
        self._gate.moving()
        await link.send(proto.request_battery())
        await link.send(proto.request_colour())

    async def blink(self, rgb: tuple[int, int, int] = BLINK_COLOUR) -> bool:
        return await self.send(proto.pulse(rgb, count=2))
