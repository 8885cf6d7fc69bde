"""Wiring diagrams (SVG) for every counter build, generated from its pinout file.

`.venv/bin/python hardware/tools/wiring.py` rewrites `hardware/wiring/<build>.svg` for
every file in `hardware/pinouts/`; `--check` only compares and exits 1 when a checked-in
diagram is out of date; `--out DIR` writes somewhere else. The output is deterministic:
the same pinout always gives the same bytes.

Every wire to a GPIO carries `data-gpio` and `data-signal` attributes (the signal is the
pinout field it comes from, e.g. `strip.pin`), so tests can read the diagram back.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from hwdata import (
    WIRING_DIR,
    DevBoard,
    PinoutError,
    dev_board,
    fmt_num,
    load_pinouts,
    pin_problems,
    pin_uses,
    tool_parser,
)
from power_budget import fuse_rating_ma

NET_COLOURS = {
    "5v": "#d62728",
    "vbat": "#ff7f0e",
    "3v3": "#e377c2",
    "gnd": "#222222",
    "data": "#2ca02c",
    "button": "#1f77b4",
    "analog": "#9467bd",
}
MCU_X, MCU_W = 40, 340
PART_X, PART_W = 680, 300
ROW_H, HEAD_H, GAP = 22, 44, 18
LANE_LEFT, LANE_RIGHT = 400, 660
TOP = 90
# Parts stack in steps of an even number of pixels from TOP; offsetting the dev board by
# half a row keeps its pin rows off every part terminal's row, so no two wires ever run
# along the same horizontal line and look joined.
MCU_TOP = TOP + ROW_H // 2


@dataclass
class Part:
    """A box on the diagram with named terminals down its left edge."""

    key: str
    title: str
    note: str
    terminals: list[str]
    y: int = 0

    def height(self) -> int:
        return HEAD_H + ROW_H * len(self.terminals) + 6

    def terminal_xy(self, name: str) -> tuple[int, int]:
        row = self.terminals.index(name)
        return PART_X, self.y + HEAD_H + ROW_H * row + ROW_H // 2


@dataclass
class McuPin:
    label: str
    note: str
    gpio: int | None = None
    signal: str | None = None
    onboard: bool = False


@dataclass
class Wire:
    net: str
    a: str  # "mcu:<label>" or "<part>:<terminal>"
    b: str


@dataclass
class Diagram:
    pinout: dict[str, Any]
    board: DevBoard
    pins: list[McuPin] = field(default_factory=list)
    parts: list[Part] = field(default_factory=list)
    wires: list[Wire] = field(default_factory=list)

    def part(self, key: str) -> Part:
        return next(p for p in self.parts if p.key == key)


def _gpio_label(pinout: dict[str, Any], gpio: int) -> str:
    return f"GP{gpio}" if pinout["mcu"] == "RP2040" else f"GPIO{gpio}"


def _signal_note(signal: str) -> str:
    if signal.startswith("buttons."):
        name = signal.split(".")[1]
        return f"{name} button"
    return {
        "strip.pin": "LED strip data",
        "display.pin": "LED bar data",
        "display.clk": "display CLK",
        "display.dio": "display DIO",
        "status_led.pin": "status LED data",
        "battery.adc_pin": "battery voltage (ADC)",
    }[signal]


def _mcu_pins(diagram: Diagram, power_label: str) -> None:
    pinout = diagram.pinout
    diagram.pins.append(McuPin(power_label, "power in"))
    diagram.pins.append(McuPin("GND", "ground"))
    for use in pin_uses(pinout):
        note = _signal_note(use.signal)
        if use.onboard:
            note += f": on-board {use.onboard}"
        diagram.pins.append(
            McuPin(
                _gpio_label(pinout, use.gpio),
                note,
                gpio=use.gpio,
                signal=use.signal,
                onboard=use.onboard is not None,
            )
        )


def _buttons(diagram: Diagram) -> None:
    for use in pin_uses(diagram.pinout):
        if use.kind != "button" or use.onboard:
            continue
        name = use.signal.split(".")[1]
        button = diagram.pinout["buttons"][name]
        to_ground = button["pull"] == "up" and button["active"] == "low"
        diagram.parts.append(
            Part(
                f"sw-{name}",
                f"{name} push button",
                "6 mm tactile, other leg to GND" if to_ground else "other leg to 3.3 V",
                ["a", "b"],
            )
        )
        diagram.wires.append(
            Wire("button", f"mcu:{_gpio_label(diagram.pinout, use.gpio)}", f"sw-{name}:a")
        )
        logic = diagram.board.logic_pin
        if not to_ground and all(pin.label != logic for pin in diagram.pins):
            diagram.pins.insert(2, McuPin(logic, "3.3 V out"))
        other = "mcu:GND" if to_ground else f"mcu:{logic}"
        diagram.wires.append(Wire("gnd" if to_ground else "3v3", f"sw-{name}:b", other))


def _board_role(diagram: Diagram) -> None:
    p, board = diagram.pinout, diagram.board
    strip, power = p["strip"], p["power"]
    fuse_a = fmt_num(fuse_rating_ma(power["supply_ma"]) / 1000)
    _mcu_pins(diagram, board.power_in_pin)
    diagram.parts += [
        Part(
            "psu", "5 V power supply", f"{power['supply']}, {power['supply_ma']} mA", ["+5V", "GND"]
        ),
        Part(
            "fuse", f"F1 fuse {fuse_a} A slow-blow", "first thing after the supply", ["in", "out"]
        ),
        Part("cap", "C1 1000 µF 10 V electrolytic", "across the strip's input", ["+", "−"]),
        Part(
            "diode",
            "D1 1N5817 Schottky diode",
            "keeps 5 V out of the computer's USB",
            ["anode", "cathode"],
        ),
        Part(
            "shifter",
            "U1 74AHCT125 level shifter",
            "3.3 V data in, 5 V data out",
            ["VCC", "GND", "1OE", "1A", "1Y"],
        ),
        Part("res", "R1 330 Ω resistor", "in the data line, at the strip", ["a", "b"]),
        Part(
            "strip",
            f"{strip['kind'].upper()} strip, {strip['count']} LEDs",
            f"{strip['spaces']} spaces × {strip['leds_per_space']} LEDs, {strip['order']}",
            ["+5V", "DIN", "GND"],
        ),
    ]
    data_pin = f"mcu:{_gpio_label(p, strip['pin'])}"
    diagram.wires += [
        Wire("5v", "psu:+5V", "fuse:in"),
        Wire("5v", "fuse:out", "cap:+"),
        Wire("5v", "fuse:out", "strip:+5V"),
        Wire("5v", "fuse:out", "shifter:VCC"),
        Wire("5v", "fuse:out", "diode:anode"),
        Wire("5v", "diode:cathode", f"mcu:{board.power_in_pin}"),
        Wire("gnd", "psu:GND", "cap:−"),
        Wire("gnd", "psu:GND", "strip:GND"),
        Wire("gnd", "psu:GND", "shifter:GND"),
        Wire("gnd", "shifter:GND", "shifter:1OE"),
        Wire("gnd", "psu:GND", "mcu:GND"),
        Wire("data", data_pin, "shifter:1A"),
        Wire("data", "shifter:1Y", "res:a"),
        Wire("data", "res:b", "strip:DIN"),
    ]
    _buttons(diagram)


def _divider_kohm(ratio: float) -> tuple[float, float]:
    """(top, bottom) resistor values in kΩ for a divider that divides by `ratio`."""
    bottom = 100.0
    return bottom * (ratio - 1), bottom


def _tracker_role(diagram: Diagram) -> None:
    p, board = diagram.pinout, diagram.board
    battery, display = p["battery"], p["display"]
    top, bottom = _divider_kohm(battery["divider_ratio"])
    _mcu_pins(diagram, board.logic_pin)
    diagram.parts += [
        Part("cell", "1S LiPo cell", f"{battery['capacity_mah']} mAh, JST-PH lead", ["+", "−"]),
        Part(
            "charger",
            "TP4056 charger + protection",
            "USB-C in; charges the cell",
            ["B+", "B−", "OUT+", "OUT−"],
        ),
        Part("switch", "SW1 slide switch", "power on / off", ["a", "b"]),
        Part(
            "ldo",
            "U1 AP2112K-3.3 regulator",
            "3.3 V, 600 mA, low dropout",
            ["VIN", "EN", "GND", "VOUT"],
        ),
        Part(
            "divider",
            f"R1 {fmt_num(top)} kΩ + R2 {fmt_num(bottom)} kΩ",
            f"battery ÷ {fmt_num(battery['divider_ratio'])}, 100 nF at mid",
            ["top", "mid", "bottom"],
        ),
    ]
    diagram.wires += [
        Wire("vbat", "cell:+", "charger:B+"),
        Wire("gnd", "cell:−", "charger:B−"),
        Wire("vbat", "charger:OUT+", "switch:a"),
        Wire("vbat", "switch:b", "ldo:VIN"),
        Wire("vbat", "ldo:VIN", "ldo:EN"),
        Wire("vbat", "switch:b", "divider:top"),
        Wire("gnd", "charger:OUT−", "ldo:GND"),
        Wire("gnd", "charger:OUT−", "mcu:GND"),
        Wire("gnd", "divider:bottom", "mcu:GND"),
        Wire("3v3", "ldo:VOUT", f"mcu:{board.logic_pin}"),
        Wire("analog", "divider:mid", f"mcu:{_gpio_label(p, battery['adc_pin'])}"),
    ]
    if display["kind"] == "tm1637":
        diagram.parts.append(
            Part(
                "display",
                f"TM1637 {display['digits']}-digit display",
                "7-segment module, runs on 3.3 V",
                ["VCC", "GND", "CLK", "DIO"],
            )
        )
        diagram.wires += [
            Wire("3v3", f"mcu:{board.logic_pin}", "display:VCC"),
            Wire("gnd", "display:GND", "mcu:GND"),
            Wire("data", f"mcu:{_gpio_label(p, display['clk'])}", "display:CLK"),
            Wire("data", f"mcu:{_gpio_label(p, display['dio'])}", "display:DIO"),
        ]
    else:
        diagram.parts += [
            Part("res", "R3 330 Ω resistor", "in the data line, at the bar", ["a", "b"]),
            Part("cap", "C1 100 µF 10 V", "across the bar's supply", ["+", "−"]),
            Part(
                "display",
                f"WS2812B bar, {display['count']} LEDs",
                f"runs from the cell, {display['order']}",
                ["VDD", "DIN", "GND"],
            ),
        ]
        diagram.wires += [
            Wire("vbat", "switch:b", "display:VDD"),
            Wire("vbat", "switch:b", "cap:+"),
            Wire("gnd", "cap:−", "mcu:GND"),
            Wire("gnd", "display:GND", "mcu:GND"),
            Wire("data", f"mcu:{_gpio_label(p, display['pin'])}", "res:a"),
            Wire("data", "res:b", "display:DIN"),
        ]
    _buttons(diagram)


def build_diagram(pinout: dict[str, Any]) -> Diagram:
    """The parts, pins and wires of one build, laid out; PinoutError when a pin is unsound."""
    problems = pin_problems(pinout)
    if problems:
        raise PinoutError("; ".join(problems))
    diagram = Diagram(pinout, dev_board(pinout))
    if pinout["role"] == "board":
        _board_role(diagram)
    elif pinout["role"] == "tracker":
        _tracker_role(diagram)
    else:
        raise PinoutError(f"{pinout['id']}: unknown role {pinout['role']!r}")
    y = TOP
    for part in diagram.parts:
        part.y = y
        y += part.height() + GAP
    return diagram


def _mcu_pin_xy(diagram: Diagram, label: str) -> tuple[int, int]:
    row = next(i for i, pin in enumerate(diagram.pins) if pin.label == label)
    return MCU_X + MCU_W, MCU_TOP + HEAD_H + ROW_H * row + ROW_H // 2


def _end_xy(diagram: Diagram, end: str) -> tuple[int, int]:
    owner, name = end.split(":", 1)
    if owner == "mcu":
        return _mcu_pin_xy(diagram, name)
    return diagram.part(owner).terminal_xy(name)


def render_svg(pinout: dict[str, Any]) -> str:
    """The wiring diagram of one build as SVG text (deterministic)."""
    d = build_diagram(pinout)
    mcu_h = HEAD_H + ROW_H * len(d.pins) + 6
    parts_bottom = max(p.y + p.height() for p in d.parts)
    height = max(MCU_TOP + mcu_h, parts_bottom) + 120
    width = PART_X + PART_W + 40
    out: list[str] = []
    w = out.append
    w('<?xml version="1.0" encoding="UTF-8"?>')
    w(
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="DejaVu Sans, Arial, sans-serif" '
        f'font-size="12" data-build={quoteattr(pinout["id"])}>'
    )
    w(
        "<style>.box{fill:#fafafa;stroke:#444;stroke-width:1.5}"
        ".head{font-weight:bold;font-size:13px}.note{fill:#555;font-size:11px}"
        ".wire{fill:none;stroke-width:2}.dot{stroke:none}</style>"
    )
    w(f'<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>')
    title = escape(pinout["title"])
    w(f'<text x="{MCU_X}" y="36" font-size="20" font-weight="bold">{title}</text>')
    w(
        f'<text x="{MCU_X}" y="60" class="note">Generated from hardware/pinouts/'
        f"{escape(pinout['id'])}.json by hardware/tools/wiring.py; do not edit by hand.</text>"
    )

    # The dev board with the pins this build uses.
    w(f'<g class="mcu" data-module={quoteattr(pinout["module"])}>')
    w(f'<rect class="box" x="{MCU_X}" y="{MCU_TOP}" width="{MCU_W}" height="{mcu_h}" rx="6"/>')
    w(f'<text class="head" x="{MCU_X + 10}" y="{MCU_TOP + 20}">{escape(pinout["module"])}</text>')
    w(f'<text class="note" x="{MCU_X + 10}" y="{MCU_TOP + 36}">{escape(pinout["mcu"])}</text>')
    for row, pin in enumerate(d.pins):
        y = MCU_TOP + HEAD_H + ROW_H * row + ROW_H // 2
        attrs = f" data-pin={quoteattr(pin.label)}"
        if pin.gpio is not None:
            attrs += f' data-gpio="{pin.gpio}" data-signal={quoteattr(pin.signal or "")}'
            attrs += f' data-onboard="{"yes" if pin.onboard else "no"}"'
        w(f'<g class="pin"{attrs}>')
        w(f'<text x="{MCU_X + MCU_W - 8}" y="{y + 4}" text-anchor="end">{escape(pin.label)}</text>')
        w(f'<text class="note" x="{MCU_X + 10}" y="{y + 4}">{escape(pin.note)}</text>')
        if not pin.onboard:
            w(f'<circle class="dot" cx="{MCU_X + MCU_W}" cy="{y}" r="3.5" fill="#444"/>')
        w("</g>")
    w("</g>")

    for part in d.parts:
        w(f'<g class="part" data-part={quoteattr(part.key)}>')
        w(
            f'<rect class="box" x="{PART_X}" y="{part.y}" width="{PART_W}" '
            f'height="{part.height()}" rx="6"/>'
        )
        w(f'<text class="head" x="{PART_X + 10}" y="{part.y + 18}">{escape(part.title)}</text>')
        w(f'<text class="note" x="{PART_X + 10}" y="{part.y + 34}">{escape(part.note)}</text>')
        for name in part.terminals:
            x, y = part.terminal_xy(name)
            w(f'<text x="{x + 10}" y="{y + 4}">{escape(name)}</text>')
            w(f'<circle class="dot" cx="{x}" cy="{y}" r="3.5" fill="#444"/>')
        w("</g>")

    lanes = len(d.wires) + 1
    step = (LANE_RIGHT - LANE_LEFT) / lanes
    for i, wire in enumerate(d.wires):
        (x1, y1), (x2, y2) = _end_xy(d, wire.a), _end_xy(d, wire.b)
        lane = fmt_num(LANE_LEFT + step * (i + 1))
        points = f"{x1},{y1} {lane},{y1} {lane},{y2} {x2},{y2}"
        attrs = f' data-net="{wire.net}" data-from={quoteattr(wire.a)} data-to={quoteattr(wire.b)}'
        for end in (wire.a, wire.b):
            pin = _pin_for(d, end)
            if pin is not None and pin.gpio is not None:
                attrs += f' data-gpio="{pin.gpio}" data-signal={quoteattr(pin.signal or "")}'
        w(f'<polyline class="wire"{attrs} stroke="{NET_COLOURS[wire.net]}" points="{points}"/>')

    legend_y = height - 70
    w('<g class="legend">')
    for i, (net, colour) in enumerate(NET_COLOURS.items()):
        x = MCU_X + i * 120
        w(
            f'<line x1="{x}" y1="{legend_y}" x2="{x + 24}" y2="{legend_y}" '
            f'stroke="{colour}" stroke-width="3"/>'
        )
        w(f'<text x="{x + 30}" y="{legend_y + 4}">{_NET_NAMES[net]}</text>')
    w("</g>")
    w(
        f'<text class="note" x="{MCU_X}" y="{legend_y + 30}">Wire numbers are the chip\'s '
        f"GPIO numbers, not header positions. Dots are solder points; a line ending on "
        f"another line's terminal joins that net.</text>"
    )
    w("</svg>")
    return "\n".join(out) + "\n"


_NET_NAMES = {
    "5v": "5 V",
    "vbat": "battery +",
    "3v3": "3.3 V",
    "gnd": "ground",
    "data": "data",
    "button": "button",
    "analog": "analog",
}


def _pin_for(diagram: Diagram, end: str) -> McuPin | None:
    owner, name = end.split(":", 1)
    if owner != "mcu":
        return None
    return next(p for p in diagram.pins if p.label == name)


def write_all(out_dir: Path, pinouts: dict[str, dict[str, Any]]) -> list[Path]:
    """Write one SVG per build into `out_dir`; returns the paths written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for build, pinout in pinouts.items():
        path = out_dir / f"{build}.svg"
        path.write_text(render_svg(pinout), encoding="utf-8", newline="\n")
        written.append(path)
    return written


def stale(out_dir: Path, pinouts: dict[str, dict[str, Any]]) -> list[str]:
    """Builds whose diagram in `out_dir` is missing or differs from a fresh render."""
    result = []
    for build, pinout in pinouts.items():
        path = out_dir / f"{build}.svg"
        if not path.exists() or path.read_text(encoding="utf-8") != render_svg(pinout):
            result.append(build)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = tool_parser(__doc__)
    parser.add_argument("--out", type=Path, default=WIRING_DIR, help="output folder")
    parser.add_argument("--check", action="store_true", help="compare only; exit 1 if stale")
    args = parser.parse_args(argv)
    try:
        pinouts = load_pinouts()
        if args.check:
            behind = stale(args.out, pinouts)
            for build in behind:
                print(f"wiring: {build}.svg is out of date; run hardware/tools/wiring.py")
            return 1 if behind else 0
        for path in write_all(args.out, pinouts):
            print(f"wrote {path}")
    except PinoutError as exc:
        print(f"wiring: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
