"""Current draw and battery life of each counter build, from its pinout and a lighting scenario.

Run it as `.venv/bin/python hardware/tools/power_budget.py` (all builds, default scenario),
`--markdown` for the table in hardware/README.md, or with `--brightness`, `--lit`,
`--channels`, `--led-duty` and `--mcu-duty` to try another scenario. `--check` exits non-zero when a
build breaks its targets (the supply budget; a tracker's 12 hours on one charge).

The model follows the firmware's current limiter (like WLED's): it estimates the
addressable LEDs' current from the pixel values (each colour channel draws
`ma_per_channel` at 255, each LED `idle_ma_per_led` even when dark) and scales the
brightness down until the LEDs fit into `power.budget_ma`.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

from hwdata import PinoutError, chosen_pinouts, fmt_num, led_groups, tool_parser

from companion.store.settings import Settings

TRACKER_TARGET_H = 12.0  # a tracker must last a long game night on one charge
# What the app sends every counter unless its user changes it (Settings.led_brightness).
APP_BRIGHTNESS = int(Settings.model_fields["led_brightness"].default)
# A LiPo cut off at empty_mv (3.3 V) still holds a little charge, and cells age.
USABLE_CAPACITY = 0.85
# TM1637 grey scale: display on-time per brightness level 0..7, in sixteenths.
TM1637_PULSE_16THS = (1, 2, 4, 10, 11, 12, 13, 14)
# Standard slow-blow fuse ratings; the chosen one stays below 85 % of the supply's rating.
FUSE_RATINGS_MA = (500, 750, 1000, 1250, 1500, 2000, 2500, 3150, 4000, 5000, 6300)
FUSE_SUPPLY_FRACTION = 0.85


@dataclass(frozen=True)
class Scenario:
    """What the counter shows: brightness, how many LEDs lit, colour channels per lit LED.

    `lit` counts lit pixels on the strip or LED bar (the status LED is always counted as
    one lit pixel); `channels` is the colour's summed channel level in full channels
    (pure red = 1, yellow = 2, white = 3); `segments` is lit 7-segment segments on a
    TM1637 display; `led_duty` is the share of time the lit LEDs and segments are on
    (1 for steady light, about 0.5 for a blink or a slow breath); `mcu_duty` is the
    share of time the MCU is busy rather than idling.
    """

    brightness: int
    lit: int | None = None
    channels: float = 1.5
    segments: int = 14
    led_duty: float = 1.0
    mcu_duty: float = 1.0


@dataclass(frozen=True)
class Budget:
    """Where the current of one build goes under one scenario, in mA, and what it means."""

    build: str
    role: str
    mcu_ma: float
    led_ma: float
    led_requested_ma: float
    display_ma: float
    total_ma: float
    worst_case_ma: float
    supply_ma: float
    budget_ma: float
    limited: bool
    battery_h: float | None
    fuse_ma: int | None

    @property
    def within_supply(self) -> bool:
        return self.worst_case_ma <= self.supply_ma


def sent_brightness(pinout: dict[str, Any], app_brightness: int = APP_BRIGHTNESS) -> int:
    """The brightness a counter shows when the app sends ``app_brightness``.

    A tracker on its cell scales what the app asks by ``power.brightness_scale`` / 255
    (the firmware does the same), so that the app's default lasts a game night.
    """
    return app_brightness * int(pinout["power"].get("brightness_scale", 255)) // 255


def default_scenario(pinout: dict[str, Any]) -> Scenario:
    """The lighting the README's figures are for: a busy moment at the brightness the app sends.

    Level board: six players, one LED each, mixed colours (1.5 channels) plus the
    current player's space lit a second time. Tracker: all 14 segments ("88") or all
    ten bar LEDs, so the figure is a floor for battery life, not an average.
    """
    brightness = sent_brightness(pinout)
    if pinout["role"] == "board":
        return Scenario(brightness=brightness, lit=6 + 1, channels=1.5)
    display = pinout["display"]
    lit = display["count"] if display["kind"] == "ledbar" else 0
    return Scenario(brightness=brightness, lit=lit, channels=1.0, segments=14)


def tm1637_level(brightness: int, levels: int = 8) -> int:
    """The TM1637 brightness level (0..levels-1) for an 8-bit brightness."""
    return min(levels - 1, max(0, brightness) * levels // 256)


def fuse_rating_ma(supply_ma: float) -> int:
    """The largest standard fuse below 85 % of what the supply can give."""
    fitting = [r for r in FUSE_RATINGS_MA if r <= supply_ma * FUSE_SUPPLY_FRACTION]
    if not fitting:
        raise PinoutError(f"no standard fuse fits a {fmt_num(supply_ma)} mA supply")
    return fitting[-1]


def _led_current(
    pinout: dict[str, Any], scenario: Scenario, brightness: int
) -> tuple[float, float]:
    """(idle, colour) current of all addressable LEDs at `brightness`, before limiting."""
    idle = 0.0
    colour = 0.0
    for group in led_groups(pinout):
        idle += group["count"] * group["idle_ma_per_led"]
        is_status = group is pinout.get("status_led")
        lit = 1 if is_status else group["count"] if scenario.lit is None else scenario.lit
        lit = min(lit, group["count"])
        colour += lit * scenario.channels * group["ma_per_channel"] * brightness / 255
    return idle, colour


def _limit(idle: float, colour: float, budget_ma: float) -> float:
    """LED current after the limiter: colour scaled so idle + colour fits the budget."""
    if idle + colour <= budget_ma:
        return idle + colour
    return idle + max(0.0, budget_ma - idle)


def budget(pinout: dict[str, Any], scenario: Scenario | None = None) -> Budget:
    """The current budget of one build: typical draw under `scenario` and the worst case."""
    scenario = scenario or default_scenario(pinout)
    power = pinout["power"]
    budget_ma = float(power["budget_ma"])
    idle, colour = _led_current(pinout, scenario, scenario.brightness)
    # The limiter acts on each frame, so limit the lit frame first, then average over time.
    lit_frame = _limit(idle, colour, budget_ma)
    led = idle + (lit_frame - idle) * scenario.led_duty
    mcu = power["mcu_idle_ma"] + scenario.mcu_duty * (power["mcu_active_ma"] - power["mcu_idle_ma"])

    display = 0.0
    display_worst = 0.0
    disp = pinout.get("display")
    if disp and disp["kind"] == "tm1637":
        levels = int(disp.get("brightness_levels", 8))
        full = TM1637_PULSE_16THS[-1]
        share = TM1637_PULSE_16THS[tm1637_level(scenario.brightness, levels)] / full
        display = scenario.segments * disp["ma_per_segment"] * share * scenario.led_duty
        display_worst = disp["digits"] * 7 * disp["ma_per_segment"]

    # Worst case: every LED white at full brightness, held back by the limiter only.
    worst_idle, worst_colour = _led_current(
        pinout, Scenario(brightness=255, lit=None, channels=3.0), 255
    )
    worst = power["mcu_active_ma"] + _limit(worst_idle, worst_colour, budget_ma) + display_worst
    total = mcu + led + display

    battery = pinout.get("battery")
    hours = None
    if battery:
        hours = battery["capacity_mah"] * USABLE_CAPACITY / total
    fuse = None if battery else fuse_rating_ma(power["supply_ma"])
    return Budget(
        build=pinout["id"],
        role=pinout["role"],
        mcu_ma=mcu,
        led_ma=led,
        led_requested_ma=idle + colour * scenario.led_duty,
        display_ma=display,
        total_ma=total,
        worst_case_ma=worst,
        supply_ma=float(power["supply_ma"]),
        budget_ma=budget_ma,
        limited=idle + colour > budget_ma,
        battery_h=hours,
        fuse_ma=fuse,
    )


def target_problems(result: Budget) -> list[str]:
    """The targets a build misses, in words; empty when it meets them all."""
    problems = []
    if not result.within_supply:
        problems.append(
            f"{result.build}: worst case {fmt_num(result.worst_case_ma)} mA is more than "
            f"the supply's {fmt_num(result.supply_ma)} mA"
        )
    if result.fuse_ma is not None and result.worst_case_ma >= result.fuse_ma:
        problems.append(
            f"{result.build}: worst case {fmt_num(result.worst_case_ma)} mA would blow "
            f"the {result.fuse_ma} mA fuse"
        )
    if result.role == "tracker" and (result.battery_h or 0.0) < TRACKER_TARGET_H:
        problems.append(
            f"{result.build}: {fmt_num(result.battery_h or 0.0)} h on one charge, "
            f"less than the {fmt_num(TRACKER_TARGET_H)} h target"
        )
    return problems


def markdown(results: list[Budget], pinouts: dict[str, dict[str, Any]]) -> str:
    """The figures as a Markdown table (pasted into hardware/README.md)."""
    lines = [
        "| build | brightness | MCU mA | LEDs mA (asked → given) | display mA | total mA "
        "| worst case mA | supply mA | fuse | battery life |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        bright = sent_brightness(pinouts[r.build])
        leds = f"{fmt_num(r.led_requested_ma)} → {fmt_num(r.led_ma)}"
        fuse = f"{fmt_num(r.fuse_ma / 1000)} A slow" if r.fuse_ma else "cell protection"
        life = f"{r.battery_h:.1f} h" if r.battery_h is not None else "mains"
        lines.append(
            f"| {r.build} | {bright}/255 | {fmt_num(r.mcu_ma)} | {leds} | "
            f"{fmt_num(r.display_ma)} | {fmt_num(r.total_ma)} | {fmt_num(r.worst_case_ma)} | "
            f"{fmt_num(r.supply_ma)} | {fuse} | {life} |"
        )
    return "\n".join(lines)


def text_report(r: Budget) -> str:
    """A plain-text report of one build's budget."""
    lines = [
        f"{r.build} ({r.role})",
        f"  MCU            {fmt_num(r.mcu_ma):>8} mA",
        f"  LEDs asked     {fmt_num(r.led_requested_ma):>8} mA"
        + ("  (limiter scales them down)" if r.limited else ""),
        f"  LEDs given     {fmt_num(r.led_ma):>8} mA  (budget {fmt_num(r.budget_ma)} mA)",
    ]
    if r.display_ma:
        lines.append(f"  display        {fmt_num(r.display_ma):>8} mA")
    lines += [
        f"  total          {fmt_num(r.total_ma):>8} mA",
        f"  worst case     {fmt_num(r.worst_case_ma):>8} mA  (supply {fmt_num(r.supply_ma)} mA)",
    ]
    if r.fuse_ma is not None:
        lines.append(f"  fuse           {fmt_num(r.fuse_ma):>8} mA slow-blow")
    if r.battery_h is not None:
        lines.append(f"  battery life   {r.battery_h:>8.1f} h")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = tool_parser(__doc__, builds=True)
    parser.add_argument("--brightness", type=int, help="0..255 (default: the build's default)")
    parser.add_argument("--lit", type=int, help="lit LEDs on the strip or bar")
    parser.add_argument("--channels", type=float, help="colour channels per lit LED (1..3)")
    parser.add_argument("--segments", type=int, help="lit TM1637 segments (0..14)")
    parser.add_argument("--led-duty", type=float, help="share of time lit LEDs are on (0..1)")
    parser.add_argument("--mcu-duty", type=float, help="share of time the MCU is busy (0..1)")
    parser.add_argument("--markdown", action="store_true", help="print the README table")
    parser.add_argument("--check", action="store_true", help="fail when a target is missed")
    args = parser.parse_args(argv)

    pinouts = chosen_pinouts("power_budget", args.builds)
    if pinouts is None:
        return 2
    for name, value, low, high in (
        ("--brightness", args.brightness, 0, 255),
        ("--channels", args.channels, 0, 3),
        ("--segments", args.segments, 0, 14),
        ("--led-duty", args.led_duty, 0, 1),
        ("--mcu-duty", args.mcu_duty, 0, 1),
        ("--lit", args.lit, 0, 10_000),
    ):
        if value is not None and not low <= value <= high:
            print(f"power_budget: {name} must be between {low} and {high}", file=sys.stderr)
            return 2

    results = []
    for build in pinouts:
        base = default_scenario(pinouts[build])
        scenario = Scenario(
            brightness=base.brightness if args.brightness is None else args.brightness,
            lit=base.lit if args.lit is None else args.lit,
            channels=base.channels if args.channels is None else args.channels,
            segments=base.segments if args.segments is None else args.segments,
            led_duty=base.led_duty if args.led_duty is None else args.led_duty,
            mcu_duty=base.mcu_duty if args.mcu_duty is None else args.mcu_duty,
        )
        results.append(budget(pinouts[build], scenario))

    if args.markdown:
        print(markdown(results, pinouts))
    else:
        print("\n\n".join(text_report(r) for r in results))
    problems = [p for r in results for p in target_problems(r)]
    for problem in problems:
        print(f"target missed: {problem}", file=sys.stderr)
    return 1 if args.check and problems else 0


if __name__ == "__main__":
    sys.exit(main())
