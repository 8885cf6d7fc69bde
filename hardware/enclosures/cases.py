"""Parametric enclosures for the counters, as CSG solids built with the Manifold kernel.

Every dimension is a named parameter in millimetres; the LED count, spaces and
dev board come from the build's pinout, so the Epic board simply gets more track
tiles. `hardware/tools/enclosure.py` renders the parts to STL files for slicing.

Level board: the track is cut into tiles of `spaces_per_tile` spaces (a 1 m strip
does not fit a printer bed); each tile has a window per space over that space's LEDs,
walls between spaces so the colours do not bleed, and a groove in the floor for the
strip. A controller box holds the dev board and the perfboard; its lid carries the
button holes. Tracker: a body holding the cell, the dev board, the charger and the
regulator, and a lid with the display window (or the LED-bar slot) and two button holes.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from manifold3d import Manifold, OpType

# The pinout rules live with the tools; this model is run from there or from the tests.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))

from hwdata import pin_uses

# Footprints (length, width) of the dev boards, mm, from their data sheets, plus room for
# the header pins underneath (height).
DEV_BOARD_MM: dict[str, tuple[float, float, float]] = {
    "ESP32-S3-DevKitC-1": (69.0, 25.5, 13.0),
    "ESP32-C3-DevKitM-1": (54.0, 25.5, 13.0),
    "Raspberry Pi Pico W": (51.0, 21.0, 12.0),
}
SEGMENTS = 48  # facets on round holes: smooth enough for M2/M3 screws, small STL files


def box(x: float, y: float, z: float, at: tuple[float, float, float] = (0, 0, 0)) -> Manifold:
    """An axis-aligned box with its low corner at `at`."""
    return Manifold.cube((x, y, z)).translate(at)


def rod(d: float, h: float, at: tuple[float, float, float]) -> Manifold:
    """A vertical cylinder of diameter `d` standing on `at`."""
    return Manifold.cylinder(h, d / 2, circular_segments=SEGMENTS).translate(at)


@dataclass(frozen=True)
class LevelBoardParams:
    """Dimensions of the level-board track tiles and the controller box, mm."""

    led_pitch: float = 1000 / 60  # a 60 LEDs/m strip
    spaces_per_tile: int = 2
    strip_width: float = 10.5  # 10 mm strip plus slack
    groove_depth: float = 1.0
    tile_width: float = 34.0
    tile_height: float = 14.0  # LED-to-window distance diffuses the light
    wall: float = 2.0
    floor: float = 2.0
    roof: float = 1.6
    window_margin: float = 2.0  # between a space's window and its walls
    divider: float = 1.6
    strip_pass_height: float = 4.0  # notch under each divider for the strip
    box_clearance: float = 3.0
    perfboard: tuple[float, float] = (70.0, 50.0)
    box_height: float = 32.0
    lid: float = 2.0
    button_hole: float = 7.0
    plunger_hole: float = 4.0  # a printed plunger down to a button on the dev board itself
    usb_c_slot: tuple[float, float] = (9.5, 3.8)
    barrel_jack_hole: float = 8.0  # a DC-022 panel jack is 8 mm across its thread
    cable_hole: float = 8.0
    insert_hole: float = 4.0  # M3 heat-set insert
    boss: float = 7.0


@dataclass(frozen=True)
class TrackerParams:
    """Dimensions of the tracker body and lid, mm."""

    cell: tuple[float, float, float] = (50.0, 34.0, 6.0)  # a 603450 cell
    charger: tuple[float, float] = (28.0, 17.5)
    display: tuple[float, float, float] = (42.0, 24.0, 8.0)  # TM1637 module
    display_window: tuple[float, float] = (22.0, 12.5)
    bar_led_pitch: float = 1000 / 144  # a 144 LEDs/m strip
    bar_slot_width: float = 6.0
    wall: float = 2.0
    floor: float = 1.6
    lid: float = 1.8
    clearance: float = 2.0
    button_hole: float = 7.0
    button_gap: float = 14.0  # centre of each button hole from the window's edge
    usb_c_slot: tuple[float, float] = (9.5, 3.8)
    switch_slot: tuple[float, float] = (9.0, 4.5)
    light_pipe_hole: float = 3.0  # over the dev board's own RGB LED (the status LED)
    screw_hole: float = 1.8  # M2 self-tapping
    boss: float = 5.0


@dataclass
class Part:
    """One printable part: its name, the solid, and a short note for the README."""

    name: str
    solid: Manifold
    note: str
    meta: dict[str, Any] = field(default_factory=dict)


def _tile(params: LevelBoardParams, spaces: int, leds_per_space: int) -> Manifold:
    p = params
    space_len = leds_per_space * p.led_pitch
    length = spaces * space_len
    body = box(length, p.tile_width, p.tile_height)
    inner_w = p.tile_width - 2 * p.wall
    cavity = box(length + 2, inner_w, p.tile_height - p.floor - p.roof, (-1, p.wall, p.floor))
    body = body - cavity
    # Walls between spaces keep each space's light in its own window.
    for i in range(1, spaces):
        x = i * space_len - p.divider / 2
        wall = box(p.divider, inner_w, p.tile_height - p.floor - p.roof, (x, p.wall, p.floor))
        notch = box(p.divider + 2, p.strip_width, p.strip_pass_height, (x - 1, 0, p.floor))
        notch = notch.translate((0, (p.tile_width - p.strip_width) / 2, 0))
        body = body + (wall - notch)
    for i in range(spaces):
        window = box(
            space_len - 2 * p.window_margin - p.divider,
            inner_w - 2 * p.window_margin,
            p.roof + 2,
            (
                i * space_len + p.window_margin + p.divider / 2,
                p.wall + p.window_margin,
                p.tile_height - p.roof - 1,
            ),
        )
        body = body - window
    groove = box(
        length + 2,
        p.strip_width,
        p.groove_depth + 1,
        (-1, (p.tile_width - p.strip_width) / 2, p.floor - p.groove_depth),
    )
    return body - groove


def _screw_bosses(
    inner: tuple[float, float], wall: float, height: float, boss: float, hole: float, z0: float
) -> tuple[Manifold, Manifold]:
    """(bosses, holes) in the four inner corners of a box."""
    bosses, holes = [], []
    for cx in (wall + boss / 2, wall + inner[0] - boss / 2):
        for cy in (wall + boss / 2, wall + inner[1] - boss / 2):
            bosses.append(rod(boss, height, (cx, cy, z0)))
            holes.append(rod(hole, height + 2, (cx, cy, z0 + 2)))
    return Manifold.batch_boolean(bosses, OpType.Add), Manifold.batch_boolean(holes, OpType.Add)


def _lid_holes(corners: list[tuple[float, float]], d: float, h: float) -> Manifold:
    return Manifold.batch_boolean([rod(d, h + 2, (x, y, -1)) for x, y in corners], OpType.Add)


def levelboard_parts(pinout: dict[str, Any], params: LevelBoardParams | None = None) -> list[Part]:
    """Track tiles (one per `spaces_per_tile` spaces), the controller box and its lid."""
    p = params or LevelBoardParams()
    strip = pinout["strip"]
    spaces, per_space = strip["spaces"], strip["leds_per_space"]
    parts: list[Part] = []
    full, rest = divmod(spaces, p.spaces_per_tile)
    tile_sizes = [p.spaces_per_tile] * full + ([rest] if rest else [])
    shapes: dict[int, Manifold] = {}
    for index, size in enumerate(tile_sizes, start=1):
        if size not in shapes:
            shapes[size] = _tile(p, size, per_space)
        parts.append(
            Part(
                f"tile-{index:02d}",
                shapes[size],
                f"track tile {index}: spaces {sum(tile_sizes[: index - 1]) + 1}.."
                f"{sum(tile_sizes[:index])}",
                {
                    "spaces": size,
                    "length": size * per_space * p.led_pitch,
                    "openings": ["track-windows"],
                },
            )
        )

    board_l, board_w, board_h = DEV_BOARD_MM[pinout["module"]]
    inner_l = max(board_l, p.perfboard[0]) + 2 * p.box_clearance + 2 * p.boss
    inner_w = board_w + p.perfboard[1] + 3 * p.box_clearance
    outer = (inner_l + 2 * p.wall, inner_w + 2 * p.wall, p.box_height)
    shell = box(*outer) - box(inner_l, inner_w, p.box_height, (p.wall, p.wall, p.floor))
    bosses, holes = _screw_bosses(
        (inner_l, inner_w), p.wall, p.box_height - p.floor, p.boss, p.insert_hole, p.floor
    )
    shell = shell + bosses - holes
    mid_z = p.floor + board_h / 2 + 4
    # Power in at one end, the strip cable out of the other, the dev board's USB for flashing.
    openings = ["strip-cable", "usb-flash"]
    if pinout["power"]["supply"] == "dc-5v":
        jack = (
            Manifold.cylinder(p.wall + 2, p.barrel_jack_hole / 2, circular_segments=SEGMENTS)
            .rotate((0, 90, 0))
            .translate((-1, outer[1] * 0.75, mid_z + p.barrel_jack_hole / 2))
        )
        shell = shell - jack
        openings.append("barrel-jack")
    else:
        usb_w, usb_h = p.usb_c_slot
        shell = shell - box(p.wall + 2, usb_w, usb_h, (-1, outer[1] * 0.75 - usb_w / 2, mid_z))
        openings.append("usb-power")
    cable = (
        Manifold.cylinder(p.wall + 2, p.cable_hole / 2, circular_segments=SEGMENTS)
        .rotate((0, 90, 0))
        .translate((outer[0] - p.wall - 1, outer[1] * 0.75, mid_z + p.cable_hole / 2))
    )
    flash = box(12.0, p.wall + 2, 7.0, (p.wall + p.boss + p.box_clearance, -1, mid_z))
    shell = shell - cable - flash
    parts.append(
        Part(
            "controller-box",
            shell,
            "controller box: dev board, perfboard, fuse",
            {"openings": openings},
        )
    )

    lid = box(outer[0], outer[1], p.lid)
    corners = [
        (x, y)
        for x in (p.wall + p.boss / 2, p.wall + inner_l - p.boss / 2)
        for y in (p.wall + p.boss / 2, p.wall + inner_w - p.boss / 2)
    ]
    lid = lid - _lid_holes(corners, 3.4, p.lid)
    buttons = [u for u in pin_uses(pinout) if u.kind == "button"]
    external = [u.signal for u in buttons if not u.onboard]
    for i, _signal in enumerate(external):
        x = outer[0] / 2 + (i - (len(external) - 1) / 2) * (p.button_hole + 12)
        lid = lid - rod(p.button_hole, p.lid + 2, (x, outer[1] / 2, -1))
    # A button the dev board carries itself (the S3's BOOT button, which claims) is
    # pressed through a plunger hole above the dev board, near its short edge.
    onboard = [u.signal for u in buttons if u.onboard]
    for i, _signal in enumerate(onboard):
        x = p.wall + p.boss + p.box_clearance + 6 + i * (p.plunger_hole + 6)
        lid = lid - rod(p.plunger_hole, p.lid + 2, (x, p.wall + p.box_clearance + 8, -1))
    parts.append(
        Part(
            "controller-lid",
            lid,
            f"controller lid: {len(external)} button hole(s), {len(onboard)} plunger hole(s)",
            {"openings": ["button"] * len(external) + ["onboard-button"] * len(onboard)},
        )
    )
    return parts


def tracker_parts(pinout: dict[str, Any], params: TrackerParams | None = None) -> list[Part]:
    """The tracker body (cell, dev board, charger, regulator) and its lid."""
    p = params or TrackerParams()
    display = pinout["display"]
    board_l, board_w, board_h = DEV_BOARD_MM[pinout["module"]]
    if display["kind"] == "ledbar":
        bar_len = display["count"] * p.bar_led_pitch
        window = (bar_len + 2, p.bar_slot_width)
        face_len, face_h = bar_len + 6, 4.0
    else:
        window = p.display_window
        face_len, face_h = p.display[0], p.display[2]
    inner_l = max(p.cell[0], board_l, face_len, p.charger[0] * 2) + 2 * p.clearance + 2 * p.boss
    inner_w = max(p.cell[1], board_w + p.charger[1]) + 2 * p.clearance
    inner_h = p.cell[2] + board_h + face_h + 2 * p.clearance
    outer = (inner_l + 2 * p.wall, inner_w + 2 * p.wall, inner_h + p.floor)
    body = box(*outer) - box(inner_l, inner_w, inner_h + 1, (p.wall, p.wall, p.floor))
    bosses, holes = _screw_bosses(
        (inner_l, inner_w), p.wall, inner_h, p.boss, p.screw_hole, p.floor
    )
    body = body + bosses - holes
    usb_w, usb_h = p.usb_c_slot
    usb_z = p.floor + p.cell[2] + p.clearance
    body = body - box(p.wall + 2, usb_w, usb_h, (-1, outer[1] / 2 - usb_w / 2, usb_z))
    sw_w, sw_h = p.switch_slot
    body = body - box(sw_w, p.wall + 2, sw_h, (outer[0] / 2 - sw_w / 2, -1, usb_z))
    flash = box(p.wall + 2, 12.0, 7.0, (outer[0] - p.wall - 1, outer[1] / 2 - 6, usb_z + 4))
    body = body - flash

    lid = box(outer[0], outer[1], p.lid)
    corners = [
        (x, y)
        for x in (p.wall + p.boss / 2, p.wall + inner_l - p.boss / 2)
        for y in (p.wall + p.boss / 2, p.wall + inner_w - p.boss / 2)
    ]
    lid = lid - _lid_holes(corners, 2.4, p.lid)
    cx, cy = outer[0] / 2, outer[1] * 0.62
    lid = lid - box(window[0], window[1], p.lid + 2, (cx - window[0] / 2, cy - window[1] / 2, -1))
    button_y = outer[1] * 0.22
    for dx in (-p.button_gap, p.button_gap):
        lid = lid - rod(p.button_hole, p.lid + 2, (cx + dx, button_y, -1))
    lid_openings = ["bar" if display["kind"] == "ledbar" else "display", "button", "button"]
    if pinout.get("status_led"):
        # The dev board's RGB LED is the status LED: a light pipe through the lid, between
        # the buttons, where the board sits under the lid.
        lid = lid - rod(p.light_pipe_hole, p.lid + 2, (cx, button_y, -1))
        lid_openings.append("status-led")
    return [
        Part(
            "body",
            body,
            "tracker body: cell at the bottom, dev board and charger above",
            {"openings": ["usb-charge", "switch", "usb-flash"]},
        ),
        Part(
            "lid",
            lid,
            f"tracker lid: {display['kind']} window, two button holes"
            + (", a light pipe for the status LED" if pinout.get("status_led") else ""),
            {"openings": lid_openings},
        ),
    ]


def openings(parts: list[Part]) -> dict[str, int]:
    """How many openings of each kind (button, status-led, barrel-jack, ...) the parts have."""
    out: dict[str, int] = {}
    for part in parts:
        for kind in part.meta.get("openings", ()):
            out[kind] = out.get(kind, 0) + 1
    return out


def parts_for(pinout: dict[str, Any]) -> list[Part]:
    """The printable parts of a build, chosen by its role."""
    if pinout["role"] == "board":
        return levelboard_parts(pinout)
    return tracker_parts(pinout)


def solid_ok(solid: Manifold) -> bool:
    """True when a part is one closed, valid solid with some volume."""
    return (
        solid.status().name == "NoError"
        and not solid.is_empty()
        and solid.volume() > 0
        and len(solid.decompose()) == 1
        and math.isfinite(solid.volume())
    )
