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


def port_of(pinout: str) -> dict[str, Any]:
    """The VM board's port for a pin map, by its MCU."""
    mcu = json.loads((PINOUTS / f"{pinout}.json").read_text())["mcu"]
    return dict(PORTS[mcu])
