"""What a virtual counter's LEDs show: one rendered frame, light to import.

The app's side of virtual counters that run in another process (`remote`) gets
these frames without importing the firmware or the BLE stack that render them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from companion.devices.status import Role


@dataclass(frozen=True)
class LedFrame:
    """One rendered picture of a counter's LEDs, for the app to draw.

    `rgb` holds R, G, B per LED in the firmware's frame order (strip or bar
    first, status LED last); `text` is what a tracker's 7-segment digits show
    ("" without digits). `rev` is the revision of the snapshot on show and
    `number` counts the frames this counter rendered.
    """

    name: str
    role: Role
    rgb: bytes
    text: str
    rev: int
    number: int
    spaces: int  # level spaces on a board's track, LEDs on a tracker's bar
    positions: int  # LEDs per level space (a board), 1 for a tracker

    @property
    def pixels(self) -> list[tuple[int, int, int]]:
        """The LEDs as (r, g, b) tuples."""
        data = self.rgb
        return [(data[i], data[i + 1], data[i + 2]) for i in range(0, len(data), 3)]

    def ansi(self) -> str:
        """The frame as one line of ANSI true-colour blocks, for a terminal."""
        cells = []
        pixels = self.pixels
        for index, (r, g, b) in enumerate(pixels):
            if self.role is Role.BOARD and index and index % self.positions == 0:
                cells.append("\x1b[0m ")  # a gap between level spaces
            if r | g | b:
                cells.append(f"\x1b[38;2;{_lift(r)};{_lift(g)};{_lift(b)}m\u2588")
            else:
                cells.append("\x1b[38;2;40;40;40m\u00b7")
        line = "".join(cells) + "\x1b[0m"
        if self.text:
            line += f" [{self.text}]"
        return line


def _lift(channel: int) -> int:
    # LEDs are dimmed by the current limiter; a terminal needs them brighter to be seen.
    return min(255, channel * 3) if channel else 0


FrameListener = Callable[[LedFrame], None]
