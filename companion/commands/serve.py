"""`companion serve`: the table link with no window, for a laptop host.

The game is the app's own (the last one played, from the same saved games), or a new
one; phones and TVs join by the codes printed here, and every change is saved as the
app saves it. The app and this command share the saved games and the codes, so a table
can move between them.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Callable

HELP = "serve the table link with no window: phones and TVs join the game by its QR codes"

COLOURS = ("#e5484d", "#3e8ef7", "#3fbf6f", "#f2b134", "#a66cff", "#ff8a3d", "#2ec4c4", "#ff6fb5")


def _port(text: str) -> int:
    value = int(text)
    if not 0 <= value < 65536:
        raise argparse.ArgumentTypeError("a port is 0 to 65535 (0: any free one)")
    return value


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--players",
        default=None,
        help='start a new game with these players, e.g. "Anna,Bram,Cleo" '
        "(default: the game the app played last, or a new one for four)",
    )
    parser.add_argument("--host", default="0.0.0.0", help="address to serve on (default: all)")
    parser.add_argument(
        "--port", type=_port, default=None, help="port (default: the one used last, else 8770)"
    )
    parser.add_argument(
        "--data-dir", default=None, help="the saved games' folder (default: the app's)"
    )
    parser.add_argument(
        "--no-qr", action="store_true", help="print the addresses only, not their QR codes"
    )
    parser.add_argument(
        "--duration",
        type=float,
        default=None,
        help="stop after this many seconds (default: Ctrl-C)",
    )


def run(args: argparse.Namespace) -> int:
    try:
        return asyncio.run(_main(args))
    except KeyboardInterrupt:
        return 0


async def _main(args: argparse.Namespace) -> int:
    import contextlib
    import signal
    from pathlib import Path

    from companion.core import CLASSIC, Game, GameSetup, PlayerSetup, Sex
    from companion.plumbing.places import LOCALE_DIR
    from companion.plumbing.places import data_dir as default_data_dir
    from companion.store import GameStore, StoreError
    from companion.web.invites import local_addresses, qr_text
    from companion.web.keys import BOARD, KEYS_FILE, Role, TableKeys
    from companion.web.server import TableLink
    from companion.web.speech import Voices

    data_dir = Path(args.data_dir) if args.data_dir else None
    try:
        store = GameStore(data_dir)
    except StoreError as exc:
        print(f"companion serve: {exc}", file=sys.stderr)
        return 1
    try:
        opened = None if args.players else store.load_last()
    except StoreError as exc:
        print(f"companion serve: the last game cannot be opened: {exc}", file=sys.stderr)
        opened = None
    if opened is None:
        names = [n.strip() for n in (args.players or "Anna,Bram,Cleo,Dev").split(",") if n.strip()]
        try:
            setup = GameSetup(
                players=tuple(
                    PlayerSetup(name=name, colour=COLOURS[i % len(COLOURS)], sex=Sex.NONE)
                    for i, name in enumerate(names)
                ),
                edition=CLASSIC,
            )
        except ValueError as exc:
            print(f"companion serve: --players: {exc}", file=sys.stderr)
            store.close()
            return 2
        game_id, game = store.new_id(), Game(setup)
        store.save(game_id, game)
        store.last_id = game_id
    else:
        game_id, game = opened

    folder = data_dir if data_dir is not None else default_data_dir()
    # Saved after every change, as the app saves it; a phone's press is answered once its
    # change is on disk. A failed save is tried again on this loop.
    loop = asyncio.get_running_loop()

    def later(delay_s: float, callback: Callable[[], None]) -> None:
        loop.call_soon_threadsafe(loop.call_later, delay_s, callback)

    recorder = store.recorder(later=later)
    recorder.follow(game_id, game)
    keys = TableKeys(folder / KEYS_FILE)
    if keys.problem:
        print(f"companion serve: {keys.problem}", file=sys.stderr)
    link = TableLink(
        keys=keys,
        voices=Voices(LOCALE_DIR),
        persist=recorder.wait_durable,
        host=args.host,
        port=args.port,
    )
    try:
        port = await link.start()
    except OSError as exc:
        print(f"companion serve: cannot serve on {args.host}: {exc}", file=sys.stderr)
        store.close()
        return 1
    keys.set_enabled(True, port=port)

    link.set_game(game, game_id)

    address = args.host if args.host not in ("0.0.0.0", "::", "") else local_addresses()[0]
    codes = [("Board (any browser can watch)", link.url(BOARD, address))]
    for seat, player in enumerate(game.state.players):
        codes.append((f"{player.name}'s phone", link.url(Role("seat", seat), address)))
    print(f"Table link on http://{address}:{port}/ (Ctrl-C stops it).")
    print("Phones must be on the same Wi-Fi as this computer, or on its own hotspot.")
    for title, url in codes:
        print(f"\n{title}: {url}")
        if not args.no_qr:
            print(qr_text(url))
    sys.stdout.flush()

    stop = asyncio.Event()
    with contextlib.suppress(NotImplementedError, RuntimeError):  # no signals on this platform
        loop.add_signal_handler(signal.SIGINT, stop.set)
        loop.add_signal_handler(signal.SIGTERM, stop.set)
    if args.duration is not None:
        loop.call_later(args.duration, stop.set)
    try:
        await stop.wait()
    finally:
        await link.stop()
        try:
            store.save(game_id, game)
        except StoreError as exc:
            print(f"companion serve: the game could not be saved: {exc}", file=sys.stderr)
        store.close()
    print("companion serve: the table link is off; the game is saved")
    return 0
