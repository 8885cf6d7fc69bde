"""The board fakes are the real ports: the same names, the same failures, the same wake-ups.

The names come from tests/firmware/ports.py (read from MicroPython's sources, per port
and release); the CPython fakes (boardfakes.py) and the VM board's modules (vmboard/)
must offer exactly those. Then the firmware's start-up and its cut-off sleep are run
on each port's fake, where the real port would have failed them.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import boardfakes
import pytest
from counter import board as boardmod
from counter.store import MemoryStore
from mpvm import PINOUTS, MicroPythonVM, VMError
from ports import PORTS, RELEASES, names, profile

HERE = Path(__file__).parent
PORTS_AND_RELEASES = [(mcu, release) for mcu in PORTS for release in RELEASES]


def public(obj) -> list[str]:
    return sorted(n for n in dir(obj) if not n.startswith("_"))


@pytest.mark.parametrize(("mcu", "release"), PORTS_AND_RELEASES)
def test_the_cpython_fakes_have_exactly_the_ports_names(
    monkeypatch: pytest.MonkeyPatch, mcu: str, release: str
) -> None:
    env = boardfakes.install(monkeypatch, mcu, release)
    want = names(mcu, release)
    machine = sys.modules["machine"]
    assert public(machine) == sorted(want["machine"])
    assert public(machine.Pin) == sorted(want["Pin"])
    if want["esp32"]:
        assert public(sys.modules["esp32"]) == sorted(want["esp32"])
    else:
        with pytest.raises(ImportError):
            import esp32  # noqa: F401
    assert env.wires.port["release"] == release


@pytest.fixture(scope="module")
def vm_ports(tmp_path_factory: pytest.TempPathFactory):
    """What the VM board's machine, Pin and esp32 offer, for every port and release."""
    found = {}
    for mcu, release in PORTS_AND_RELEASES:
        folder = tmp_path_factory.mktemp("profile")
        (folder / "profile.json").write_text(json.dumps(profile(mcu, release)))
        vm = MicroPythonVM(
            extra=(f"/fakes={HERE / 'vmboard'}", f"/fakes/profile.json={folder / 'profile.json'}")
        )
        try:
            vm.run("sys.path.insert(0, '/fakes')\nimport machine")
            pub = "sorted(n for n in dir({}) if not n.startswith('_'))"
            seen = {
                "machine": vm.call(pub.format("machine")),
                "Pin": vm.call(pub.format("machine.Pin")),
            }
            seen["esp32"] = vm.call(pub.format("__import__('esp32')")) if mcu != "RP2040" else []
            # The failures a firmware would meet on that port.
            for probe in (
                "machine.SOFT_RESET",
                "machine.DEEPSLEEP",
                "machine.Pin(6, machine.Pin.IN).irq(trigger=machine.Pin.IRQ_FALLING, wake=4)",
                "machine.Pin(6, machine.Pin.IN).irq(handler=None, hard=True)",
                "machine.WDT(timeout=9000)",
                "machine.Timer(-1)",
            ):
                try:
                    vm.run(probe)
                    seen[probe] = None
                except VMError as exc:
                    seen[probe] = exc.type
            found[(mcu, release)] = seen
        finally:
            vm.close()
    return found


@pytest.mark.slow
@pytest.mark.parametrize(("mcu", "release"), PORTS_AND_RELEASES)
def test_the_vm_board_has_exactly_the_ports_names_and_fails_as_it_does(
    vm_ports: dict, mcu: str, release: str
) -> None:
    seen = vm_ports[(mcu, release)]
    want = names(mcu, release)
    for module in ("machine", "Pin", "esp32"):
        assert seen[module] == sorted(want[module]), module
    rp2 = mcu == "RP2040"
    assert seen["machine.SOFT_RESET"] == ("AttributeError" if rp2 else None)
    assert seen["machine.DEEPSLEEP"] == ("AttributeError" if rp2 else None)
    # rp2 has no wake=; esp32 takes it with an edge trigger and ignores it.
    wake = "machine.Pin(6, machine.Pin.IN).irq(trigger=machine.Pin.IRQ_FALLING, wake=4)"
    assert seen[wake] == ("TypeError" if rp2 else None)
    assert seen["machine.Pin(6, machine.Pin.IN).irq(handler=None, hard=True)"] == (
        None if rp2 else "TypeError"
    )
    assert seen["machine.WDT(timeout=9000)"] == ("ValueError" if rp2 else None)
    virtual = rp2 or release.startswith("1.29")
    assert seen["machine.Timer(-1)"] == (None if virtual else "ValueError")


# -- the start-up on each port -------------------------------------------------------------------


@pytest.mark.parametrize("mcu", list(PORTS))
def test_every_port_counts_its_starts_with_the_names_it_has(
    monkeypatch: pytest.MonkeyPatch, mcu: str
) -> None:
    """The Pico W has no DEEPSLEEP_RESET or SOFT_RESET: reading them stopped every start."""
    start = boardfakes.install(monkeypatch, mcu).start
    machine = sys.modules["machine"]
    guard = start.BootGuard(MemoryStore())
    assert [guard.starting(machine.PWRON_RESET) for _ in range(start.BOOT_LIMIT)] == [
        "run",
        "run",
        "safe",
    ]
    if mcu != "RP2040":  # a wake from deep sleep and a soft reset are no crash
        assert guard.starting(machine.DEEPSLEEP_RESET) == "run"
        assert guard.starting(machine.SOFT_RESET) == "run"
        assert guard.boots() == 0


def test_a_pico_w_level_board_starts_in_safe_mode_after_a_boot_loop(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    env = boardfakes.install(monkeypatch, "RP2040")
    data = tmp_path / "data"
    data.mkdir()
    (data / "boots").write_text("2")
    pinout = str(PINOUTS / "levelboard-picow.json")
    assert env.start.boot(pinout, str(data)) == "safe"


# -- the cut-off: asleep until a button, on each chip --------------------------------------------


def pin_map(tmp_path: Path, name: str, **buttons: int) -> boardmod.Board:
    """A pin map from hardware/pinouts with some buttons moved to other pins."""
    data = json.loads((PINOUTS / f"{name}.json").read_text())
    for button, pin in buttons.items():
        data["buttons"][button]["pin"] = pin
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(data))
    return boardmod.load(str(path))


def cut_off(env, board: boardmod.Board) -> boardfakes.Reset:
    """Run hw.cut_off; the reset (or deep sleep) it ends in. A light sleep ends in a press."""
    from counter import hw

    buttons = board.buttons.keys()
    pin = board.buttons["plus" if "plus" in buttons else "claim"].pin

    def press() -> None:
        env.wires.levels[pin] = 0

    env.wires.on_lightsleep = press
    with pytest.raises(boardfakes.Reset) as ended:
        hw.cut_off(board, show_ms=0)
    return ended.value


def test_a_c3_tracker_cut_off_sleeps_light_and_wakes_on_its_plus_button(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """GPIO6 cannot wake a C3 from deep sleep, and Pin.irq(wake=) with an edge trigger
    arms nothing there: the tracker slept until the power switch. esp32.wake_on_gpio
    wakes it from light sleep."""
    env = boardfakes.install(monkeypatch, "ESP32-C3")
    reset = cut_off(env, boardmod.load(str(PINOUTS / "tracker-esp32c3.json")))
    assert not reset.deep  # a press, then machine.reset(): the next start reads the cell
    assert env.wires.light_sleeps == [{6: 0}]  # + (GPIO6, active low) could end the sleep


def test_a_c3_with_its_button_on_a_deep_sleep_pin_sleeps_deep(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    env = boardfakes.install(monkeypatch, "ESP32-C3")
    reset = cut_off(env, pin_map(tmp_path, "tracker-esp32c3", plus=3))
    assert reset.deep and reset.wake == {3: 0}


def test_an_s3_cut_off_sleeps_deep_and_wakes_on_ext0(monkeypatch: pytest.MonkeyPatch) -> None:
    env = boardfakes.install(monkeypatch, "ESP32-S3")
    reset = cut_off(env, boardmod.load(str(PINOUTS / "levelboard-esp32s3.json")))
    assert reset.deep and reset.wake == {0: 0}  # the BOOT button, GPIO0


def test_an_s3_button_off_the_rtc_pins_sleeps_light(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    env = boardfakes.install(monkeypatch, "ESP32-S3")
    reset = cut_off(env, pin_map(tmp_path, "levelboard-esp32s3", claim=38))
    assert not reset.deep and env.wires.light_sleeps == [{38: 0}]


def test_a_pico_w_cut_off_sleeps_light_a_while_at_a_time_until_its_button(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """rp2 has no wake= and no pin wakes its deep sleep; an enabled pin IRQ ends a timed
    light sleep early."""
    env = boardfakes.install(monkeypatch, "RP2040")
    reset = cut_off(env, boardmod.load(str(PINOUTS / "levelboard-picow.json")))
    assert not reset.deep and env.wires.light_sleeps == [{14: 0}]


# -- Bluetooth: what a counter holds ---------------------------------------------------------------


def test_the_vm_aioble_cuts_long_writes_and_queues_ten(tmp_path: Path) -> None:
    (tmp_path / "profile.json").write_text(json.dumps(profile("ESP32-C3")))
    vm = MicroPythonVM(
        extra=(
            f"/fakes={HERE / 'vmboard'}",
            f"/fakes/profile.json={tmp_path / 'profile.json'}",
            f"/lib={HERE / 'vmboard' / 'lib'}",
        )
    )
    try:
        vm.run(
            "sys.path.insert(0, '/fakes')\nsys.path.append('/lib')\nimport aioble, bluetooth\n"
            "s = aioble.Service(bluetooth.UUID(1))\n"
            "rx = aioble.Characteristic(s, bluetooth.UUID(2), write=True, capture=True)\n"
            "aioble.connect(b'\\x01' * 6)\n"
            "aioble._CONNECTION[0] = aioble.DeviceConnection(b'\\x01' * 6)\n"
            "for i in range(14):\n    aioble.write(bytes([i]) * 24)\n"
        )
        got = vm.call("[list(item[2]) for item in aioble._CAPTURED]")
        assert vm.call("aioble.DROPPED[0]") == 4
    finally:
        vm.close()
    assert [g[0] for g in got] == list(range(4, 14))  # the oldest four were pushed out
    assert {len(g) for g in got} == {20}  # each cut to the buffer's 20 bytes


@pytest.mark.slow
async def test_fourteen_writes_back_to_back_get_ten_answers_as_on_a_board(tmp_path: Path) -> None:
    """What a real counter did: the app must never have more than ten in flight."""
    from boardvm import BoardVM

    from companion.devices import wire
    from companion.devices.ble_link import COUNTER_WRITE_QUEUE

    vm = BoardVM(tmp_path, "tracker-esp32c3-bar")
    vm.start()
    try:
        async with asyncio.timeout(40):
            while not (await vm.state())["ble"]:
                await asyncio.sleep(0.2)
        vm.send(cmd="ble_connect", addr="f0f1f2f3f4f5")
        async with asyncio.timeout(40):
            while not (await vm.state())["ble_connected"]:
                await asyncio.sleep(0.2)
        pings = [wire.encode(wire.Ping(token, seq=token)).hex() for token in range(1, 15)]
        vm.send(cmd="ble_writes", hex=pings)
        pongs = []
        async with asyncio.timeout(40):
            while len(pongs) < COUNTER_WRITE_QUEUE:
                event = await vm.expect("ble_notify")
                message = wire.decode(bytes.fromhex(event["hex"]))
                if isinstance(message, wire.Pong):
                    pongs.append(message.token)
        assert pongs == list(range(5, 15))  # the first four were pushed out of the queue
    finally:
        vm.close()
