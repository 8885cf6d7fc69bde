"""Virtual dice on the virtual radio, through the app's real bleak code, into the game log."""

from __future__ import annotations

import asyncio

import pytest

from companion.core import (
    CLASSIC,
    FixedDice,
    Game,
    GameSetup,
    MonsterSpec,
    PlayerSetup,
    RunAway,
    Sex,
    StartCombat,
)
from companion.devices.dice import (
    ANYONE,
    DiceHub,
    DieLostError,
    DieType,
    Motion,
    NoDieError,
    NotAD6Error,
    godice_protocol,
    pixels_protocol,
)
from companion.devices.dice.scan import GODICE, PIXELS, scan
from companion.devices.sim.bumble_backend import VirtualRadio
from companion.devices.sim.dice import VirtualGoDice, VirtualPixelsDie
from companion.devices.sim.virtual_peripheral import VirtualPeripheral

from ..helpers import until
from .conftest import Connect

pytestmark = pytest.mark.slow

ROLL_TIMEOUT_S = 5.0  # s: a settled notification arrives in about a millisecond


def _game() -> Game:
    setup = GameSetup(
        players=(
            PlayerSetup(name="Ann", colour="#ff0000", sex=Sex.FEMALE),
            PlayerSetup(name="Bo", colour="#0000ff", sex=Sex.MALE),
        ),
        edition=CLASSIC,
    )
    return Game(setup, rng=FixedDice([]))  # on-screen dice would fail: every roll is a die's


async def _next(hub: DiceHub, seat: int) -> asyncio.Task:
    task = asyncio.create_task(hub.next_roll(seat))
    await asyncio.sleep(0)  # the waiter is registered before the die moves
    return task


async def test_scan_tells_pixels_from_godice_and_ignores_other_uart_gadgets(
    radio: VirtualRadio, on_air: list
) -> None:
    pixels, godice = VirtualPixelsDie(radio, "Ruby"), VirtualGoDice(radio)
    gadget = VirtualPeripheral(
        radio,
        "UART-thing",
        service_uuid=godice_protocol.SERVICE_UUID,
        write_uuid=godice_protocol.WRITE_CHAR_UUID,
        notify_uuid=godice_protocol.NOTIFY_CHAR_UUID,
        on_write=lambda _data: None,
    )
    for die in (pixels, godice):
        await die.start()
        on_air.append(die)
    await gadget.start()
    try:
        found = {f.name: f.maker for f in await scan(backend=radio.bleak_backend(), timeout_s=0.3)}
    finally:
        await gadget.stop()
    assert found == {"Ruby": PIXELS, "GoDice_000001_R_v04": GODICE}


@pytest.mark.parametrize("maker", [VirtualPixelsDie, VirtualGoDice])
async def test_a_settled_face_is_taken_and_logged_as_a_run_away_roll(
    radio: VirtualRadio, hub: DiceHub, connect: Connect, maker: type
) -> None:
    die = maker(radio, seed=3)
    source = await connect(die, seat=0)
    game = _game()
    game.apply(StartCombat(fighter=0, monsters=(MonsterSpec(name="Slime", level=20),)))
    waiting = await _next(hub, 0)
    await die.roll(5)
    roll = await asyncio.wait_for(waiting, ROLL_TIMEOUT_S)
    assert (roll.face, roll.die_id, roll.die_name) == (5, source.die_id, source.name)
    state = game.apply(RunAway(fighter=0, monster=0, roll=roll.d6()))
    assert state.last_combat is not None and state.last_combat.rolls[0].escaped
    logged = game.log[-1]
    assert isinstance(logged, RunAway) and logged.roll == 5
    assert source.last_face == 5 and source.motion is Motion.SETTLED


async def test_pixels_identity_gives_type_battery_and_name(
    radio: VirtualRadio, connect: Connect
) -> None:
    die = VirtualPixelsDie(radio, "Onyx", battery_percent=42, die_type=DieType.D6_PIPPED)
    source = await connect(die)
    assert (source.name, source.die_type, source.battery_percent) == (
        "Onyx",
        DieType.D6_PIPPED,
        42,
    )
    await die.set_battery(41)
    await until(lambda: source.battery_percent == 41)


async def test_godice_reports_battery_after_connecting(
    radio: VirtualRadio, connect: Connect
) -> None:
    source = await connect(VirtualGoDice(radio, battery_percent=66))
    await until(lambda: source.battery_percent == 66)


@pytest.mark.parametrize("maker", [VirtualPixelsDie, VirtualGoDice])
async def test_tumbling_then_settled_counts_once(
    radio: VirtualRadio, hub: DiceHub, connect: Connect, maker: type
) -> None:
    die = maker(radio, seed=1)
    source = await connect(die)
    rolls: list = []
    source.rolls.add(rolls.append)
    await die.tumble(5)
    await die.settle(2)
    await die.settle(2)  # the die repeats itself: still the same roll
    await until(lambda: len(rolls) == 1)
    waiting = await _next(hub, 0)
    # A tumble sent after the repeat is seen only once the repeat has been read.
    await die.tumble(1)
    await until(lambda: source.motion is Motion.ROLLING)
    assert not waiting.done()  # the repeat did not answer a new wait
    await die.roll(6)
    assert (await asyncio.wait_for(waiting, ROLL_TIMEOUT_S)).face == 6
    assert [r.face for r in rolls] == [2, 6]


async def test_turning_a_die_by_hand_is_not_a_roll(
    radio: VirtualRadio, hub: DiceHub, connect: Connect
) -> None:
    pixels, godice = VirtualPixelsDie(radio, "Ruby"), VirtualGoDice(radio)
    sources = [await connect(pixels), await connect(godice)]
    rolls: list = []
    for source in sources:
        source.rolls.add(rolls.append)
    await pixels.rest(3)
    await godice.nudge(4)
    await until(lambda: sources[0].last_face == 3 and sources[1].last_face == 4)
    assert rolls == []
    assert sources[0].motion is Motion.RESTING


async def test_a_die_lost_mid_roll_tells_the_waiter_and_comes_back_by_itself(
    radio: VirtualRadio, hub: DiceHub, connect: Connect
) -> None:
    die = VirtualPixelsDie(radio, "Ruby")
    source = await connect(die, seat=1)
    waiting = await _next(hub, 1)
    await die.tumble()
    await until(lambda: source.motion is Motion.ROLLING)
    await die.leave()
    with pytest.raises(DieLostError, match="roll on screen"):
        await asyncio.wait_for(waiting, ROLL_TIMEOUT_S)
    assert not source.connected
    with pytest.raises(NoDieError):
        await hub.next_roll(1)  # no die for this seat until it is back
    await die.come_back()
    await until(lambda: source.connected)
    waiting = await _next(hub, 1)
    await die.roll(3)
    assert (await asyncio.wait_for(waiting, ROLL_TIMEOUT_S)).face == 3


async def test_two_dice_for_two_players(
    radio: VirtualRadio, hub: DiceHub, connect: Connect
) -> None:
    ann_die, bo_die = VirtualPixelsDie(radio, "Ann's"), VirtualGoDice(radio)
    await connect(ann_die, seat=0)
    await connect(bo_die, seat=1)
    for_ann, for_bo = await _next(hub, 0), await _next(hub, 1)
    await bo_die.roll(1)
    assert (await asyncio.wait_for(for_bo, ROLL_TIMEOUT_S)).face == 1
    assert not for_ann.done()  # Bo's die does not roll for Ann
    await ann_die.roll(6)
    assert (await asyncio.wait_for(for_ann, ROLL_TIMEOUT_S)).die_name == "Ann's"


async def test_whoever_is_rolling_die_serves_players_without_their_own(
    radio: VirtualRadio, hub: DiceHub, connect: Connect
) -> None:
    shared = VirtualPixelsDie(radio, "Table die")
    source = await connect(shared, seat=ANYONE)
    for seat in (0, 3):
        waiting = await _next(hub, seat)
        await shared.roll(4)
        assert (await asyncio.wait_for(waiting, ROLL_TIMEOUT_S)).die_id == source.die_id
    hub.assign(source.die_id, None)
    with pytest.raises(NoDieError):
        await hub.next_roll(0)


async def test_a_d20_is_refused_for_a_d6_roll_with_a_clear_message(
    radio: VirtualRadio, hub: DiceHub, connect: Connect
) -> None:
    big = VirtualPixelsDie(radio, "Big", die_type=DieType.D20)
    await connect(big, seat=0)
    waiting = await _next(hub, 0)
    await big.roll(17)
    roll = await asyncio.wait_for(waiting, ROLL_TIMEOUT_S)
    assert roll.face == 17
    with pytest.raises(NotAD6Error, match="Big is a d20, not a d6"):
        roll.d6()


async def test_a_godice_in_a_d20_shell_is_refused(
    radio: VirtualRadio, hub: DiceHub, connect: Connect
) -> None:
    die = VirtualGoDice(radio)
    await connect(die, seat=0, shell=DieType.D20)
    waiting = await _next(hub, 0)
    await die.roll(3)
    with pytest.raises(NotAD6Error, match="not a d6"):
        (await asyncio.wait_for(waiting, ROLL_TIMEOUT_S)).d6()


async def test_malformed_notifications_are_counted_not_fatal(
    radio: VirtualRadio, hub: DiceHub, connect: Connect
) -> None:
    die = VirtualPixelsDie(radio, "Ruby")
    source = await connect(die, seat=0)
    for junk in (b"\x03", b"\x03\x01", b"\x02\xff", b"\x22\x05"):
        await die.peripheral.notify(junk)
    await until(lambda: source.malformed == 4)
    await die.peripheral.notify(b"\x22\xff\x00")  # a gauge over 100 %: held to 100, not refused
    await until(lambda: source.battery_percent == 100)
    assert source.malformed == 4
    waiting = await _next(hub, 0)
    await die.roll(1)
    assert (await asyncio.wait_for(waiting, ROLL_TIMEOUT_S)).face == 1


async def test_cancelling_a_wait_leaves_nothing_behind(
    radio: VirtualRadio, hub: DiceHub, connect: Connect
) -> None:
    die = VirtualGoDice(radio)
    source = await connect(die, seat=0)
    waiting = await _next(hub, 0)
    assert hub.waiting_for(source.die_id)
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    assert not hub.waiting_for(source.die_id)
    await die.roll(2)
    await until(lambda: source.last_face == 2)


async def test_the_awaited_die_blinks(radio: VirtualRadio, hub: DiceHub, connect: Connect) -> None:
    pixels, godice = VirtualPixelsDie(radio, "Ruby"), VirtualGoDice(radio)
    await connect(pixels, seat=0)
    await connect(godice, seat=1)
    waiting = asyncio.create_task(hub.next_roll(0, blink=True))
    await until(lambda: len(pixels.blinks) == 1)
    assert godice.blinks == []  # only the die the app waits for lights up
    waiting.cancel()
    assert await asyncio.gather(waiting, return_exceptions=True)


class BoastfulPixelsDie(VirtualPixelsDie):
    """A Pixels die whose IAmADie gives it a long name with a text-direction override in it
    (the name chunk's size byte allows some 200 characters in one notification)."""

    def __init__(self, radio: VirtualRadio, long_name: str) -> None:
        super().__init__(radio, "Boast")
        notify = self.peripheral.notify
        name = long_name.encode() + b"\0"
        at = 1 + 15 + 9 + 2  # the id, then the version, die and design chunks

        async def boast(payload: bytes) -> None:
            if payload[:1] == bytes([pixels_protocol.I_AM_A_DIE]):
                chunk = bytes([1 + len(name)]) + name
                payload = payload[:at] + chunk + payload[at + payload[at] :]
            await notify(payload)

        self.peripheral.notify = boast  # type: ignore[method-assign]


async def test_a_die_that_names_itself_at_length_still_rolls_into_the_log(
    radio: VirtualRadio, hub: DiceHub, connect: Connect
) -> None:
    long_name = "Ruby \u202eelbuod\u202c of the " + "very " * 24 + "long name"
    die = BoastfulPixelsDie(radio, long_name)
    source = await connect(die, seat=0)
    assert source.name.startswith("Ruby") and len(source.name) > 100  # what it says of itself
    game = _game()
    game.apply(StartCombat(fighter=0, monsters=(MonsterSpec(name="Slime", level=20),)))
    waiting = await _next(hub, 0)
    await die.roll(4)
    roll = await asyncio.wait_for(waiting, ROLL_TIMEOUT_S)

    game.apply(RunAway(fighter=0, monster=0, roll=roll.d6(), die=roll.label))  # not refused
    logged = game.log[-1]
    assert isinstance(logged, RunAway) and logged.roll == 4
    assert logged.die.startswith("Ruby elbuod of the very") and logged.die.endswith("\u2026 (d6)")
    assert len(logged.die) <= 80 and "\u202e" not in logged.die and "\u202c" not in logged.die
