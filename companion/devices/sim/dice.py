"""Virtual dice: a Pixels die and a GoDice as Bumble GATT servers on the in-process radio.

They advertise, answer and notify as the makers' protocols describe, and roll
on command: `roll(face)` sends the tumble then the settle, `tumble()` starts a
roll that never ends (to pull the die away mid-roll), `leave()` and
`come_back()` carry the die out of range and back. The app reaches them through
its ordinary bleak code with the virtual backend, exactly as it reaches the
virtual counters, so tests, benchmarks and `companion sim --dice N` need no
hardware.
"""

from __future__ import annotations

import abc
import random

from bumble.core import UUID, AdvertisingData

from companion.devices.dice import godice_protocol, pixels_protocol
from companion.devices.dice.model import DecodeError, DieType
from companion.devices.sim.bumble_backend import VirtualPeripheral, VirtualRadio

DIE_ATT_MTU = 247  # bytes: dice firmware raises its MTU, a Pixels identity is longer than 20
TUMBLES = 3  # rolling notifications before a settle: real dice send a few per roll


class VirtualDie(abc.ABC):
    """A die on the virtual radio that rolls when told to."""

    maker = ""
    service_uuid = pixels_protocol.SERVICE_UUID  # both makers advertise this one
    write_uuid = ""
    notify_uuid = ""

    def __init__(
        self,
        radio: VirtualRadio,
        name: str,
        *,
        battery_percent: int = 87,
        seed: int | None = None,
        address: str | None = None,
    ) -> None:
        self.radio = radio
        self.name = name
        self.battery_percent = battery_percent
        self.rng = random.Random(seed)
        self.face = 1
        self.blinks: list[tuple[int, tuple[int, int, int]]] = []  # (count, colour) per blink
        self.peripheral = self._new_peripheral(address)
        self.address = self.peripheral.address

    def _new_peripheral(self, address: str | None) -> VirtualPeripheral:
        return VirtualPeripheral(
            self.radio,
            self.name,
            service_uuid=self.service_uuid,
            write_uuid=self.write_uuid,
            notify_uuid=self.notify_uuid,
            on_write=self._on_write,
            address=address,
            advertising_extra=self._advertising_extra(),
            att_mtu=DIE_ATT_MTU,
        )

    @property
    def is_connected(self) -> bool:
        """True while the app holds a connection."""
        return self.peripheral.is_connected

    async def start(self) -> None:
        """Switch the die on: it advertises."""
        await self.peripheral.start()

    async def stop(self) -> None:
        """Switch the die off."""
        await self.peripheral.stop()

    async def disconnect(self) -> None:
        """Drop the app's connection; the die keeps advertising."""
        await self.peripheral.disconnect()

    async def leave(self) -> None:
        """Carried out of range: the connection drops and the die is no longer heard."""
        await self.peripheral.stop()

    async def come_back(self) -> None:
        """Back in range, at the same address: the app may reconnect."""
        self.peripheral = self._new_peripheral(self.address)
        await self.peripheral.start()

    async def roll(self, face: int | None = None, *, tumbles: int = TUMBLES) -> int:
        """Tumble, then settle on `face` (random if None); returns the face."""
        await self.tumble(tumbles)
        face = face if face is not None else self.rng.randint(1, self.faces)
        await self.settle(face)
        return face

    @property
    def faces(self) -> int:
        """How many faces this die has."""
        return 6

    @abc.abstractmethod
    async def tumble(self, tumbles: int = TUMBLES) -> None:
        """Start a roll: the pick-up and tumbling notifications, no result yet."""

    @abc.abstractmethod
    async def settle(self, face: int) -> None:
        """Come to rest on `face` after a roll."""

    @abc.abstractmethod
    async def set_battery(self, percent: int) -> None:
        """Change the battery level (and tell the app where the protocol does)."""

    @abc.abstractmethod
    async def _on_write(self, payload: bytes) -> None:
        """A message from the app."""

    def _advertising_extra(self) -> tuple[tuple[int, bytes], ...]:
        return ()


class VirtualPixelsDie(VirtualDie):
    """A Pixels die: answers WhoAreYou, reports its roll states, blinks."""

    maker = "Pixels"
    write_uuid = pixels_protocol.WRITE_CHAR_UUID
    notify_uuid = pixels_protocol.NOTIFY_CHAR_UUID
    BLINK_ACK = 30

    def __init__(
        self,
        radio: VirtualRadio,
        name: str = "Pixel",
        *,
        die_type: DieType = DieType.D6,
        pixel_id: int | None = None,
        legacy_identity: bool = False,
        **kwargs: object,
    ) -> None:
        self.die_type = die_type
        self.pixel_id = pixel_id if pixel_id is not None else random.Random(name).getrandbits(32)
        self.legacy_identity = legacy_identity
        self.state = pixels_protocol.RollState.ON_FACE
        super().__init__(radio, name, **kwargs)  # type: ignore[arg-type]

    @property
    def faces(self) -> int:
        return {DieType.D20: 20, DieType.D12: 12, DieType.D8: 8, DieType.D4: 4}.get(
            self.die_type, 6
        )

    def _advertising_extra(self) -> tuple[tuple[int, bytes], ...]:
        data = UUID(self.service_uuid).to_bytes() + pixels_protocol.service_data(self.pixel_id, 0)
        return ((AdvertisingData.SERVICE_DATA_128_BIT_UUID, data),)

    async def tumble(self, tumbles: int = TUMBLES) -> None:
        await self._state(pixels_protocol.RollState.HANDLING, self.face - 1)
        for _ in range(tumbles):
            await self._state(pixels_protocol.RollState.ROLLING, self.rng.randrange(self.faces))

    async def settle(self, face: int) -> None:
        self.face = face
        await self._state(pixels_protocol.RollState.ROLLED, face - 1)

    async def rest(self, face: int) -> None:
        """Turned by hand onto `face` without a roll."""
        self.face = face
        await self._state(pixels_protocol.RollState.ON_FACE, face - 1)

    async def set_battery(self, percent: int) -> None:
        self.battery_percent = percent
        await self.peripheral.notify(bytes([pixels_protocol.BATTERY_LEVEL, percent, 0]))

    async def _state(self, state: pixels_protocol.RollState, face_index: int) -> None:
        self.state = state
        await self.peripheral.notify(bytes([pixels_protocol.ROLL_STATE, state, face_index]))

    async def _on_write(self, payload: bytes) -> None:
        if not payload:
            return
        if payload[0] == pixels_protocol.WHO_ARE_YOU:
            await self.peripheral.notify(
                pixels_protocol.identity(
                    name=self.name,
                    pixel_id=self.pixel_id,
                    die_type=self.die_type,
                    led_count=self.faces,
                    roll_state=self.state,
                    face_index=self.face - 1,
                    battery_percent=self.battery_percent,
                    legacy=self.legacy_identity,
                )
            )
        elif payload[0] == pixels_protocol.REQUEST_ROLL_STATE:
            await self._state(self.state, self.face - 1)
        elif payload[0] == pixels_protocol.REQUEST_BATTERY_LEVEL:
            await self.set_battery(self.battery_percent)
        elif payload[0] == pixels_protocol.BLINK:
            try:
                count, _duration, colour = pixels_protocol.decode_blink(payload)
            except DecodeError:
                return
            self.blinks.append((count, colour))
            await self.peripheral.notify(bytes([self.BLINK_ACK]))


class VirtualGoDice(VirtualDie):
    """A GoDice: "R" when thrown, "S" and a gravity vector when it settles."""

    maker = "GoDice"
    write_uuid = godice_protocol.WRITE_CHAR_UUID
    notify_uuid = godice_protocol.NOTIFY_CHAR_UUID
    JITTER = 6  # accelerometer noise on a die lying flat, in the die's units

    def __init__(
        self,
        radio: VirtualRadio,
        name: str = "GoDice_000001_R_v04",
        *,
        colour: godice_protocol.Colour = godice_protocol.Colour.RED,
        **kwargs: object,
    ) -> None:
        self.colour = colour
        super().__init__(radio, name, **kwargs)  # type: ignore[arg-type]

    def vector(self, face: int) -> tuple[int, int, int]:
        """A slightly noisy gravity vector with `face` up."""
        ideal = godice_protocol.D6_VECTORS[face]
        return tuple(v + self.rng.randint(-self.JITTER, self.JITTER) for v in ideal)  # type: ignore[return-value]

    async def tumble(self, tumbles: int = TUMBLES) -> None:
        await self.peripheral.notify(godice_protocol.roll_started())

    async def settle(self, face: int) -> None:
        self.face = face
        await self.peripheral.notify(godice_protocol.stable(self.vector(face)))

    async def nudge(self, face: int) -> None:
        """Turned by hand onto `face`: a move, not a roll."""
        self.face = face
        await self.peripheral.notify(
            godice_protocol.stable(self.vector(face), godice_protocol.Stability.MOVE)
        )

    async def set_battery(self, percent: int) -> None:
        self.battery_percent = percent

    async def _on_write(self, payload: bytes) -> None:
        if not payload:
            return
        if payload[0] == godice_protocol.REQUEST_BATTERY:
            await self.peripheral.notify(godice_protocol.battery(self.battery_percent))
        elif payload[0] == godice_protocol.REQUEST_COLOUR:
            await self.peripheral.notify(godice_protocol.colour(self.colour))
        elif payload[0] == godice_protocol.PULSE_LEDS:
            try:
                self.blinks.append(godice_protocol.decode_pulse(payload))
            except DecodeError:
                return
