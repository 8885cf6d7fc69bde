"""Shared data for the hardware tools: the pinout files, the dev boards' pin rules, file paths.

The pinout JSON files in `hardware/pinouts/` are the single source of truth; every
tool reads them through `load_pinouts()` so a changed pin shows up everywhere.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HARDWARE_DIR = Path(__file__).resolve().parent.parent
REPO_DIR = HARDWARE_DIR.parent
PINOUT_DIR = HARDWARE_DIR / "pinouts"
WIRING_DIR = HARDWARE_DIR / "wiring"
BOM_DIR = HARDWARE_DIR / "bom"


class PinoutError(ValueError):
    """A pinout file is missing a field, or uses a pin the dev board cannot give it."""


@dataclass(frozen=True)
class DevBoard:
    """What a development board offers and reserves, by chip GPIO number."""

    name: str
    gpios: frozenset[int]
    # Sampled at reset to pick the boot mode; only safe for what the board itself wires there.
    strapping: frozenset[int]
    # Pins the board already uses (USB, flash, radio), never free for wiring.
    reserved: dict[int, str]
    # ADC channels usable while the radio is on (ADC1 on the ESP32 family).
    adc_ok: frozenset[int]
    # Strapping pins the board itself wires, with what sits there.
    onboard: dict[int, str] = field(default_factory=dict)
    power_in_pin: str = "5V"
    logic_pin: str = "3V3"


DEV_BOARDS: dict[str, DevBoard] = {
    "ESP32-S3-DevKitC-1": DevBoard(
        name="ESP32-S3-DevKitC-1",
        gpios=frozenset([*range(0, 22), *range(35, 49)]),
        strapping=frozenset({0, 3, 45, 46}),
        reserved={
            19: "USB D-",
            20: "USB D+",
            35: "octal PSRAM (N8R8 / N16R8 modules)",
            36: "octal PSRAM (N8R8 / N16R8 modules)",
            37: "octal PSRAM (N8R8 / N16R8 modules)",
            38: "on-board RGB LED (board v1.1)",
            43: "UART0 TX (console)",
            44: "UART0 RX (console)",
            48: "on-board RGB LED (board v1.0)",
        },
        adc_ok=frozenset(range(1, 11)),
        onboard={0: "BOOT button"},
    ),
    "ESP32-C3-DevKitM-1": DevBoard(
        name="ESP32-C3-DevKitM-1",
        gpios=frozenset([*range(0, 11), *range(18, 22)]),
        strapping=frozenset({2, 8, 9}),
        reserved={
            18: "USB D-",
            19: "USB D+",
            20: "UART0 RX (console)",
            21: "UART0 TX (console)",
        },
        adc_ok=frozenset(range(0, 5)),
        onboard={8: "RGB LED", 9: "BOOT button"},
    ),
    "Raspberry Pi Pico W": DevBoard(
        name="Raspberry Pi Pico W",
        gpios=frozenset([*range(0, 23), 26, 27, 28]),
        strapping=frozenset(),
        reserved={
            23: "wireless chip power (WL_ON)",
            24: "wireless chip data / IRQ",
            25: "wireless chip chip-select",
            29: "wireless chip clock / VSYS sense",
        },
        adc_ok=frozenset({26, 27, 28}),
        power_in_pin="VSYS",
        logic_pin="3V3(OUT)",
    ),
}


@dataclass(frozen=True)
class PinUse:
    """One GPIO a build uses: what for, and whether the dev board already wires it."""

    signal: str
    gpio: int
    kind: str  # "led-data", "button", "clk", "dio", "adc"
    onboard: str | None = None


def load_pinout(path: Path) -> dict[str, Any]:
    """Read one pinout file; raises PinoutError naming the file when it is not valid JSON."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise PinoutError(f"{path.name}: cannot read the pinout ({exc})") from exc
    for key in ("id", "role", "mcu", "module", "power", "buttons"):
        if key not in data:
            raise PinoutError(f"{path.name}: the field '{key}' is missing")
    if data["id"] != path.stem:
        raise PinoutError(f"{path.name}: 'id' is {data['id']!r} but should match the file name")
    return data


def load_pinouts(directory: Path = PINOUT_DIR) -> dict[str, dict[str, Any]]:
    """All pinouts in `directory`, keyed by build id, in name order (deterministic)."""
    return {p.stem: load_pinout(p) for p in sorted(directory.glob("*.json"))}


def tool_parser(doc: str | None, *, builds: bool = False) -> argparse.ArgumentParser:
    """A tool's command line, described by the first paragraph of its docstring; with `builds`,
    it takes build ids (none: every pinout)."""
    parser = argparse.ArgumentParser(description=(doc or "").split("\n\n")[0])
    if builds:
        parser.add_argument("builds", nargs="*", help="build ids (default: every pinout)")
    return parser


def chosen_pinouts(tool: str, builds: Sequence[str] = ()) -> dict[str, dict[str, Any]] | None:
    """The pinouts of `builds` (every one when none is named), or None once a line on stderr,
    prefixed with the `tool`'s name, said what is wrong (a broken pinout, an unknown build)."""
    try:
        pinouts = load_pinouts()
    except PinoutError as exc:
        print(f"{tool}: {exc}", file=sys.stderr)
        return None
    unknown = [build for build in builds if build not in pinouts]
    if unknown:
        print(f"{tool}: unknown build(s): {', '.join(unknown)}", file=sys.stderr)
        return None
    return {build: pinouts[build] for build in builds} if builds else pinouts


def dev_board(pinout: dict[str, Any]) -> DevBoard:
    """The dev board a pinout is built on; PinoutError when it is not one the docs know."""
    try:
        return DEV_BOARDS[pinout["module"]]
    except KeyError:
        raise PinoutError(
            f"{pinout['id']}: unknown dev board {pinout['module']!r}; "
            f"known boards: {', '.join(sorted(DEV_BOARDS))}"
        ) from None


def pin_uses(pinout: dict[str, Any]) -> list[PinUse]:
    """Every GPIO the build uses, in a fixed order: LEDs, display, buttons, battery."""
    board = dev_board(pinout)
    uses: list[PinUse] = []

    def add(signal: str, gpio: int, kind: str) -> None:
        uses.append(PinUse(signal, gpio, kind, board.onboard.get(gpio)))

    if pinout.get("strip"):
        add("strip.pin", pinout["strip"]["pin"], "led-data")
    display = pinout.get("display")
    if display:
        if display["kind"] == "tm1637":
            add("display.clk", display["clk"], "clk")
            add("display.dio", display["dio"], "dio")
        else:
            add("display.pin", display["pin"], "led-data")
    if pinout.get("status_led"):
        add("status_led.pin", pinout["status_led"]["pin"], "led-data")
    for name, button in pinout["buttons"].items():
        add(f"buttons.{name}.pin", button["pin"], "button")
    if pinout.get("battery"):
        add("battery.adc_pin", pinout["battery"]["adc_pin"], "adc")
    return uses


def pin_problems(pinout: dict[str, Any]) -> list[str]:
    """Electrical problems with a build's pins, in words; an empty list means it is sound."""
    board = dev_board(pinout)
    problems: list[str] = []
    seen: dict[int, str] = {}
    for use in pin_uses(pinout):
        where = f"{pinout['id']}: {use.signal} on GPIO{use.gpio}"
        if use.gpio in seen:
            problems.append(f"{where} is already used by {seen[use.gpio]}")
        seen[use.gpio] = use.signal
        if use.gpio not in board.gpios:
            problems.append(f"{where}: {board.name} has no such pin on its headers")
        if use.gpio in board.reserved:
            problems.append(f"{where}: the pin is taken by the {board.reserved[use.gpio]}")
        if use.gpio in board.strapping and use.onboard is None:
            problems.append(f"{where}: a strapping pin; wiring to it can stop the board booting")
        if use.onboard is not None and not _onboard_fits(use):
            problems.append(f"{where}: the board already wires its {use.onboard} there")
        if use.kind == "adc" and use.gpio not in board.adc_ok:
            problems.append(f"{where}: not an ADC pin that works while the radio is on")
    return problems


def _onboard_fits(use: PinUse) -> bool:
    """Using an on-board part's pin is fine when the build uses that very part."""
    assert use.onboard is not None
    if "button" in use.onboard:
        return use.kind == "button"
    return use.kind == "led-data" and use.signal == "status_led.pin"


def led_groups(pinout: dict[str, Any]) -> list[dict[str, Any]]:
    """The addressable-LED chains of a build (strip, LED bar, status LED) as their dicts."""
    groups = []
    if pinout.get("strip"):
        groups.append(pinout["strip"])
    display = pinout.get("display")
    if display and display["kind"] == "ledbar":
        groups.append(display)
    if pinout.get("status_led"):
        groups.append(pinout["status_led"])
    return groups


def fmt_num(value: float) -> str:
    """A number as short text with no float noise (deterministic output for SVG and tables)."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text
