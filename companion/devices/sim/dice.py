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
from companion.devices.sim.bumble_backend import VirtualRadio
from companion.devices.sim.virtual_peripheral import VirtualPeripheral

_LEDS = {DieType.D6_PIPPED: 21, DieType.D8: 8, DieType.D10: 10, DieType.D00: 10}
_LEDS |= {DieType.D12: 12, DieType.D20: 20}  # d6, fudge d6 and d4: 6 LEDs
DIE_ATT_MTU = 247  # bytes: dice firmware raises its MTU, a Pixels identity is longer than 20
TUMBLES = 3  # rolling notifications before a settle: real dice send a few per roll


class VirtualDie(abc.ABC):
    """A die on the virtual radio that rolls when told to."""

    maker = ""
    service_uuid = ""
    write_uuid = ""
    notify_uuid = ""
    write_without_response = True  # what its write characteristic declares

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
            scan_response=self._scan_response(),
            att_mtu=DIE_ATT_MTU,
            write_without_response=self.write_without_response,
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

    def _scan_response(self) -> tuple[tuple[int, bytes], ...]:
        """Given, the die advertises as a Pixels die: these in its scan response."""
        return ()


class VirtualPixelsDie(VirtualDie):
    """A Pixels die: answers WhoAreYou, reports its roll states, blinks.

    As the real dice: firmware built since late 2024 offers the current service,
    older firmware (``legacy_service``) the 6e400001 one. It advertises as the
    firmware does: the advertisement lists 180a and carries the state as
    manufacturer data; the scan response lists the service and carries the id and
    build time as service data under 180a. Firmware
    built by `pixels_protocol.BAD_NORMALS_BUILT_BY` reports d6 and d4 faces through
    its wrong normals, and before 2024-05-22 a 6-LED die calls a tilted settle crooked.
    """

    maker = "Pixels"
    BLINK_ACK = 30
    BUILT = 1_735_689_600  # s: a firmware build of 2025-01-01, on the current service
    LEGACY_BUILT = 1_730_937_600  # s: the 2024-11-07 release, on the legacy service

    def __init__(
        self,
        radio: VirtualRadio,
        name: str = "Pixel",
        *,
        die_type: DieType = DieType.D6,
        pixel_id: int | None = None,
        legacy_identity: bool = False,
        legacy_service: bool = False,
        build_timestamp: int | None = None,
        led_count: int | None = None,
        **kwargs: object,
    ) -> None:
        self.die_type = die_type
        self.pixel_id = pixel_id if pixel_id is not None else random.Random(name).getrandbits(32)
        self.legacy_identity = legacy_identity
        self.state = pixels_protocol.RollState.ON_FACE
        self.blink_messages: list[pixels_protocol.Blink] = []  # every Blink, as the die read it
        if legacy_service:
            self.service_uuid = pixels_protocol.LEGACY_SERVICE_UUID
            self.write_uuid = pixels_protocol.LEGACY_WRITE_CHAR_UUID
            self.notify_uuid = pixels_protocol.LEGACY_NOTIFY_CHAR_UUID
        else:
            self.service_uuid = pixels_protocol.SERVICE_UUID
            self.write_uuid = pixels_protocol.WRITE_CHAR_UUID
            self.notify_uuid = pixels_protocol.NOTIFY_CHAR_UUID
        default_built = self.LEGACY_BUILT if legacy_service else self.BUILT
        self.build_timestamp = build_timestamp if build_timestamp is not None else default_built
        self.led_count = led_count if led_count is not None else _LEDS.get(die_type, 6)
        super().__init__(radio, name, **kwargs)  # type: ignore[arg-type]

    @property
    def faces(self) -> int:
        return {DieType.D20: 20, DieType.D12: 12, DieType.D8: 8, DieType.D4: 4}.get(
            self.die_type, 6
        )

    def _index(self, face: int) -> int:
        """The face index this die's firmware reports for ``face`` (wrong normals and all)."""
        if 0 < self.build_timestamp <= pixels_protocol.BAD_NORMALS_BUILT_BY:
            if self.die_type is DieType.D6:
                return {2: 4, 3: 3, 4: 2, 5: 1}.get(face, face - 1)
            if self.die_type is DieType.D4:
                return {2: 3, 3: 2, 4: 5}.get(face, 0)
        return face - 1

    def _advertising_extra(self) -> tuple[tuple[int, bytes], ...]:
        state = pixels_protocol.manufacturer_data(
            led_count=self.led_count,
            die_type=self.die_type,
            roll_state=self.state,
            face_index=self._index(self.face),
            battery_percent=self.battery_percent,
        )
        # The firmware's company id: unassigned until the release that moved to the
        # current service, Systemic Games' since.
        legacy = self.service_uuid == pixels_protocol.LEGACY_SERVICE_UUID
        company = pixels_protocol.COMPANY_IDS[0 if legacy else 1].to_bytes(2, "little")
        return (
            (AdvertisingData.COMPLETE_LIST_OF_16_BIT_SERVICE_CLASS_UUIDS, UUID("180A").to_bytes()),
            (AdvertisingData.MANUFACTURER_SPECIFIC_DATA, company + state),
        )

    def _scan_response(self) -> tuple[tuple[int, bytes], ...]:
        info = pixels_protocol.service_data(self.pixel_id, self.build_timestamp)
        return (
            (
                AdvertisingData.COMPLETE_LIST_OF_128_BIT_SERVICE_CLASS_UUIDS,
                UUID(self.service_uuid).to_bytes(),
            ),
            (AdvertisingData.SERVICE_DATA_16_BIT_UUID, UUID("180A").to_bytes() + info),
        )

    async def tumble(self, tumbles: int = TUMBLES) -> None:
        await self._state(pixels_protocol.RollState.HANDLING, self._index(self.face))
        for _ in range(tumbles):
            await self._state(pixels_protocol.RollState.ROLLING, self.rng.randrange(self.faces))

    async def settle(self, face: int, *, tilted: bool = False) -> None:
        """Come to rest on ``face``; ``tilted``: slightly leaning, still clearly on that face."""
        self.face = face
        crooked = tilted and pixels_protocol.tilted_is_crooked(self.led_count, self.build_timestamp)
        state = pixels_protocol.RollState.CROOKED if crooked else pixels_protocol.RollState.ROLLED
        await self._state(state, self._index(face))

    async def rest(self, face: int) -> None:
        """Turned by hand onto `face` without a roll."""
        self.face = face
        await self._state(pixels_protocol.RollState.ON_FACE, self._index(face))

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
                    led_count=self.led_count,
                    roll_state=self.state,
                    face_index=self._index(self.face),
                    battery_percent=self.battery_percent,
                    build_timestamp=self.build_timestamp,
                    legacy=self.legacy_identity,
                )
            )
        elif payload[0] == pixels_protocol.REQUEST_ROLL_STATE:
            await self._state(self.state, self._index(self.face))
        elif payload[0] == pixels_protocol.REQUEST_BATTERY_LEVEL:
            await self.set_battery(self.battery_percent)
        elif payload[0] == pixels_protocol.BLINK:
            try:
                blink = pixels_protocol.decode_blink(payload)
            except DecodeError:
                return
            self.blinks.append((blink.count, blink.rgb))
            self.blink_messages.append(blink)
            await self.peripheral.notify(bytes([self.BLINK_ACK]))


class VirtualGoDice(VirtualDie):
    """A GoDice: "R" when thrown, "S" and a gravity vector when it settles.

    ``shell`` is the shell it wears (the bare die is a d6): its faces and the vectors
    it reports for them are the maker's for that shell. ``colour`` may be any code,
    as a newer die might report one this app does not know.

    Its RX characteristic takes writes with response only, as the maker's clients
    write: on Linux a write without response to it is refused before it is sent.
    """

    maker = "GoDice"
    service_uuid = godice_protocol.SERVICE_UUID
    write_uuid = godice_protocol.WRITE_CHAR_UUID
    notify_uuid = godice_protocol.NOTIFY_CHAR_UUID
    write_without_response = False
    # Accelerometer noise on a die lying flat, in the die's units: well inside half the
    # distance between two positions showing different numbers (the closest lie 35 apart).
    JITTER = 6

    def __init__(
        self,
        radio: VirtualRadio,
        name: str = "GoDice_000001_R_v04",
        *,
        colour: int = godice_protocol.Colour.RED,
        shell: DieType = DieType.D6,
        **kwargs: object,
    ) -> None:
        self.colour = colour
        self.shell = shell
        super().__init__(radio, name, **kwargs)  # type: ignore[arg-type]

    @property
    def faces(self) -> int:
        return len(godice_protocol.shell_faces(self.shell))

    async def roll(self, face: int | None = None, *, tumbles: int = TUMBLES) -> int:
        """Tumble, then settle on `face` (random among the shell's faces if None)."""
        if face is None:
            face = self.rng.choice(godice_protocol.shell_faces(self.shell))
        return await super().roll(face, tumbles=tumbles)

    def vector(self, face: int) -> tuple[int, int, int]:
        """A slightly noisy gravity vector with `face` up in the die's shell."""
        ideal = godice_protocol.vector_for(self.shell, face)
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
