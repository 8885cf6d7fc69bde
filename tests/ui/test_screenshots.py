"""`companion screenshots`: real PNGs of the screens at the asked size, losslessly squeezed."""

from __future__ import annotations

import os
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from companion.commands.screenshots import recompress_png


def png_size(data: bytes) -> tuple[int, int]:
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def pixels(data: bytes) -> bytes:
    """The inflated image data of a PNG (its filtered scanlines)."""
    at, idat = 8, b""
    while at < len(data):
        (length,) = struct.unpack(">I", data[at : at + 4])
        if data[at + 4 : at + 8] == b"IDAT":
            idat += data[at + 8 : at + 8 + length]
        at += 12 + length
    return zlib.decompress(idat)


def chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def test_recompressing_keeps_every_pixel_and_drops_text() -> None:
    rows = b"".join(b"\x00" + bytes([x % 7, x % 5, 40]) * 64 for x in range(48))
    original = (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", 64, 48, 8, 2, 0, 0, 0))
        + chunk(b"tEXt", b"Software\x00something")
        + chunk(b"IDAT", zlib.compress(rows, 1)[:100])
        + chunk(b"IDAT", zlib.compress(rows, 1)[100:])
        + chunk(b"IEND", b"")
    )
    smaller = recompress_png(original)
    assert len(smaller) < len(original)
    assert pixels(smaller) == rows
    assert png_size(smaller) == (64, 48)
    assert b"tEXt" not in smaller
    with pytest.raises(ValueError):
        recompress_png(b"GIF89a")


@pytest.mark.slow
def test_command_saves_the_screens_at_the_asked_size(tmp_path: Path) -> None:
    env = {**os.environ, "SDL_VIDEODRIVER": "offscreen", "KIVY_NO_ARGS": "1"}
    command = [sys.executable, "-m", "companion", "screenshots", "--out", str(tmp_path)]
    command += ["--size", "360x640", "--screen", "board_view", "--screen", "settings"]
    done = subprocess.run(
        command,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    written = sorted(p.name for p in tmp_path.glob("*.png"))
    assert written == ["board_view-360x640.png", "settings-360x640.png"]
    for name in written:
        data = (tmp_path / name).read_bytes()
        assert png_size(data) == (360, 640)
        assert len(set(pixels(data))) > 8  # a drawn screen, not an empty buffer
    assert str(tmp_path / "board_view-360x640.png") in done.stdout
