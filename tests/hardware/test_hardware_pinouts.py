"""The pinout files are electrically sound for their dev boards, and documented."""

from __future__ import annotations

import copy
import re

import hwdata
import pytest

PINOUTS = hwdata.load_pinouts()


@pytest.mark.parametrize("build", sorted(PINOUTS))
def test_every_build_uses_only_safe_pins(build: str) -> None:
    assert hwdata.pin_problems(PINOUTS[build]) == []


def test_both_counter_roles_and_all_three_dev_boards_are_covered() -> None:
    roles = {p["role"] for p in PINOUTS.values()}
    modules = {p["module"] for p in PINOUTS.values()}
    assert roles == {"board", "tracker"}
    assert modules == set(hwdata.DEV_BOARDS)


def _with(build: str, path: list[str], value: object) -> dict:
    pinout = copy.deepcopy(PINOUTS[build])
    node = pinout
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return pinout


@pytest.mark.parametrize(
    ("build", "path", "gpio", "complaint"),
    [
        ("levelboard-picow", ["strip", "pin"], 25, "wireless chip"),
        ("levelboard-esp32s3", ["buttons", "next", "pin"], 46, "strapping pin"),
        ("levelboard-esp32s3", ["strip", "pin"], 19, "USB D-"),
        ("tracker-esp32c3", ["battery", "adc_pin"], 5, "ADC pin"),
        ("tracker-esp32c3", ["display", "clk"], 9, "BOOT button"),
        ("tracker-esp32c3", ["buttons", "minus", "pin"], 6, "already used"),
        ("tracker-esp32c3", ["display", "dio"], 14, "no such pin"),
    ],
)
def test_unsafe_pins_are_named(build: str, path: list[str], gpio: int, complaint: str) -> None:
    problems = hwdata.pin_problems(_with(build, path, gpio))
    assert any(complaint in p and f"GPIO{gpio}" in p for p in problems), problems


def test_onboard_boot_button_may_be_the_claim_button() -> None:
    uses = hwdata.pin_uses(PINOUTS["levelboard-esp32s3"])
    claim = next(u for u in uses if u.signal == "buttons.claim.pin")
    assert claim.gpio == 0 and claim.onboard == "BOOT button"


def test_the_field_table_documents_every_field_in_use() -> None:
    readme = (hwdata.PINOUT_DIR / "README.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"`([a-z_0-9]+)`", readme))
    used: set[str] = set()

    def walk(node: object) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if not (isinstance(value, dict) and key in PINOUTS_BUTTON_NAMES):
                    used.add(key)
                walk(value)

    for pinout in PINOUTS.values():
        walk(pinout)
    assert used - documented == set()


PINOUTS_BUTTON_NAMES = {name for p in PINOUTS.values() for name in p["buttons"]}


def test_a_broken_pinout_file_names_the_file(tmp_path) -> None:
    (tmp_path / "levelboard-x.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(hwdata.PinoutError, match=r"levelboard-x\.json"):
        hwdata.load_pinouts(tmp_path)
