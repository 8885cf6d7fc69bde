"""`companion scan`: list the LED counters within reach, on USB serial and Bluetooth LE."""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

HELP = "list LED counters on USB serial and Bluetooth LE: role, firmware, battery, claimed"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--virtual",
        action="store_true",
        help="also start a virtual level board (serial) and tracker (BLE) to be found",
    )
    parser.add_argument("--no-ble", action="store_true", help="do not look for BLE counters")
    parser.add_argument(
        "--timeout", type=float, default=3.0, help="seconds to listen for BLE counters (default 3)"
    )


def run(args: argparse.Namespace) -> int:
    if args.timeout <= 0:
        print("companion scan: --timeout must be more than 0 seconds", file=sys.stderr)
        return 1
    try:
        return asyncio.run(_scan(args))
    except KeyboardInterrupt:
        return 130


async def _scan(args: argparse.Namespace) -> int:
    from companion.devices.discovery import CounterInfo, discover, serial_candidates
    from companion.devices.sim.fleet import VirtualFleet
    from companion.devices.status import Role
    from companion.devices.tokens import TokenStore

    tokens = TokenStore()
    found: list[CounterInfo] = []
    notes: list[str] = []
    fleet = VirtualFleet(prefix="companion-scan-")
    virtual = fleet.counters
    try:
        serial_ports = [candidate.port for candidate in serial_candidates()]
        if args.virtual:
            # What a found counter looks like: a serial board and a BLE tracker.
            await fleet.add(Role.BOARD, "serial")
            await fleet.add(Role.TRACKER, "ble")
            serial_ports += [c.address for c in virtual if c.transport == "serial"]
        ble_ok = not args.no_ble
        if ble_ok:
            ble_ok, note = await _bluetooth_available()
            if note:
                notes.append(note)
        found += await discover(
            serial_ports=serial_ports,
            use_ble=ble_ok,
            scan_timeout_s=args.timeout,
            tokens=tokens,
        )
        if fleet.backend is not None:
            found += await discover(
                backend=fleet.backend,
                serial_ports=[],
                scan_timeout_s=min(args.timeout, 1.0),  # the virtual radio answers at once
                tokens=tokens,
            )
    finally:
        virtual = list(virtual)
        await fleet.stop()

    _print(found, tokens, virtual)
    for note in notes:
        print(note)
    if not found:
        print(
            "No counters found. Plug one in over USB or switch it on near this computer; "
            "`companion scan --virtual` shows what a found counter looks like."
        )
    return 0


async def _bluetooth_available() -> tuple[bool, str]:
    """Whether this machine can scan for BLE at all, and a note for the user if not."""
    from bleak import BleakScanner

    try:
        scanner = BleakScanner()
        await scanner.start()
        await scanner.stop()
    except Exception as exc:  # each platform's stack fails its own way (D-Bus, WinRT, ...)
        return False, f"Bluetooth is not available here ({exc}); only USB serial was searched."
    return True, ""


def _print(found: list[Any], tokens: Any, virtual: list[Any]) -> None:
    from companion.devices import wire
    from companion.devices.session import firmware_outdated

    virtual_addresses = {c.address for c in virtual}
    header = ("transport", "name", "address", "role", "firmware", "battery", "claimed")
    rows = []
    for info in found:
        if info.ours:
            claimed = "yes, by this app"
        elif info.claimed and tokens.get(info.hello.counter_id) is not None:
            claimed = "yes, by another table now"
        elif info.claimed:
            claimed = "yes, by another table"
        else:
            claimed = "no"
        battery = f"{info.battery_percent} %" if info.battery_percent is not None else "-"
        # Serial counters are named as the firmware names itself on BLE, from its id.
        name = info.name if info.transport == "ble" else wire.counter_name(info.hello.counter_id)
        firmware = info.firmware
        if firmware_outdated(info.hello):
            firmware += " - update this counter"
        name += " (virtual)" if info.address in virtual_addresses else ""
        role = info.role or "unknown"
        rows.append((info.transport, name, info.address, role, firmware, battery, claimed))
    if not rows:
        return
    widths = [max(len(str(row[i])) for row in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        print("  ".join(str(cell).ljust(width) for cell, width in zip(row, widths, strict=True)))
