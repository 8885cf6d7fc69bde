"""The parametric enclosures render to closed solids whose sizes follow the pinouts."""

from __future__ import annotations

import copy
import math
import struct

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
    assert section.num_contour() == 1 + 1 + 2 + 4  # outline, window, buttons, screws


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


@pytest.mark.parametrize(("build", "holes"), [("levelboard-esp32s3", 1), ("levelboard-picow", 2)])
def test_the_controller_lid_has_a_hole_per_wired_button(build: str, holes: int) -> None:
    lid = next(p for p in cases.parts_for(PINOUTS[build]) if p.name == "controller-lid")
    section = lid.solid.slice(cases.LevelBoardParams().lid / 2)
    assert section.num_contour() == 1 + 4 + holes  # outline, screw holes, buttons
