"""The parametric enclosures render to closed solids whose sizes follow the pinouts."""

from __future__ import annotations

import copy
import math
import struct

import bom
import cases
import enclosure
import hwdata
import pytest

PINOUTS = hwdata.load_pinouts()


@pytest.mark.parametrize("build", sorted(PINOUTS))
def test_every_part_renders_to_a_valid_stl(build: str, tmp_path) -> None:
    rendered = enclosure.render(build, tmp_path)
    assert rendered
    for r in rendered:
        assert r.path.is_relative_to(tmp_path)
        data = r.path.read_bytes()
        (count,) = struct.unpack_from("<I", data, 80)
        assert count == r.triangles > 0
        assert len(data) == 84 + 50 * count
        assert r.volume_cm3 > 0


@pytest.mark.parametrize("build", sorted(PINOUTS))
def test_every_part_is_one_closed_solid(build: str) -> None:
    for part in cases.parts_for(PINOUTS[build]):
        assert cases.solid_ok(part.solid), part.name
        assert part.solid.genus() >= 0


def test_the_track_follows_the_number_of_spaces() -> None:
    params = cases.LevelBoardParams()
    for build in ("levelboard-esp32s3", "levelboard-esp32s3-epic"):
        strip = PINOUTS[build]["strip"]
        tiles = [p for p in cases.parts_for(PINOUTS[build]) if p.name.startswith("tile-")]
        assert len(tiles) == math.ceil(strip["spaces"] / params.spaces_per_tile)
        track = sum(p.meta["length"] for p in tiles)
        assert track == pytest.approx(strip["count"] * params.led_pitch)


def test_an_odd_number_of_spaces_gets_a_short_last_tile() -> None:
    pinout = copy.deepcopy(PINOUTS["levelboard-esp32s3"])
    pinout["strip"].update(spaces=11, count=66)
    tiles = [p for p in cases.parts_for(pinout) if p.name.startswith("tile-")]
    assert [t.meta["spaces"] for t in tiles] == [2, 2, 2, 2, 2, 1]
    x0, _, _, x1, _, _ = tiles[-1].solid.bounding_box()
    assert x1 - x0 == pytest.approx(6 * cases.LevelBoardParams().led_pitch)


def test_each_space_has_its_own_window() -> None:
    tile = cases.parts_for(PINOUTS["levelboard-esp32s3"])[0].solid
    params = cases.LevelBoardParams()
    roof = tile.slice(params.tile_height - params.roof / 2)
    assert roof.num_contour() == 1 + params.spaces_per_tile  # outline + one hole per space


def test_the_tracker_lid_has_a_window_and_two_button_holes() -> None:
    lid = next(p for p in cases.parts_for(PINOUTS["tracker-esp32c3"]) if p.name == "lid")
    section = lid.solid.slice(cases.TrackerParams().lid / 2)
    # outline, window, buttons, the status LED's light pipe, screws
    assert section.num_contour() == 1 + 1 + 2 + 1 + 4


def test_the_bar_tracker_is_long_enough_for_its_bar() -> None:
    pinout = PINOUTS["tracker-esp32c3-bar"]
    body = next(p for p in cases.parts_for(pinout) if p.name == "body").solid
    x0, _, _, x1, _, _ = body.bounding_box()
    assert x1 - x0 > pinout["display"]["count"] * cases.TrackerParams().bar_led_pitch


def test_command_line_renders_into_the_given_folder(tmp_path, capsys) -> None:
    assert enclosure.main(["tracker-esp32c3", "--out", str(tmp_path)]) == 0
    assert sorted(p.name for p in (tmp_path / "tracker-esp32c3").iterdir()) == [
        "body.stl",
        "lid.stl",
    ]
    assert enclosure.main(["no-such-build", "--out", str(tmp_path)]) == 2
    assert "unknown build" in capsys.readouterr().err


# S3: the next-turn button, and a plunger hole for the claim (BOOT) button on the dev board.
@pytest.mark.parametrize(("build", "holes"), [("levelboard-esp32s3", 2), ("levelboard-picow", 2)])
def test_the_controller_lid_has_a_hole_per_button(build: str, holes: int) -> None:
    lid = next(p for p in cases.parts_for(PINOUTS[build]) if p.name == "controller-lid")
    section = lid.solid.slice(cases.LevelBoardParams().lid / 2)
    assert section.num_contour() == 1 + 4 + holes  # outline, screw holes, buttons


def _missing(build: str, pinout: dict) -> dict[str, int]:
    need = bom.required_openings(bom.read_bom(hwdata.BOM_DIR / f"{build}.csv"), pinout)
    have = cases.openings(cases.parts_for(pinout))
    return {kind: n - have.get(kind, 0) for kind, n in need.items() if have.get(kind, 0) < n}


@pytest.mark.parametrize("build", sorted(PINOUTS))
def test_every_control_light_and_connector_in_the_bom_has_its_opening(build: str) -> None:
    assert _missing(build, PINOUTS[build]) == {}


def test_the_epic_board_opens_onto_its_barrel_jack_and_the_s3_onto_its_claim_button() -> None:
    epic = cases.openings(cases.parts_for(PINOUTS["levelboard-esp32s3-epic"]))
    assert epic["barrel-jack"] == 1 and "usb-power" not in epic
    assert cases.openings(cases.parts_for(PINOUTS["levelboard-esp32s3"]))["onboard-button"] == 1


def test_a_light_without_an_opening_is_found() -> None:
    """The check is not empty: a tracker whose status LED had no light pipe fails it."""
    pinout = copy.deepcopy(PINOUTS["tracker-esp32c3"])
    parts = cases.parts_for(pinout)
    lid = next(p for p in parts if p.name == "lid")
    lid.meta["openings"].remove("status-led")
    need = bom.required_openings(bom.read_bom(hwdata.BOM_DIR / "tracker-esp32c3.csv"), pinout)
    have = cases.openings(parts)
    assert need["status-led"] == 1 and have.get("status-led", 0) == 0
