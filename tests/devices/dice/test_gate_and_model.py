"""What counts as a roll, and which dice count as a d6."""

from __future__ import annotations

import doctest
import importlib
from typing import Any

import pytest

from companion.devices.dice import pixels_protocol
from companion.devices.dice.model import DieType, NotAD6Error, SettledRoll
from companion.devices.dice.source import RollGate


@pytest.mark.parametrize(
    "name",
    [
        "companion.devices.dice.model",
        "companion.devices.dice.source",
        "companion.devices.dice.pixels_protocol",
        "companion.devices.dice.godice_protocol",
    ],
)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0


def test_tumbling_then_settled_counts_once() -> None:
    gate = RollGate(armed=False)
    for _ in range(4):
        gate.moving()
    assert [gate.settled(), gate.settled()] == [True, False]


def test_a_rest_without_motion_is_not_a_roll() -> None:
    gate = RollGate(armed=True)
    gate.rested()
    assert gate.settled() is False


@pytest.mark.parametrize("die_type", [DieType.D6, DieType.D6_PIPPED])
def test_d6_shapes_count(die_type: DieType) -> None:
    assert SettledRoll("a", "A", die_type, 3, 0.0).d6() == 3


@pytest.mark.parametrize(
    "die_type", [DieType.D6_FUDGE, DieType.D20, DieType.D4, DieType.D10, DieType.UNKNOWN]
)
def test_other_shapes_are_refused_with_a_reason(die_type: DieType) -> None:
    with pytest.raises(NotAD6Error, match="not a d6"):
        SettledRoll("a", "Orb", die_type, 3, 0.0).d6()


def test_an_unread_face_is_refused() -> None:
    with pytest.raises(NotAD6Error, match="no d6 has"):
        SettledRoll("a", "Orb", DieType.D6, None, 0.0).d6()


def _adv(name: str, uuids: list[str], service_data: dict, maker: dict) -> tuple[Any, Any]:
    from bleak.backends.device import BLEDevice
    from bleak.backends.scanner import AdvertisementData

    device = BLEDevice("C0:00:00:00:00:09", name, None)
    adv = AdvertisementData(name, maker, service_data, uuids, None, -50, ())
    return device, adv


INFO = pixels_protocol.INFO_SERVICE_DATA_UUID
NEW, OLD = pixels_protocol.SERVICE_UUID, pixels_protocol.LEGACY_SERVICE_UUID


@pytest.mark.parametrize(
    ("name", "uuids", "service_data", "maker", "expected"),
    [
        ("GoDice_1A2B3C_R_v03", [], {}, {}, "GoDice"),  # by its name, whatever it advertises
        ("Ruby", [NEW], {INFO: bytes(8)}, {}, "Pixels"),  # firmware since late 2024
        ("Ruby", [OLD], {INFO: bytes(8)}, {}, "Pixels"),  # the 2024-11-07 release and before
        ("Ruby", [OLD], {}, {0xFFFF: bytes([6, 0x21, 1, 0, 87])}, "Pixels"),
        ("Ruby", [NEW], {}, {0x0D39: bytes([6, 0x21, 1, 0, 87])}, "Pixels"),
        ("Ruby", [OLD], {INFO: b"\x01"}, {}, None),  # broken service data
        ("Ruby", [OLD], {}, {0x004C: bytes(5)}, None),  # someone else's maker data
        ("UART-thing", [OLD], {}, {}, None),  # the shared UART service alone
        ("Ruby", [], {}, {0xFFFF: bytes(5)}, None),  # no Pixels service
        # The advertisement alone, as the firmware sends it before its scan response:
        # Device Information listed, the die's state as manufacturer data.
        ("Ruby", [INFO], {}, {0x0D39: bytes([6, 0x21, 1, 0, 87])}, "Pixels"),
        ("Ruby", [INFO], {}, {0xFFFF: bytes([6, 0x21, 1, 0, 87])}, "Pixels"),
        ("Ruby", [INFO], {}, {0x0D39: bytes(4)}, None),  # too short for a die's state
        ("Thing", [INFO], {}, {0x004C: bytes(5)}, None),  # someone else's maker data
    ],
)
def test_scan_tells_the_makers_apart(
    name: str, uuids: list, service_data: dict, maker: dict, expected: str | None
) -> None:
    from companion.devices.dice.scan import classify

    assert classify(*_adv(name, uuids, service_data, maker)) == expected
