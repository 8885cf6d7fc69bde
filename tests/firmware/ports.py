"""The MicroPython ports the counters run on, as the board fakes model them (VM and CPython)."""

from __future__ import annotations

import json
from typing import Any

from mpvm import PINOUTS

_C3_ROM = (
    "ESP-ROM:esp32c3-api1-20210207\r\nBuild:Feb  7 2021\r\n"
    "rst:0xc (RTC_SW_CPU_RST),boot:0xc (SPI_FAST_FLASH_BOOT)\r\n"
)
# The ports of MicroPython 1.25-1.28 the pin maps' MCUs run, as the VM board models them.
# Timer ids and their errors: ports/esp32/machine_timer.c (hardware timers only in the
# releases; Timer(-1) came later on master), ports/rp2 (soft timer -1 only). Heaps: the
# esp32 port's split heap starts at 64 000 bytes and grows into the system heap, where
# NimBLE takes its share when Bluetooth starts (#14293: a C3 with 136 KB to give panics
# in ble.active(True) once the heap took 76 KB of it); an RP2040's heap is fixed and
# Bluetooth's buffers come out of it. system_free, ble_needs and the Pico W's heap are
# estimates for this model (docs/firmware.md: what only a real board can confirm).
PORTS: dict[str, dict[str, Any]] = {
    "ESP32-C3": {
        "port": "esp32",
        "timers": [0, 1],
        "timer_error": "invalid Timer number",
        "heap_start": 64_000,
        "system_free": 139_264,
        "ble_needs": 80 * 1024,
        "deepsleep_wake_pins": [0, 1, 2, 3, 4, 5],
        "banner": "MicroPython v1.28.0; ESP32C3 module with ESP32C3",
        "rom_boot_text": _C3_ROM,  # the DevKitM-1's USB-UART bridge carries UART0
    },
    "ESP32-S3": {
        "port": "esp32",
        "timers": [0, 1, 2, 3],
        "timer_error": "invalid Timer number",
        "heap_start": 64_000,
        "system_free": 300_000,
        "ble_needs": 80 * 1024,
        "deepsleep_wake_pins": list(range(22)),
        "banner": "MicroPython v1.28.0; Generic ESP32S3 module with ESP32S3",
        "rom_boot_text": "",  # native USB: the ROM prints on UART0, not here
    },
    "RP2040": {
        "port": "rp2",
        "timers": [-1],
        "timer_error": "Timer doesn't exist",
        "heap_start": 160_000,
        "system_free": 0,
        "ble_needs": 24 * 1024,
        "deepsleep_wake_pins": [],
        "banner": "MicroPython v1.28.0; Raspberry Pi Pico W with RP2040",
        "rom_boot_text": "",
    },
}


# -- the names each port has ----------------------------------------------------------------
#
# What `machine`, `machine.Pin` and the `esp32` module offer on each port, per release,
# as far as the firmware and the fakes touch them, read from MicroPython's sources:
# ports/esp32/modmachine.c (the reset causes and wake constants, lines 64-84 and 233-321 in
# v1.27.0 and v1.28.0), ports/esp32/machine_pin.c (398-410; methods 385-395),
# ports/esp32/modesp32.c (wake_on_* 51-152, the table 318-367: ext0, ext1, touch and ULP
# are compiled for the S3 only, not for the C3), ports/rp2/modmachine.c (51-60: only
# PWRON_RESET and WDT_RESET; no wake_reason, no sleep), ports/rp2/machine_pin.c (501-508),
# extmod/modmachine.c (soft_reset; mem_backup from the v1.29 line on). The v1.29 line
# (master after v1.28.0) adds machine.wake_pins() on esp32 and machine.mem_backup() on
# both. The board fakes must offer exactly these names (tests/firmware/test_port_names.py),
# so that a name a port lacks fails on the fake as on the board: AttributeError.
RELEASES = ("1.27.0", "1.28.0", "1.29-preview")
DEFAULT_RELEASE = "1.28.0"
_ESP32_MACHINE = (
    "PWRON_RESET HARD_RESET WDT_RESET DEEPSLEEP_RESET SOFT_RESET SLEEP DEEPSLEEP "
    "PIN_WAKE EXT0_WAKE EXT1_WAKE TIMER_WAKE TOUCHPAD_WAKE ULP_WAKE "
    "reset soft_reset reset_cause freq unique_id lightsleep sleep deepsleep wake_reason "
    "Pin Timer WDT ADC RTC"
)
_RP2_MACHINE = (
    "PWRON_RESET WDT_RESET reset soft_reset reset_cause freq unique_id lightsleep deepsleep "
    "Pin Timer WDT ADC RTC"
)
_ESP32_PIN = (
    "IN OUT OPEN_DRAIN PULL_UP PULL_DOWN IRQ_RISING IRQ_FALLING WAKE_LOW WAKE_HIGH "
    "DRIVE_0 DRIVE_1 DRIVE_2 DRIVE_3 init value on off toggle irq"
)
_RP2_PIN = (
    "IN OUT OPEN_DRAIN ALT PULL_UP PULL_DOWN IRQ_FALLING IRQ_RISING "
    "init value on off toggle low high irq"
)
_ESP32_MODULE = "WAKEUP_ALL_LOW WAKEUP_ANY_HIGH wake_on_gpio"
_ESP32_MODULE_S3 = _ESP32_MODULE + " wake_on_ext0 wake_on_ext1 wake_on_touch wake_on_ulp"


def names(mcu: str, release: str = DEFAULT_RELEASE) -> dict[str, list[str]]:
    """The names of `machine`, `machine.Pin` and `esp32` (none on rp2) on ``mcu``'s port."""
    port = PORTS[mcu]["port"]
    later = release.startswith("1.29")
    if port == "esp32":
        machine = _ESP32_MACHINE + (" wake_pins mem_backup" if later else "")
        module = _ESP32_MODULE_S3 if mcu == "ESP32-S3" else _ESP32_MODULE
        return {"machine": machine.split(), "Pin": _ESP32_PIN.split(), "esp32": module.split()}
    machine = _RP2_MACHINE + (" mem_backup" if later else "")
    return {"machine": machine.split(), "Pin": _RP2_PIN.split(), "esp32": []}


def profile(mcu: str, release: str = DEFAULT_RELEASE) -> dict[str, Any]:
    """The whole port of ``mcu`` in ``release``, as the fakes read it."""
    out = dict(PORTS[mcu])
    out["mcu"] = mcu
    out["release"] = release
    out["names"] = names(mcu, release)
    if release.startswith("1.29") and out["port"] == "esp32":
        # The v1.29 line adds the virtual timer -1 (esp_timer) beside the hardware ones
        # and makes the id optional (ports/esp32/machine_timer.c, master).
        out["timers"] = [-1, *out["timers"]]
        out["timer_error"] = "Timer(%d) doesn't exist, there are only %d hardware timers"
    return out


def port_of(pinout: str, release: str = DEFAULT_RELEASE) -> dict[str, Any]:
    """The VM board's port for a pin map, by its MCU."""
    mcu = json.loads((PINOUTS / f"{pinout}.json").read_text())["mcu"]
    return profile(mcu, release)
