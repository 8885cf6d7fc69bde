"""`companion serve`'s QR codes in a terminal read on a light terminal as on a dark one.

What `serve` prints is drawn as a terminal would draw it, once with a dark default
background and once with a light one, and decoded with zbar (`zbarimg`, Debian's
`zbar-tools`): every code must come back as its address.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from companion.commands.serve import Host, terminal_qr

SGR = re.compile(r"\x1b\[([0-9;]*)m")
DARK_TERMINAL = ((204, 204, 204), (30, 30, 30))  # (text, background)
LIGHT_TERMINAL = ((30, 30, 30), (255, 255, 255))
CELL_W, CELL_H = 6, 12  # pixels per character cell
PLAYERS = ("Anna", "Bram", "Cleo", "Dev", "Eskild", "Fenna", "Gunnar", "Henrietta")


def colour_256(n: int) -> tuple[int, int, int]:
    """xterm's 256-colour palette (the 16 first are the terminal's own: a typical set)."""
    basic = [
        (0, 0, 0), (205, 0, 0), (0, 205, 0), (205, 205, 0), (0, 0, 238), (205, 0, 205),
        (0, 205, 205), (229, 229, 229), (127, 127, 127), (255, 0, 0), (0, 255, 0),
        (255, 255, 0), (92, 92, 255), (255, 0, 255), (0, 255, 255), (255, 255, 255),
    ]  # fmt: skip
    if n < 16:
        return basic[n]
    if n < 232:
        n -= 16
        steps = [0, 95, 135, 175, 215, 255]
        return (steps[n // 36], steps[(n // 6) % 6], steps[n % 6])
    grey = 8 + (n - 232) * 10
    return (grey, grey, grey)


def render(text: str, terminal: tuple[tuple[int, int, int], tuple[int, int, int]]) -> bytes:
    """`text` with its ANSI colours as a terminal draws it: a greyscale PGM image."""
    default_fg, default_bg = terminal
    rows: list[list[tuple[str, Any, Any]]] = []
    fg, bg = default_fg, default_bg
    for line in text.split("\n"):
        cells: list[tuple[str, Any, Any]] = []
        at = 0
        for match in [*SGR.finditer(line), None]:
            end = match.start() if match else len(line)
            cells += [(ch, fg, bg) for ch in line[at:end]]
            if match is None:
                break
            at = match.end()
            codes = [int(c) for c in match.group(1).split(";") if c] or [0]
            i = 0
            while i < len(codes):
                code = codes[i]
                if code == 0:
                    fg, bg = default_fg, default_bg
                elif code in (38, 48) and codes[i + 1] == 5:
                    if code == 38:
                        fg = colour_256(codes[i + 2])
                    else:
                        bg = colour_256(codes[i + 2])
                    i += 2
                elif 30 <= code <= 37:
                    fg = colour_256(code - 30)
                elif 40 <= code <= 47:
                    bg = colour_256(code - 40)
                elif code == 39:
                    fg = default_fg
                elif code == 49:
                    bg = default_bg
                i += 1
        rows.append(cells)
    width = max(len(r) for r in rows) + 2
    pixels = bytearray()

    def grey(rgb: tuple[int, int, int]) -> int:
        return round(0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2])

    for cells in rows:
        cells = cells + [(" ", default_fg, default_bg)] * (width - len(cells))
        for y in range(CELL_H):
            for ch, cfg, cbg in cells:
                if ch == "\u2580":
                    upper = y < CELL_H // 2
                    shade = grey(cfg if upper else cbg)
                elif ch == "\u2584":
                    shade = grey(cbg if y < CELL_H // 2 else cfg)
                elif ch == "\u2588":
                    shade = grey(cfg)
                elif ch == " ":
                    shade = grey(cbg)
                else:  # a letter: its stroke in the middle of the cell
                    stroke = 2 <= y < CELL_H - 2
                    shade = grey(cfg if stroke else cbg)
                pixels += bytes([shade]) * CELL_W
    header = f"P5 {width * CELL_W} {len(rows) * CELL_H} 255\n".encode()
    return header + bytes(pixels)


def zbar_missing() -> str | None:
    if shutil.which("zbarimg") is None:
        return "zbarimg is not installed (sudo apt install zbar-tools)"
    return None


def decode(image: bytes, folder: Path, name: str) -> list[str]:
    reason = zbar_missing()
    if reason is not None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"the QR codes must be read in CI: {reason}")
        pytest.skip(reason)
    path = folder / f"{name}.pgm"
    path.write_bytes(image)
    done = subprocess.run(
        ["zbarimg", "--quiet", "--raw", "-Sdisable", "-Sqrcode.enable", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    return [line for line in done.stdout.splitlines() if line]


class FakeLink:
    port = 8770

    def url(self, role: Any, address: str) -> str:
        which = "board" if role.kind == "board" else f"seat{role.seat}"
        return f"http://{address}:{self.port}/#k={which.ljust(32, 'x')}"


def serve_output(capsys: pytest.CaptureFixture[str]) -> tuple[str, list[str]]:
    """What `companion serve` prints for a table of eight, and the addresses in it."""
    players = [SimpleNamespace(name=name) for name in PLAYERS]
    table = SimpleNamespace(game=SimpleNamespace(state=SimpleNamespace(players=players)))
    args = argparse.Namespace(host="192.168.1.23", no_qr=False)
    Host(table, FakeLink(), args).print_codes()
    out = capsys.readouterr().out
    addresses = re.findall(r"^(http://\S+)$", SGR.sub("", out), flags=re.MULTILINE)
    return out, addresses


@pytest.mark.parametrize("terminal", [DARK_TERMINAL, LIGHT_TERMINAL], ids=["dark", "light"])
def test_every_code_reads_on_a_dark_and_a_light_terminal(
    terminal: Any, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out, addresses = serve_output(capsys)
    assert len(addresses) == 9  # the board and eight seats, each said in words too
    # Each code is read on its own, as a phone held up to it does.
    found = []
    for index, block in enumerate(out.split("\n\n")[1:]):
        found += decode(render(block, terminal), tmp_path, f"code{index}")
    assert sorted(found) == sorted(addresses)


def test_a_code_sets_both_colours_and_has_its_quiet_zone() -> None:
    code = terminal_qr("http://192.168.1.23:8770/#k=" + "A" * 32)
    lines = code.split("\n")
    for line in lines:
        # Every cell is drawn after both colours were set; the line ends in a reset.
        assert line.startswith("\x1b[38;5;")
        assert line.endswith("\x1b[0m")
        for match in SGR.finditer(line):
            codes = match.group(1)
            assert codes == "0" or re.fullmatch(r"38;5;(16|231);48;5;(16|231)", codes)
    # The quiet zone: 4 light modules all round (2 lines above and below, 4 cells aside).
    light_pair = "\x1b[38;5;231;48;5;231m"
    for line in lines[:2] + lines[-2:]:
        assert set(SGR.sub("", line)) == {"\u2580"} and line.count("\x1b[38") == 1
        assert line.startswith(light_pair)
    for line in lines:
        assert line.startswith(light_pair + "\u2580" * 4)
        last = line[line.rindex("\x1b[38") :]
        assert last.startswith(light_pair) and len(SGR.sub("", last)) >= 4
