"""The wiring diagrams are generated from the pinouts, deterministic and up to date."""

from __future__ import annotations

import copy
import xml.etree.ElementTree as ET

import hwdata
import pytest
import wiring

PINOUTS = hwdata.load_pinouts()
SVG = "{http://www.w3.org/2000/svg}"


def test_regenerating_gives_the_checked_in_files_byte_for_byte(tmp_path) -> None:
    written = wiring.write_all(tmp_path, PINOUTS)
    assert [p.name for p in written] == [f"{b}.svg" for b in PINOUTS]
    for path in written:
        checked_in = hwdata.WIRING_DIR / path.name
        assert checked_in.read_bytes() == path.read_bytes(), (
            f"{path.name} is stale: run .venv/bin/python hardware/tools/wiring.py"
        )


def test_no_diagram_is_checked_in_without_a_pinout() -> None:
    assert sorted(p.stem for p in hwdata.WIRING_DIR.glob("*.svg")) == sorted(PINOUTS)


@pytest.mark.parametrize("build", sorted(PINOUTS))
def test_every_used_gpio_is_drawn_with_its_signal(build: str) -> None:
    root = ET.fromstring(wiring.render_svg(PINOUTS[build]))
    pins = {
        g.get("data-signal"): int(g.get("data-gpio"))
        for g in root.iter(f"{SVG}g")
        if g.get("class") == "pin" and g.get("data-gpio") is not None
    }
    wired = {
        w.get("data-signal"): int(w.get("data-gpio"))
        for w in root.iter(f"{SVG}polyline")
        if w.get("data-gpio") is not None
    }
    for use in hwdata.pin_uses(PINOUTS[build]):
        assert pins[use.signal] == use.gpio
        if use.onboard:
            assert use.signal not in wired  # the dev board already wires it
        else:
            assert wired[use.signal] == use.gpio


def test_a_moved_pin_moves_in_the_diagram() -> None:
    pinout = copy.deepcopy(PINOUTS["levelboard-esp32s3"])
    pinout["strip"]["pin"] = 17
    svg = wiring.render_svg(pinout)
    assert 'data-gpio="17" data-signal="strip.pin"' in svg
    assert 'data-gpio="16"' not in svg


def test_an_unsafe_pin_is_refused_rather_than_drawn() -> None:
    pinout = copy.deepcopy(PINOUTS["levelboard-picow"])
    pinout["strip"]["pin"] = 24
    with pytest.raises(hwdata.PinoutError, match="wireless chip"):
        wiring.render_svg(pinout)


def test_check_mode_reports_stale_and_fresh_folders(tmp_path) -> None:
    assert wiring.main(["--out", str(tmp_path), "--check"]) == 1  # nothing there yet
    assert wiring.main(["--out", str(tmp_path)]) == 0
    assert wiring.main(["--out", str(tmp_path), "--check"]) == 0
    (tmp_path / "tracker-esp32c3.svg").write_text("<svg/>", encoding="utf-8")
    assert wiring.stale(tmp_path, PINOUTS) == ["tracker-esp32c3"]


def test_board_diagrams_carry_the_strip_safety_parts() -> None:
    for build, pinout in PINOUTS.items():
        if pinout["role"] != "board":
            continue
        parts = {p.key for p in wiring.build_diagram(pinout).parts}
        assert {"fuse", "cap", "shifter", "res", "diode"} <= parts, build
