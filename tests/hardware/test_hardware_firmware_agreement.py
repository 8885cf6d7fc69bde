"""The firmware's view of each pinout agrees with the wiring diagrams, power figures and cases.

The firmware loads the very same JSON files (deployed as board.json); these tests read
them through its loader and check that what it will drive is what the documents show.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

import cases
import hwdata
import power_budget as pb
import pytest

from companion.devices import firmware_host

firmware_host.load()

from counter import board, limiter  # noqa: E402  (the loader above puts the firmware in place)
from counter.logic import State  # noqa: E402

PINOUTS = hwdata.load_pinouts()
BUILDS = sorted(PINOUTS)
SVG = "{http://www.w3.org/2000/svg}"


def _firmware_board(build: str) -> board.Board:
    return board.load(str(hwdata.PINOUT_DIR / f"{build}.json"))


def _resolve(fw: board.Board, signal: str) -> int:
    """The GPIO the firmware reads for a signal such as 'buttons.claim.pin'."""
    node = fw
    for key in signal.split("."):
        node = node[key]
    return int(node)


def _svg_pins(build: str) -> dict[str, int]:
    root = ET.parse(hwdata.WIRING_DIR / f"{build}.svg").getroot()
    return {
        g.get("data-signal"): int(g.get("data-gpio"))
        for g in root.iter(f"{SVG}g")
        if g.get("class") == "pin" and g.get("data-gpio") is not None
    }


@pytest.mark.parametrize("build", BUILDS)
def test_firmware_pins_are_the_pins_in_the_checked_in_diagram(build: str) -> None:
    fw = _firmware_board(build)
    drawn = _svg_pins(build)
    expected = {use.signal for use in hwdata.pin_uses(PINOUTS[build])}
    assert set(drawn) == expected
    for signal, gpio in drawn.items():
        assert _resolve(fw, signal) == gpio, signal
    assert sorted(fw.buttons.keys()) == sorted(
        s.split(".")[1] for s in drawn if s.startswith("buttons.")
    )


@pytest.mark.parametrize("build", BUILDS)
def test_firmware_drives_the_leds_the_power_budget_counts(build: str) -> None:
    fw = _firmware_board(build)
    groups = hwdata.led_groups(PINOUTS[build])
    assert fw.led_count == sum(g["count"] for g in groups)
    assert [section.count for section, _ in fw.led_chains()] == [g["count"] for g in groups]


@pytest.mark.parametrize("build", BUILDS)
def test_firmware_limiter_and_power_tool_agree_on_a_full_white_frame(build: str) -> None:
    fw = _firmware_board(build)
    chain = fw.led_chains()[0][0]
    ma_per_channel, idle_ua = chain.ma_per_channel, int(chain.idle_ma_per_led * 1000)
    count = fw.led_count
    frame = bytearray([255] * (count * 3))
    white = pb.budget(PINOUTS[build], pb.Scenario(brightness=255, lit=None, channels=3.0))

    asked = limiter.estimate_ma(frame, count, ma_per_channel, idle_ua)
    assert asked == pytest.approx(white.led_requested_ma, abs=1)

    # The firmware scales in 1/256 steps and rounds down, so it lands a little under
    # the budget; the tool's exact figure is therefore an upper bound, never an excuse.
    given = limiter.limit(frame, count, State(fw).budget_ma, ma_per_channel, idle_ua)
    assert given <= white.led_ma <= fw.power.budget_ma
    assert given >= 0.95 * white.led_ma


@pytest.mark.parametrize("build", BUILDS)
def test_firmware_starts_at_the_brightness_the_readme_figures_assume(build: str) -> None:
    state = State(_firmware_board(build))
    assert state.brightness == PINOUTS[build]["power"]["default_brightness"]
    assert state.budget_ma == PINOUTS[build]["power"]["budget_ma"]


@pytest.mark.parametrize("build", [b for b in BUILDS if PINOUTS[b]["role"] == "board"])
def test_the_printed_track_has_a_window_for_every_space_the_firmware_lights(build: str) -> None:
    fw = _firmware_board(build)
    tiles = [p for p in cases.parts_for(PINOUTS[build]) if p.name.startswith("tile-")]
    assert sum(t.meta["spaces"] for t in tiles) == fw.spaces
    assert fw.positions == PINOUTS[build]["strip"]["leds_per_space"]
