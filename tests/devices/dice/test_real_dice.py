"""What the makers' own dice do, which the virtual dice now do too, read through the app's code.

Checked against the makers' published sources (the Pixels firmware and its
pixels-js library, the GoDice clients): the service Pixels firmware offers since
late 2024 beside the older one, what older Pixels firmware reports wrongly, what a
Pixels die advertises, and that GoDice take writes with response only.
"""

from __future__ import annotations

import asyncio

import pytest
from bumble.core import UUID, AdvertisingData
from bumble.device import Advertisement

from companion.devices.dice import DiceHub, DieType, Motion, godice_protocol, pixels_protocol
from companion.devices.dice.godice import GoDiceSource
from companion.devices.dice.scan import PIXELS, scan
from companion.devices.sim.bumble_backend import VirtualRadio
from companion.devices.sim.dice import VirtualGoDice, VirtualPixelsDie

from ..helpers import until
from .conftest import Connect

pytestmark = pytest.mark.slow

ROLL_TIMEOUT_S = 5.0  # s: a settled notification arrives in about a millisecond
OLD_NORMALS = 1_700_000_000  # a firmware build of 2023-11-14, with the wrong normals
BEFORE_CROOKED_FIX = 1_710_000_000  # 2024-03-09: after the normals, before 2024-05-22


async def next_roll(hub: DiceHub, seat: int) -> asyncio.Task:
    task = asyncio.create_task(hub.next_roll(seat))
    await until(lambda: hub.waiting_for(hub.dice[0].die_id))  # the waiter is registered
    return task


@pytest.mark.parametrize("legacy", [False, True], ids=["since late 2024", "2024-11-07 and older"])
async def test_pixels_on_either_service_are_found_and_rolled(
    radio: VirtualRadio, hub: DiceHub, connect: Connect, legacy: bool
) -> None:
    die = VirtualPixelsDie(radio, "Ruby", legacy_service=legacy)
    source = await connect(die, seat=0)
    assert source.link.write_char_uuid == die.write_uuid  # the die's own pair, not the other
    waiting = await next_roll(hub, 0)
    await die.roll(4)
    assert (await asyncio.wait_for(waiting, ROLL_TIMEOUT_S)).face == 4


async def test_the_advertisement_says_who_the_die_is_before_any_connection(
    radio: VirtualRadio, on_air: list
) -> None:
    die = VirtualPixelsDie(radio, "Ruby", pixel_id=0xC0FFEE, battery_percent=64)
    await die.start()
    on_air.append(die)
    found = []
    async with asyncio.timeout(10):
        while not found or found[0].advert is None:
            found = [f for f in await scan(backend=radio.bleak_backend(), timeout_s=0.05)]
    (ruby,) = found
    assert ruby.maker == PIXELS and ruby.advert is not None
    advert = ruby.advert
    assert (advert.pixel_id, advert.build_timestamp) == (0xC0FFEE, die.build_timestamp)
    assert (advert.die_type, advert.led_count, advert.battery_percent) == (DieType.D6, 6, 64)
    assert advert.roll_state is pixels_protocol.RollState.ON_FACE and advert.face == 1


async def test_a_d6_on_firmware_with_wrong_normals_reads_the_face_that_is_up(
    radio: VirtualRadio, hub: DiceHub, connect: Connect
) -> None:
    die = VirtualPixelsDie(radio, "Old", build_timestamp=OLD_NORMALS, legacy_service=True)
    source = await connect(die, seat=0)
    for face in (2, 5, 3, 4, 6):
        waiting = await next_roll(hub, 0)
        await die.roll(face)
        assert (await asyncio.wait_for(waiting, ROLL_TIMEOUT_S)).face == face
    assert source.last_face == 6


async def test_a_slightly_tilted_roll_on_firmware_before_2024_05_22_still_counts(
    radio: VirtualRadio, hub: DiceHub, connect: Connect
) -> None:
    die = VirtualPixelsDie(radio, "Tilt", build_timestamp=BEFORE_CROOKED_FIX, legacy_service=True)
    source = await connect(die, seat=0)
    waiting = await next_roll(hub, 0)
    await die.tumble()
    await die.settle(3, tilted=True)  # that firmware says "crooked"
    assert (await asyncio.wait_for(waiting, ROLL_TIMEOUT_S)).face == 3
    assert source.motion is Motion.SETTLED


async def test_a_crooked_die_on_current_firmware_is_still_no_result(
    radio: VirtualRadio, hub: DiceHub, connect: Connect
) -> None:
    die = VirtualPixelsDie(radio, "Lean")
    source = await connect(die, seat=0)
    await die.tumble()
    await die._state(pixels_protocol.RollState.CROOKED, 2)  # leaning on something: no face up
    await until(lambda: source.motion is Motion.CROOKED)
    waiting = await next_roll(hub, 0)
    await die.settle(6)
    assert (await asyncio.wait_for(waiting, ROLL_TIMEOUT_S)).face == 6


async def test_a_godice_takes_writes_with_response_and_stays_connected(
    radio: VirtualRadio, hub: DiceHub, connect: Connect
) -> None:
    """Its RX characteristic declares no write without response, which Linux refuses."""
    die = VirtualGoDice(radio, battery_percent=55)
    source = await connect(die, seat=0)
    await until(lambda: source.battery_percent == 55)  # the battery request went through
    assert await source.blink()
    await until(lambda: len(die.blinks) == 1)
    assert die.peripheral.connections == 1  # never dropped and reconnected


async def _reports(radio: VirtualRadio, address: str) -> tuple[Advertisement, Advertisement]:
    """The first advertisement and the first scan response heard from `address`."""
    heard: list[Advertisement] = []
    stop = await radio.add_scan_listener(heard.append)
    try:
        async with asyncio.timeout(ROLL_TIMEOUT_S):
            while True:
                mine = [a for a in heard if a.address.to_string(False) == address]
                first = next((a for a in mine if not a.is_scan_response), None)
                response = next((a for a in mine if a.is_scan_response), None)
                if first is not None and response is not None:
                    return first, response
                await asyncio.sleep(0.005)
    finally:
        await stop()


def _structures(advertisement: Advertisement) -> dict[int, bytes]:
    return {kind: bytes(value) for kind, value in advertisement.data.ad_structures}


@pytest.mark.parametrize("legacy", [False, True], ids=["since late 2024", "2024-11-07 and older"])
async def test_a_pixels_die_splits_its_advertisement_as_the_firmware_does(
    radio: VirtualRadio, on_air: list, legacy: bool
) -> None:
    die = VirtualPixelsDie(radio, "Ruby", pixel_id=0xC0FFEE, legacy_service=legacy)
    await die.start()
    on_air.append(die)
    first, response = await _reports(radio, die.address)
    advertised = _structures(first)
    company = 0xFFFF if legacy else 0x0D39
    # The advertisement: Device Information listed, the state as manufacturer data ...
    assert advertised[AdvertisingData.COMPLETE_LIST_OF_16_BIT_SERVICE_CLASS_UUIDS] == b"\x0a\x18"
    state = advertised[AdvertisingData.MANUFACTURER_SPECIFIC_DATA]
    assert int.from_bytes(state[:2], "little") == company and len(state) == 2 + 5
    # ... and neither the service nor the id, which only the scan response carries.
    assert AdvertisingData.COMPLETE_LIST_OF_128_BIT_SERVICE_CLASS_UUIDS not in advertised
    assert AdvertisingData.SERVICE_DATA_16_BIT_UUID not in advertised
    assert len(first.data_bytes) <= 31  # legacy advertising, as the firmware's
    answered = _structures(response)  # the stack shows it merged with the advertisement
    service = UUID(die.service_uuid).to_bytes()
    assert answered[AdvertisingData.COMPLETE_LIST_OF_128_BIT_SERVICE_CLASS_UUIDS] == service
    info = answered[AdvertisingData.SERVICE_DATA_16_BIT_UUID]
    assert info == b"\x0a\x18" + pixels_protocol.service_data(0xC0FFEE, die.build_timestamp)


async def test_a_pixels_die_heard_without_its_scan_response_is_found_and_rolled(
    radio: VirtualRadio, hub: DiceHub, connect: Connect
) -> None:
    """A passive scan, or a crowded room: only the advertisement is heard."""
    radio.scan_responses_heard = False
    die = VirtualPixelsDie(radio, "Ruby")
    source = await connect(die, seat=0)  # found by its scan, as every die here
    assert source.maker == PIXELS
    waiting = await next_roll(hub, 0)
    await die.roll(5)
    assert (await asyncio.wait_for(waiting, ROLL_TIMEOUT_S)).face == 5


async def test_a_roll_state_this_app_does_not_know_keeps_the_die(
    radio: VirtualRadio, hub: DiceHub, connect: Connect
) -> None:
    die = VirtualPixelsDie(radio, "Newer")
    die.state = 9  # type: ignore[assignment]  # a state of firmware newer than this app
    source = await connect(die, seat=0)  # its identity is taken all the same
    assert source.motion is Motion.UNKNOWN
    await die.peripheral.notify(bytes([pixels_protocol.ROLL_STATE, 7, 0]))
    await die.tumble()
    await until(lambda: source.motion is Motion.ROLLING)
    assert source.malformed == 0
    waiting = await next_roll(hub, 0)
    await die.settle(2)
    assert (await asyncio.wait_for(waiting, ROLL_TIMEOUT_S)).face == 2


async def test_a_pixels_blink_plays_once(radio: VirtualRadio, connect: Connect) -> None:
    die = VirtualPixelsDie(radio, "Ruby")
    source = await connect(die, seat=0)
    assert await source.blink()
    await until(lambda: len(die.blink_messages) == 1)
    assert die.blink_messages[0].loop_count == 1  # a loop count, not a "loop" flag of 0


@pytest.mark.parametrize(
    ("shell", "face"),
    [(DieType.D20, 17), (DieType.D4, 3), (DieType.D8, 7), (DieType.D10, 0), (DieType.D00, 90)],
)
async def test_a_godice_in_a_shell_reads_the_face_up_as_the_maker_does(
    radio: VirtualRadio, hub: DiceHub, connect: Connect, shell: DieType, face: int
) -> None:
    die = VirtualGoDice(radio, shell=shell, seed=1)
    source = await connect(die, seat=0, shell=shell)
    waiting = await next_roll(hub, 0)
    await die.roll(face)
    roll = await asyncio.wait_for(waiting, ROLL_TIMEOUT_S)
    assert (roll.die_type, roll.face) == (shell, face)
    assert source.last_face == face


async def test_a_godice_of_a_colour_this_app_does_not_know_stays(
    radio: VirtualRadio, hub: DiceHub, connect: Connect
) -> None:
    die = VirtualGoDice(radio, colour=7)
    source = await connect(die, seat=0)
    await until(lambda: source.battery_percent is not None)
    assert isinstance(source, GoDiceSource)
    await die.peripheral.notify(godice_protocol.colour(7))
    await die.peripheral.notify(godice_protocol.battery(40))
    await until(lambda: source.battery_percent == 40)
    assert source.colour is None and source.malformed == 0
    await die.peripheral.notify(godice_protocol.colour(godice_protocol.Colour.ORANGE))
    await until(lambda: source.colour is godice_protocol.Colour.ORANGE)
