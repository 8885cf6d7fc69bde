"""Bills of materials: checks every `hardware/bom/<build>.csv` and prints its total.

`.venv/bin/python hardware/tools/bom.py` prints one line per build with its part count
and total; `--check` exits 1 when a file is malformed (wrong columns, a line price that
is not quantity × unit price, a TOTAL row that is not the sum, a build without a BOM or
a BOM whose fuse does not match the one the power budget picks for that supply).
"""

from __future__ import annotations

import csv
import sys
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from hwdata import BOM_DIR, PinoutError, fmt_num, load_pinouts, pin_uses, tool_parser
from power_budget import fuse_rating_ma

COLUMNS = ["part", "quantity", "example_part_number", "unit_price_usd", "line_price_usd", "note"]
TOTAL_LABEL = "TOTAL"
CENT = Decimal("0.01")


@dataclass(frozen=True)
class BomLine:
    part: str
    quantity: int
    example_part_number: str
    unit_price_usd: Decimal
    line_price_usd: Decimal
    note: str


@dataclass(frozen=True)
class Bom:
    build: str
    lines: list[BomLine]
    total_usd: Decimal


class BomError(ValueError):
    """A BOM file that does not add up; the message names the file and the row."""


def _money(text: str, where: str) -> Decimal:
    try:
        value = Decimal(text)
    except InvalidOperation:
        raise BomError(f"{where}: {text!r} is not a price") from None
    if value < 0 or value != value.quantize(CENT):
        raise BomError(f"{where}: {text!r} should be a price in dollars and cents")
    return value


def read_bom(path: Path) -> Bom:
    """Parse and check one BOM file; BomError says which row is wrong and why."""
    with path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    if not rows or rows[0] != COLUMNS:
        raise BomError(f"{path.name}: the header must be {','.join(COLUMNS)}")
    if len(rows) < 3 or rows[-1][0] != TOTAL_LABEL:
        raise BomError(f"{path.name}: the last row must be the {TOTAL_LABEL} row")
    lines = []
    for number, row in enumerate(rows[1:-1], start=2):
        where = f"{path.name} row {number}"
        if len(row) != len(COLUMNS):
            raise BomError(f"{where}: {len(row)} columns instead of {len(COLUMNS)}")
        part, quantity, number_text, unit, line, note = row
        if not part or not number_text:
            raise BomError(f"{where}: the part and an example part number are required")
        if not quantity.isdigit() or int(quantity) < 1:
            raise BomError(f"{where}: quantity {quantity!r} should be a whole number above 0")
        unit_price = _money(unit, where)
        line_price = _money(line, where)
        if unit_price * int(quantity) != line_price:
            raise BomError(
                f"{where}: line price {line} is not {quantity} × {unit} "
                f"(= {unit_price * int(quantity)})"
            )
        lines.append(BomLine(part, int(quantity), number_text, unit_price, line_price, note))
    total = _money(rows[-1][4], f"{path.name} {TOTAL_LABEL} row")
    expected = sum((line.line_price_usd for line in lines), Decimal("0"))
    if total != expected:
        raise BomError(f"{path.name}: {TOTAL_LABEL} is {total} but the lines add up to {expected}")
    return Bom(path.stem, lines, total)


def fuse_problems(bom: Bom, pinout: dict[str, Any]) -> list[str]:
    """A mains-powered build's BOM must carry the fuse the power budget picks."""
    if pinout.get("battery"):
        return []
    amps = fmt_num(fuse_rating_ma(pinout["power"]["supply_ma"]) / 1000)
    wanted = f"Fuse {amps} A"
    if not any(line.part.startswith(wanted) for line in bom.lines):
        return [
            f"{bom.build}.csv: no '{wanted} …' line for a {pinout['power']['supply_ma']} mA supply"
        ]
    return []


# Parts a person touches, looks at or plugs into, and the opening each needs in the case
# (matched on the start of the BOM's part name, one opening per unit).
OPENING_PARTS = (
    ("Push button", "button"),
    ("USB-C power breakout", "usb-power"),
    ("DC barrel jack", "barrel-jack"),
    ("Slide switch", "switch"),
    ("LiPo charger module, USB-C", "usb-charge"),
    ("TM1637", "display"),
    ("JST-SM", "strip-cable"),
)


def required_openings(bom: Bom, pinout: dict[str, Any]) -> dict[str, int]:
    """Every control, light and connector of a build that its enclosure must open onto.

    From the BOM: buttons, power and charging sockets, switches, displays, cables. From
    the pin map: the LED strip (track windows or the tracker's bar), the dev board's own
    USB port, and whatever on the dev board the build uses as a control or light (the
    S3's BOOT button as the claim button, the C3 DevKitM-1's RGB LED as the status LED).
    """
    need: dict[str, int] = {}

    def add(kind: str, count: int = 1) -> None:
        need[kind] = need.get(kind, 0) + count

    for line in bom.lines:
        for prefix, kind in OPENING_PARTS:
            if line.part.startswith(prefix):
                add(kind, line.quantity)
        if "development board" in line.part or line.part.startswith("Raspberry Pi Pico"):
            add("usb-flash")
    if pinout.get("strip"):
        add("track-windows")
    display = pinout.get("display")
    if display and display["kind"] == "ledbar":
        add("bar")
    for use in pin_uses(pinout):
        if use.onboard is None:
            continue
        if use.kind == "button":
            add("onboard-button")
        elif use.kind == "led-data":
            add("status-led")
    return need


def check_all(
    bom_dir: Path = BOM_DIR, pinouts: dict[str, dict[str, Any]] | None = None
) -> tuple[list[Bom], list[str]]:
    """Every BOM that parses, and the problems found in any of them (missing ones too)."""
    pinouts = load_pinouts() if pinouts is None else pinouts
    boms, problems = [], []
    for build, pinout in pinouts.items():
        path = bom_dir / f"{build}.csv"
        if not path.exists():
            problems.append(f"{build}: no BOM at {path}")
            continue
        try:
            bom = read_bom(path)
        except BomError as exc:
            problems.append(str(exc))
            continue
        boms.append(bom)
        problems += fuse_problems(bom, pinout)
    return boms, problems


def main(argv: list[str] | None = None) -> int:
    parser = tool_parser(__doc__)
    parser.add_argument("--dir", type=Path, default=BOM_DIR, help="folder of BOM CSV files")
    parser.add_argument("--check", action="store_true", help="exit 1 when a BOM is wrong")
    args = parser.parse_args(argv)
    try:
        boms, problems = check_all(args.dir)
    except PinoutError as exc:
        print(f"bom: {exc}", file=sys.stderr)
        return 2
    for bom in boms:
        parts = sum(line.quantity for line in bom.lines)
        print(f"{bom.build:<26} {len(bom.lines):>3} lines {parts:>4} parts  ${bom.total_usd}")
    for problem in problems:
        print(f"bom: {problem}", file=sys.stderr)
    return 1 if args.check and problems else 0


if __name__ == "__main__":
    sys.exit(main())
