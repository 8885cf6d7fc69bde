"""Power figures: the targets hold for the default builds and the README shows them."""

from __future__ import annotations

import copy

import hwdata
import power_budget as pb
import pytest

PINOUTS = hwdata.load_pinouts()


@pytest.mark.parametrize("build", sorted(PINOUTS))
def test_default_builds_meet_their_targets(build: str) -> None:
    result = pb.budget(PINOUTS[build])
    assert pb.target_problems(result) == []
    assert result.worst_case_ma <= result.supply_ma


@pytest.mark.parametrize("build", [b for b in sorted(PINOUTS) if "tracker" in b])
def test_trackers_last_twelve_hours_on_their_cell(build: str) -> None:
    result = pb.budget(PINOUTS[build])
    assert PINOUTS[build]["battery"]["capacity_mah"] == 1000
    assert result.battery_h is not None and result.battery_h >= pb.TRACKER_TARGET_H


def test_the_limiter_holds_a_full_white_strip_to_the_budget() -> None:
    pinout = PINOUTS["levelboard-esp32s3"]
    result = pb.budget(pinout, pb.Scenario(brightness=255, lit=None, channels=3.0))
    assert result.led_requested_ma == pytest.approx(60 * 60 + 60 * 1.0)
    assert result.limited
    assert result.led_ma == pytest.approx(pinout["power"]["budget_ma"])
    assert result.total_ma == pytest.approx(pinout["power"]["mcu_active_ma"] + 500)


def test_a_budget_above_the_supply_is_caught() -> None:
    pinout = copy.deepcopy(PINOUTS["levelboard-esp32s3"])
    pinout["power"]["budget_ma"] = 3000
    problems = pb.target_problems(pb.budget(pinout))
    assert any("more than the supply" in p for p in problems)


def test_brighter_means_shorter_battery_life() -> None:
    pinout = PINOUTS["tracker-esp32c3-bar"]
    hours = [pb.budget(pinout, pb.Scenario(brightness=b, lit=10)).battery_h for b in (16, 64, 255)]
    assert hours[0] > hours[1] > hours[2]


def test_tm1637_brightness_levels_span_the_chip() -> None:
    assert [pb.tm1637_level(b) for b in (0, 31, 32, 128, 255)] == [0, 0, 1, 4, 7]


def test_fuse_stays_between_the_normal_draw_and_the_supply() -> None:
    for pinout in PINOUTS.values():
        if pinout["battery"]:
            continue
        result = pb.budget(pinout)
        assert result.worst_case_ma < result.fuse_ma < result.supply_ma


def test_the_readme_shows_the_current_figures() -> None:
    readme = (hwdata.HARDWARE_DIR / "README.md").read_text(encoding="utf-8")
    results = [pb.budget(p) for p in PINOUTS.values()]
    assert pb.markdown(results, PINOUTS) in readme, (
        "hardware/README.md is stale: paste the output of "
        "`.venv/bin/python hardware/tools/power_budget.py --markdown`"
    )


def test_command_line_refuses_nonsense_without_a_traceback(capsys) -> None:
    assert pb.main(["--brightness", "300"]) == 2
    assert "between 0 and 255" in capsys.readouterr().err
    assert pb.main(["nope"]) == 2
    assert pb.main(["--check"]) == 0


def test_blinking_leds_draw_about_half_but_never_above_the_budget() -> None:
    pinout = PINOUTS["levelboard-esp32s3"]
    steady = pb.budget(pinout, pb.Scenario(brightness=255, lit=None, channels=3.0))
    blinking = pb.budget(pinout, pb.Scenario(brightness=255, lit=None, channels=3.0, led_duty=0.5))
    idle = 60 * 1.0
    assert blinking.led_ma == pytest.approx(idle + (steady.led_ma - idle) / 2)
    tracker = PINOUTS["tracker-esp32c3"]
    assert (
        pb.budget(tracker, pb.Scenario(brightness=255, led_duty=0.5)).battery_h
        > pb.budget(tracker, pb.Scenario(brightness=255)).battery_h
    )
