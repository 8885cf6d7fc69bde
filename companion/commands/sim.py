"""`companion sim`: virtual counters running the firmware's own logic, their LEDs drawn live."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Callable
from typing import Any

HELP = "start virtual LED counters (firmware logic on a pty or virtual BLE) and draw their LEDs"

RENDER_FPS = 10  # terminal redraws a second: smooth enough to see breathing, light on the CPU


def _count(text: str) -> int:
    value = int(text)
    if not 0 <= value <= 8:
        raise argparse.ArgumentTypeError("between 0 and 8")
    return value


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--boards", type=_count, default=1, help="level boards (default 1)")
    parser.add_argument("--trackers", type=_count, default=0, help="trackers (default 0)")
    parser.add_argument(
        "--transport",
        choices=("serial", "ble"),
        default="serial",
        help="serial: each counter on a pseudo-terminal other programs can open (default); "
        "ble: on an in-process virtual radio, reachable from this process only (use --demo)",
    )
    parser.add_argument(
        "--dir",
        default=None,
        help="folder for the serial device links (default: a new temporary folder)",
    )
    parser.add_argument(
        "--demo",
        action="store_true",
        help="also run a demo game in this process that drives the counters and presses buttons",
    )
    parser.add_argument(
        "--duration",
        type=float,
        default=None,
        help="stop after this many seconds, counted once everything runs (default: Ctrl-C)",
    )
    parser.add_argument(
        "--plain", action="store_true", help="print changed frames as lines instead of redrawing"
    )
    parser.add_argument(
        "--phones",
        type=_count,
        default=0,
        help="also scripted phones pressing at random on the table link: on a table of their "
        "own in this process (its board's address is printed), or with --join on a host's",
    )
    parser.add_argument(
        "--join",
        action="append",
        default=[],
        metavar="URL",
        help="a seat's code (http://host:port/#k=...) the scripted phones press on (repeatable)",
    )
    parser.add_argument(
        "--dice",
        type=_count,
        default=0,
        help="also virtual smart dice (Pixels and GoDice, taking turns) on an in-process "
        "virtual radio, thrown now and then and read by the app's dice hub (default 0)",
    )


def run(args: argparse.Namespace) -> int:
    if sys.platform == "win32" and args.transport == "serial":
        print(
            "companion sim: virtual serial counters need pseudo-terminals (Linux, macOS); "
            "try --transport ble --demo",
            file=sys.stderr,
        )
        return 1
    if args.boards + args.trackers + args.dice + args.phones + len(args.join) == 0:
        print(
            "companion sim: nothing to start: ask for --boards, --trackers, --dice or --phones",
            file=sys.stderr,
        )
        return 1
    try:
        return asyncio.run(_main(args))
    except KeyboardInterrupt:
        return 0


async def _main(args: argparse.Namespace) -> int:
    import contextlib
    import shutil
    import signal
    from pathlib import Path

    from companion.devices.sim.fleet import VirtualFleet
    from companion.devices.status import Role
    from companion.plumbing.tasks import cancel_and_wait

    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    with contextlib.suppress(NotImplementedError, RuntimeError):  # no signals on this platform
        loop.add_signal_handler(signal.SIGINT, stop.set)
        loop.add_signal_handler(signal.SIGTERM, stop.set)
    folder: Path | None = None
    if args.transport == "serial" and args.dir:
        folder = Path(args.dir)
        folder.mkdir(parents=True, exist_ok=True)
    fleet = VirtualFleet(folder, prefix="companion-sim-")
    counters = fleet.counters
    manager = None
    demo_task = None
    demo_table = None
    dice_demo = None
    dice_radio = None
    phones = None
    try:
        roles = [Role.BOARD] * args.boards + [Role.TRACKER] * args.trackers
        for role in roles:
            await fleet.add(role, args.transport, animate=True, claim_on_hello=True)

        for counter in counters:
            if counter.transport == "serial":
                print(f"{counter.name} ({counter.role}) on serial port {counter.address}")
            else:
                print(f"{counter.name} ({counter.role}) on virtual BLE, address {counter.address}")
        if args.transport == "ble" and not args.demo:
            print("The virtual radio lives in this process: add --demo to see the counters driven.")
        if counters:
            print("A connecting app may claim them (each is long-pressed for you). Ctrl-C stops.")
        sys.stdout.flush()

        if args.demo:
            manager, demo_task, demo_table = await _start_demo(fleet)
        if args.dice:
            from companion.devices.sim.bumble_backend import VirtualRadio
            from companion.devices.sim.dice_demo import DiceDemo

            dice_radio = VirtualRadio()
            dice_demo = DiceDemo(dice_radio, args.dice)
            await dice_demo.start()
            print(f"{args.dice} virtual dice on virtual BLE, thrown now and then.")

        if args.phones or args.join:
            from companion.web.phones import PhoneTable

            phones = PhoneTable(args.phones, join=args.join)
            await phones.start()
            if phones.board_url:
                print(f"Scripted phones press on a table of their own; watch: {phones.board_url}")

        def extra() -> list[str]:
            lines = dice_demo.lines() if dice_demo is not None else []
            return lines + (phones.lines() if phones is not None else [])

        if args.duration is not None:
            # Counted from now, when everything asked for runs: on a busy machine starting
            # them may take seconds of their own.
            loop.call_later(args.duration, stop.set)

        await _render(counters, stop, plain=args.plain or not sys.stdout.isatty(), extra=extra)
    finally:
        if phones is not None:
            await phones.stop()
        if dice_demo is not None:
            await dice_demo.stop()
        if dice_radio is not None:
            await dice_radio.close()
        if demo_task is not None:
            await cancel_and_wait(demo_task)
        if manager is not None:
            await manager.stop()
        if demo_table is not None:
            demo_table.shutdown()  # its saves finished before its folder goes
        if manager is not None:
            shutil.rmtree(manager.tokens.path.parent, ignore_errors=True)
        await fleet.stop()
    print("companion sim: counters switched off")
    return 0


async def _start_demo(fleet: Any) -> tuple[Any, asyncio.Task[None], Any]:
    """A table of its own with a random game in this process, its counters connected:
    the demo plays through the table as the app does (its taps and the counters' presses
    take the same path), saved in a folder of its own."""
    import random
    import tempfile
    from pathlib import Path

    from companion.core import Game
    from companion.core.randomplay import random_action, random_setup
    from companion.devices.status import Role
    from companion.devices.sync import DeviceManager
    from companion.devices.tokens import TokenStore
    from companion.table.app import Table

    rnd = random.Random()
    # The demo is a table of its own: its games and claims stay out of the user's files.
    folder = Path(tempfile.mkdtemp(prefix="companion-sim-"))
    table = Table(folder / "games")
    tokens = TokenStore(folder / "counters.json")
    manager = DeviceManager(
        tokens=tokens, backend=fleet.backend, persist=table.recorder.wait_durable
    )
    table.followers.add(lambda game, _id: manager.set_game(game) if game is not None else None)
    table.adopt(Game(random_setup(rnd)))
    counters = list(fleet.counters)
    await fleet.join(manager)

    async def play() -> None:
        while True:
            await asyncio.sleep(1.0)
            game = table.game
            assert game is not None  # the demo always has one open
            if game.state.winners:
                table.adopt(Game(random_setup(rnd)))
                continue
            if rnd.random() < 0.3 and counters:
                counter = rnd.choice(counters)
                counter.press(
                    "next" if counter.role is Role.BOARD else rnd.choice(("plus", "minus"))
                )
                continue
            table.act(random_action(game.state, rnd, allow_win=True))  # a refusal: next one

    return manager, asyncio.get_running_loop().create_task(play()), table


async def _render(
    counters: list[Any],
    stop: asyncio.Event,
    *,
    plain: bool,
    extra: Callable[[], list[str]] | None = None,
) -> None:
    import contextlib

    shown: list[str] = []
    seen: dict[str, tuple[object, ...]] = {}
    while not stop.is_set():
        lines = [counter.ansi() for counter in counters]
        more = extra() if extra is not None else []
        if plain:
            for index, line in enumerate(more):  # other status lines (dice): printed on change
                if index >= len(shown) or shown[index] != line:
                    print(line)
            shown = more
            # Not a terminal: one line per counter whenever what it shows really changed
            # (not on every breathing step).
            for counter, line in zip(counters, lines, strict=True):
                key = (counter.frame.rev, counter.counter.claimed, counter.counter.authenticated)
                if seen.get(counter.name) != key:
                    seen[counter.name] = key
                    print(f"{line}  rev {counter.frame.rev}")
        else:
            lines += more
            if shown:
                sys.stdout.write(f"\x1b[{len(shown)}F")
            sys.stdout.write("".join(f"{line}\x1b[K\n" for line in lines))
            shown = lines
        sys.stdout.flush()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(1 / RENDER_FPS):
                await stop.wait()
