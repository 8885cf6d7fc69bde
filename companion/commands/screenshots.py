"""`companion screenshots`: a PNG of every screen at phone and desktop sizes, from a demo game."""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path
from typing import Any

from companion.commands.app import window_size

HELP = "save a PNG of every screen at phone (360x640), desktop (1280x800) and TV (1920x1080) sizes"

PHONE = (360, 640)
DESKTOP = (1280, 800)
TV = (1920, 1080)  # the Board is taken full screen at this size, as on a TV
# Frames to draw after a change before the picture is taken (layouts settle in 2-3).
SETTLE_FRAMES = 8
# A rolled die tumbles for 0.6 s before it shows the result.
DIE_SETTLE_S = 1.0


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--out",
        type=Path,
        default=Path("screenshots"),
        help="folder for the PNG files (default: ./screenshots)",
    )
    parser.add_argument(
        "--size",
        type=window_size,
        action="append",
        metavar="WxH",
        help="a window size to capture (repeatable; default: 360x640, 1280x800, 1920x1080)",
    )
    parser.add_argument(
        "--screen",
        action="append",
        metavar="NAME",
        help="capture only this screen (repeatable; default: every screen)",
    )
    parser.add_argument(
        "--language",
        default="en",
        metavar="CODE",
        help="language of the pictures, e.g. de, pl, ru (default: en); "
        "other than English, the code is added to the file names",
    )
    parser.add_argument(
        "--theme",
        choices=("dark", "light"),
        default="dark",
        help="colour theme of the pictures (default: dark)",
    )


def run(args: argparse.Namespace) -> int:
    sizes: list[tuple[int, int]] = args.size or [PHONE, DESKTOP, TV]
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    if len(sizes) > 1:
        # One process per size: an SDL window cannot change the size of its offscreen
        # surface once created, and Kivy allows one window per process.
        return _each_size_apart(args, sizes)
    # An offscreen window unless the caller asked for a visible one (SDL reads this once).
    os.environ.setdefault("SDL_VIDEODRIVER", "offscreen")
    from companion.commands.app import prepare_kivy

    prepare_kivy(sizes[0], smooth_edges=True)
    with tempfile.TemporaryDirectory(prefix="companion-shots-") as data:
        written = take_screenshots(
            out, sizes[0], Path(data), args.screen, args.theme, args.language
        )
    for path in written:
        print(path)
    return 0


def _each_size_apart(args: argparse.Namespace, sizes: list[tuple[int, int]]) -> int:
    import subprocess
    import sys

    for width, height in sizes:
        command = [sys.executable, "-m", "companion", "screenshots", "--out", str(args.out)]
        command += ["--size", f"{width}x{height}", "--theme", args.theme]
        command += ["--language", args.language]
        for name in args.screen or ():
            command += ["--screen", name]
        done = subprocess.run(command, check=False)
        if done.returncode != 0:
            return done.returncode
    return 0


def demo_setup() -> Any:
    """Four players at a classic table."""
    from companion.core import CLASSIC, GameSetup, PlayerSetup, Sex, Variants

    players = (
        PlayerSetup(name="Anna", colour="#e5484d", sex=Sex.FEMALE),
        PlayerSetup(name="Bram", colour="#3e8ef7", sex=Sex.MALE),
        PlayerSetup(name="Cleo", colour="#3fbf6f", sex=Sex.FEMALE),
        PlayerSetup(name="Dev", colour="#f2b134", sex=Sex.NONE),
    )
    return GameSetup(players=players, edition=CLASSIC, variants=Variants(), first_player=0)


def demo_actions() -> list[Any]:
    """Three turns of play, then Anna fights two monsters with Cleo's help."""
    from companion.core import (
        AddEnhancer,
        AddHelper,
        AllySpec,
        Die,
        EndTurn,
        EnhancerSpec,
        GainTrait,
        GoUpLevel,
        LoseLevel,
        MonsterSpec,
        PlayOneShot,
        SetAlly,
        SetGearBonus,
        StartCombat,
    )

    return [
        GainTrait(player=0, kind="class", name="Wizard"),
        GainTrait(player=0, kind="race", name="Elf"),
        GainTrait(player=1, kind="class", name="Warrior"),
        GainTrait(player=2, kind="class", name="Cleric"),
        GainTrait(player=2, kind="race", name="Dwarf"),
        GainTrait(player=3, kind="class", name="Thief"),
        GoUpLevel(player=0, levels=2),
        SetGearBonus(player=0, bonus=4),
        EndTurn(),
        GoUpLevel(player=1, levels=1),
        SetGearBonus(player=1, bonus=6),
        EndTurn(),
        GoUpLevel(player=2, levels=3),
        SetGearBonus(player=2, bonus=3),
        SetAlly(player=2, ally=AllySpec(name="Loyal Squire", bonus=2)),
        EndTurn(),
        GoUpLevel(player=3, levels=2),
        LoseLevel(player=3),
        EndTurn(),
        Die(player=3, reason="Caught by the Swamp Thing"),
        GoUpLevel(player=0, levels=1),
        StartCombat(
            fighter=0,
            monsters=(
                MonsterSpec(name="Gelatinous Octahedron", level=8, treasure=2),
                MonsterSpec(name="Potted Plant", level=2, treasure=1),
            ),
        ),
        AddEnhancer(monster=0, enhancer=EnhancerSpec(name="Ancient", bonus=5, treasure=1)),
        AddHelper(helper=2),
        PlayOneShot(side="players", bonus=3, name="Potion of Idiotic Bravery"),
    ]


def take_screenshots(
    out: Path,
    size: tuple[int, int],
    data_dir: Path,
    only: list[str] | None = None,
    theme: str = "dark",
    language: str = "en",
) -> list[Path]:
    """Start the app on a demo game and save `<screen>-<W>x<H>.png` for every screen.

    Kivy must already be configured for a window of `size` (see `prepare_kivy`). The
    app's background services (the counters) run on an asyncio loop as in the real app.
    """
    import asyncio

    return asyncio.run(_take_screenshots(out, size, data_dir, only, theme, language))


async def _take_screenshots(
    out: Path,
    size: tuple[int, int],
    data_dir: Path,
    only: list[str] | None,
    theme: str,
    language: str = "en",
) -> list[Path]:
    import asyncio

    from kivy.base import EventLoop
    from kivy.core.window import Window

    from companion.core import FixedDice, Game, PlayOneShot
    from companion.store import Settings, SettingsStore
    from companion.ui.app import CompanionApp
    from companion.ui.screens.board_view import BoardViewScreen
    from companion.ui.screens.dice import DiceScreen
    from companion.ui.screens.run_away import RunAwayScreen

    SettingsStore(data_dir).save(Settings(theme=theme, language=language))
    app = CompanionApp(data_dir=data_dir)
    app._run_prepare()  # what App.run() does before its main loop
    while not app.ready:  # settings, saved games and the rules engine load after frame one
        EventLoop.idle()
    # Dice fixed so the pictures are the same on every run.
    app.session.dice = FixedDice([2, 5, 3, 6, 4, 1] * 20)

    async def pump(frames: int = SETTLE_FRAMES) -> None:
        for _frame in range(frames):
            EventLoop.idle()
            await asyncio.sleep(0.01)

    async def settle(seconds: float) -> None:
        end = asyncio.get_running_loop().time() + seconds
        while asyncio.get_running_loop().time() < end:
            await pump(1)

    def open_demo() -> None:
        game = Game(demo_setup(), rng=app.session.dice)
        for action in demo_actions():
            game.apply(action)
        app.session.adopt(game)

    async def capture(name: str, **params: Any) -> Path:
        app.root.ids.banner.hide()
        screen = app.show(name, **params)
        await pump()
        tv = isinstance(screen, BoardViewScreen) and size == TV
        if isinstance(screen, BoardViewScreen) and tv:
            screen.toggle_full_screen()
            await pump()
        if isinstance(screen, DiceScreen):
            screen.roll()  # the current player rolls; the picture shows the die landed
            await settle(DIE_SETTLE_S)
            app.root.ids.banner.hide()
        suffix = "" if language == "en" else f"-{language}"
        target = out / f"{name}-{size[0]}x{size[1]}{suffix}.png"
        shot = Path(Window.screenshot(name=str(out / ".shot.png")))
        shot.replace(target)
        if isinstance(screen, BoardViewScreen) and tv:
            screen.toggle_full_screen()
        return target

    written: list[Path] = []
    wanted = [n for n in sorted(app.navigator.entries, key=_order(app)) if not only or n in only]
    services = [asyncio.ensure_future(app.devices.run())] if app.devices is not None else []
    try:
        open_demo()
        await pump()
        if "devices" in wanted:
            await _wait_for_counters(app, pump)
        for name in wanted:
            if name in ("run_away", "game_over"):
                continue
            params = {"seat": 0} if name == "player" else {}
            written.append(await capture(name, **params))
        if "run_away" in wanted:
            # The same fight turned against the fighters; Anna rolls a 3 and is caught.
            app.session.act(PlayOneShot, side="monsters", bonus=10, name="Wandering monster")
            flee = app.show("run_away")
            assert isinstance(flee, RunAwayScreen)
            await pump()
            flee.choose(0, 0)
            flee.roll(3)
            await settle(DIE_SETTLE_S)
            written.append(await capture("run_away"))
        if "game_over" in wanted:
            app.show("table")
            _finish_demo(app)
            await pump()
            written.append(await capture("game_over"))
        app.session.close()
    finally:
        for task in services:
            task.cancel()
        await asyncio.gather(*services, return_exceptions=True)
        app.stop()
    for path in written:
        optimise_png(path)
    return written


async def _wait_for_counters(app: Any, pump: Any, timeout_s: float = 10.0) -> None:
    """Let the virtual counters connect and show the game before their picture is taken."""
    import time

    service = app.devices
    if service is None:
        return
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        await pump(2)
        statuses = service.statuses
        if statuses and all(s.access == "ours" for s in statuses) and service.frames:
            manager = service.manager
            if all(c.synced for c in manager.connections.values()):
                break
    await pump(20)  # a few more frames so the LED pictures show the synced state


def _order(app: Any) -> Any:
    def key(name: str) -> tuple[int, str]:
        entry = app.navigator.entries[name]
        return (entry.nav_order if entry.nav_order is not None else 100, name)

    return key


def _finish_demo(app: Any) -> None:
    """Cleo takes the last level: a kill at Level 9 wins the game."""
    from companion.core import EndTurn, MonsterSpec, ResolveCombat, SetLevel, StartCombat

    session = app.session
    state = session.live_state
    if state is not None and state.combat is not None:
        session.game.undo()
        session.game.undo()
        session.act(ResolveCombat, outcome="kill")
    session.act(EndTurn)
    session.act(EndTurn)
    session.act(SetLevel, player=2, level=9, override="A card says otherwise")
    session.act(StartCombat, fighter=2, monsters=(MonsterSpec(name="Plutonium Dragon", level=3),))
    session.act(ResolveCombat, outcome="kill")


def optimise_png(path: Path) -> None:
    """Re-encode a PNG losslessly and smaller: one IDAT at zlib level 9, no ancillary chunks."""
    data = path.read_bytes()
    smaller = recompress_png(data)
    if len(smaller) < len(data):
        path.write_bytes(smaller)


_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# Chunks a picture needs; text, time and gamma chunks are dropped.
_KEPT_CHUNKS = {b"IHDR", b"PLTE", b"tRNS"}


def recompress_png(data: bytes) -> bytes:
    """The same image with its pixel data recompressed at zlib's best level.

    The filtered scanlines are kept as they are (the encoder already chose a filter per
    row); only the deflate stream is redone, so the pixels cannot change.
    """
    import struct
    import zlib

    if not data.startswith(_PNG_SIGNATURE):
        raise ValueError("not a PNG file")
    at = len(_PNG_SIGNATURE)
    kept: list[tuple[bytes, bytes]] = []
    idat = bytearray()
    while at < len(data):
        (length,) = struct.unpack(">I", data[at : at + 4])
        kind = data[at + 4 : at + 8]
        body = data[at + 8 : at + 8 + length]
        at += 12 + length
        if kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
        elif kind in _KEPT_CHUNKS:
            kept.append((kind, body))
    pixels = zlib.compress(zlib.decompress(bytes(idat)), 9)

    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = zlib.crc32(kind + body) & 0xFFFFFFFF
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)

    parts = [_PNG_SIGNATURE]
    parts += [chunk(kind, body) for kind, body in kept]
    parts += [chunk(b"IDAT", pixels), chunk(b"IEND", b"")]
    return b"".join(parts)
