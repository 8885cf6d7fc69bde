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
from typing import Any

HELP = "serve the table link with no window: phones and TVs join the game by its QR codes"

COLOURS = ("#e5484d", "#3e8ef7", "#3fbf6f", "#f2b134", "#a66cff", "#ff8a3d", "#2ec4c4", "#ff6fb5")


# A QR code in a terminal: two module rows per line ("▀": the upper module in the text's
# colour, the lower one in the background's), with both colours always set, black on
# white, whatever the terminal's own colours are (a code drawn in them reads only on a
# dark terminal). 256-colour codes 16 and 231 are black and white in every palette; the
# quiet zone is the 4 modules the standard asks for.
QR_QUIET = 4
QR_DARK, QR_LIGHT = 16, 231
QR_RESET = "\x1b[0m"


def terminal_qr(text: str) -> str:
    """The QR code of `text` for a terminal: explicit black on white, quiet zone included."""
    from companion.web.invites import qr

    matrix = [[bool(v) for v in row] for row in qr(text).matrix]
    width = len(matrix[0]) + 2 * QR_QUIET
    blank = [False] * width
    rows = [blank] * QR_QUIET
    rows += [[False] * QR_QUIET + row + [False] * QR_QUIET for row in matrix]
    rows += [blank] * (QR_QUIET + len(rows) % 2)
    lines = []
    for y in range(0, len(rows), 2):
        line, colours = [], None
        for top, bottom in zip(rows[y], rows[y + 1], strict=True):
            now = (QR_DARK if top else QR_LIGHT, QR_DARK if bottom else QR_LIGHT)
            if now != colours:  # each run of cells sets both colours again
                line.append(f"\x1b[38;5;{now[0]};48;5;{now[1]}m")
                colours = now
            line.append("\u2580")
        lines.append("".join(line) + QR_RESET)
    return "\n".join(lines)


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
    parser.add_argument(
        "--house-players",
        action="store_true",
        help="play by the house rule for more or fewer players than the box says "
        "(2, or 7 to 8; the box is for 3 to 6), as New game's switch does",
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


# What to add when the table refuses a count of players without its house rule.
HOUSE_RULE_HINT = "add --house-players to play by that house rule"


def _setup(players: str | None, house_players: bool = False) -> Any:
    """The setup of a new game for these comma-separated names (four by default), by the
    house rule for the player count when asked and when the count needs it (the table
    decides whether it does: `Table.start`).

    Raises ValueError with one line saying what is wrong: which player, which value, why."""
    from pydantic import ValidationError

    from companion.core import CLASSIC, GameSetup, PlayerSetup, Sex, Variants
    from companion.core.errors import first_validation_error
    from companion.core.models import MAX_PLAYERS, MIN_PLAYERS, box_allows

    names = [n.strip() for n in (players or "Anna,Bram,Cleo,Dev").split(",")]
    while len(names) > 1 and not names[-1]:  # "Anna,Bram," ends with a comma, not a player
        names.pop()
    if names == [""]:
        raise ValueError('no names: give the players\' names separated by commas, e.g. "Anna,Bram"')
    if len(names) == 1:
        other = next((mark for mark in _OTHER_SEPARATORS if mark in names[0]), None)
        if other is not None:
            raise ValueError(
                f"one player called {_quoted(names[0])}: separate the names with commas, "
                f'not {_OTHER_SEPARATORS[other]} (e.g. "Anna,Bram,Cleo")'
            )
    if not MIN_PLAYERS <= len(names) <= MAX_PLAYERS:
        raise ValueError(
            f"a game needs {MIN_PLAYERS} to {MAX_PLAYERS} players, not {len(names)}: "
            f'give their names separated by commas (e.g. "Anna,Bram,Cleo")'
        )
    seats = []
    for seat, name in enumerate(names):
        if not name:
            raise ValueError(f"player {seat + 1} has no name (nothing between two commas)")
        try:
            seats.append(PlayerSetup(name=name, colour=COLOURS[seat % len(COLOURS)], sex=Sex.NONE))
        except ValidationError as exc:
            raise ValueError(f"player {seat + 1}, {_quoted(name)}: {_name_problem(exc)}") from None
    try:
        house = house_players and not box_allows(CLASSIC, len(seats))
        return GameSetup(
            players=tuple(seats),
            edition=CLASSIC,
            variants=Variants(house_player_count=house),
        )
    except ValidationError as exc:
        _where, what, _count = first_validation_error(exc)
        raise ValueError(what) from None


# What people put between names instead of a comma, and how to call it.
_OTHER_SEPARATORS = {
    ";": "semicolons",
    "|": "bars",
    "/": "slashes",
    "\t": "tabs",
    " ": "spaces",
}
_SHOWN_CHARS = 24  # a name quoted in a complaint is cut after this many characters


def _quoted(name: str) -> str:
    """A name as a complaint quotes it: on one line, control characters spelt out, cut."""
    shown = "".join(c if c.isprintable() else f"\\u{ord(c):04x}" for c in name)
    return f"“{shown[:_SHOWN_CHARS]}…”" if len(shown) > _SHOWN_CHARS else f"“{shown}”"


def _name_problem(exc: Any) -> str:
    """Why pydantic refused one player's name, in the words of a person."""
    from companion.core.errors import first_validation_error

    error = exc.errors()[0]
    if error["type"] == "string_too_long":
        limit = error.get("ctx", {}).get("max_length")
        return f"a name has at most {limit} characters, this one has {len(error['input'])}"
    _where, what, _count = first_validation_error(exc)
    return what


async def _main(args: argparse.Namespace) -> int:
    import contextlib
    import signal
    from pathlib import Path

    from companion.core.errors import RuleError
    from companion.plumbing.errors import StoreError
    from companion.plumbing.places import LOCALE_DIR
    from companion.plumbing.places import data_dir as default_data_dir
    from companion.table.app import Table
    from companion.web.keys import KEYS_FILE, TableKeys
    from companion.web.server import TableLink
    from companion.web.speech import Voices

    data_dir = Path(args.data_dir) if args.data_dir else None
    loop = asyncio.get_running_loop()

    def later(delay_s: float, callback: Callable[[], None]) -> None:
        loop.call_soon_threadsafe(loop.call_later, delay_s, callback)

    # Saved after every change, as the app saves it; a phone's press is answered once its
    # change is on disk. A failed save is tried again on this loop.
    from companion.store import SettingsStore

    # The wait before a called kill is final: the app's setting, in the same data folder.
    settings = SettingsStore(data_dir).load()
    try:
        table = Table(
            data_dir, later=later, kill_seconds=lambda: float(settings.victory_countdown_s)
        )
    except StoreError as exc:
        print(f"companion serve: {exc}", file=sys.stderr)
        return 1
    table.notices.add(lambda text, _error: print(f"companion serve: {text}", file=sys.stderr))
    if not args.players:
        for problem in table.resume():
            print(f"companion serve: {problem}", file=sys.stderr)
    if table.game is None:
        try:
            table.start(_setup(args.players, args.house_players))
        except RuleError as exc:  # the table's own words, and what to add
            print(f"companion serve: --players: {exc}: {HOUSE_RULE_HINT}", file=sys.stderr)
            table.shutdown()
            return 2
        except ValueError as exc:
            print(f"companion serve: --players: {exc}", file=sys.stderr)
            table.shutdown()
            return 2

    folder = data_dir if data_dir is not None else default_data_dir()
    keys = TableKeys(folder / KEYS_FILE)
    if keys.problem:
        print(f"companion serve: {keys.problem}", file=sys.stderr)
    link = TableLink(
        keys=keys, table=table, voices=Voices(LOCALE_DIR), host=args.host, port=args.port
    )
    try:
        port = await link.start()
    except OSError as exc:
        print(f"companion serve: cannot serve on {args.host}: {exc}", file=sys.stderr)
        table.shutdown()
        return 1
    keys.set_enabled(True, port=port)
    host = Host(table, link, args)
    host.print_codes()
    print("Type help for the host's commands.")
    sys.stdout.flush()

    stop = asyncio.Event()
    host.quit = stop.set
    with contextlib.suppress(NotImplementedError, RuntimeError):  # no signals on this platform
        loop.add_signal_handler(signal.SIGINT, stop.set)
        loop.add_signal_handler(signal.SIGTERM, stop.set)
    if args.duration is not None:
        loop.call_later(args.duration, stop.set)
    reading = asyncio.ensure_future(host.read_commands())
    try:
        await stop.wait()
    finally:
        reading.cancel()
        await link.stop()
        saved_here = table.games.saves_home
        table.shutdown()
    if saved_here:
        print("companion serve: the table link is off; the game is saved")
    else:
        print(
            f"companion serve: the table link is off; the game was not saved in {table.games.home}"
            f" ({table.games.notice or 'it could not be written'})"
        )
    return 0


class Host:
    """The host at the terminal: simple commands, each said back in plain words."""

    def __init__(self, table: Any, link: Any, args: argparse.Namespace) -> None:
        self.table = table
        self.link = link
        self.args = args
        self.quit: Callable[[], None] = lambda: None

    def print_codes(self) -> None:
        """The board's code and each seat's: a QR code (unless --no-qr), the address in
        words under it."""
        from companion.web.invites import local_addresses
        from companion.web.keys import BOARD, Role

        args = self.args
        address = args.host if args.host not in ("0.0.0.0", "::", "") else local_addresses()[0]
        codes = [("Board (any browser can watch)", self.link.url(BOARD, address))]
        for seat, player in enumerate(self.table.game.state.players):
            codes.append((f"{player.name}'s phone", self.link.url(Role("seat", seat), address)))
        print(f"Table link on http://{address}:{self.link.port}/ (Ctrl-C stops it).")
        print("Phones must be on the same Wi-Fi as this computer, or on its own hotspot.")
        for title, url in codes:
            if args.no_qr:
                print(f"\n{title}: {url}")
            else:
                print(f"\n{title}:\n{terminal_qr(url)}\n{url}")
        sys.stdout.flush()

    async def read_commands(self) -> None:
        """Take the host's commands from standard input until it ends (then the table
        serves on: Ctrl-C or --duration stops it). Lines are read on a daemon thread, so
        a terminal waiting for a line never holds up the stop."""
        import threading

        loop = asyncio.get_running_loop()
        lines: asyncio.Queue[str] = asyncio.Queue()

        def read() -> None:
            for line in sys.stdin:
                loop.call_soon_threadsafe(lines.put_nowait, line)
            loop.call_soon_threadsafe(lines.put_nowait, "")

        threading.Thread(target=read, name="serve-commands", daemon=True).start()
        while line := await lines.get():
            said = self.command(line)
            if said:
                print(said)
                sys.stdout.flush()

    def command(self, line: str) -> str:
        """Carry out one command; returns what to say back."""
        from companion.core.presses import Press

        words = line.split()
        if not words:
            return ""
        verb, rest = words[0].lower(), words[1:]
        table = self.table
        if verb in ("help", "?"):
            return HOST_HELP
        if verb in ("quit", "exit", "stop"):
            self.quit()
            if table.games.saves_home:
                return "Stopping: the game is saved."
            return "Stopping: this game is not saved in the saved games (see above)."
        if verb == "status":
            return self.status()
        if verb == "undo":
            return _said(table.undo(_count(rest)))
        if verb == "redo":
            return _said(table.redo(_count(rest)))
        if verb in ("next", "end"):
            outcome = table.press(Press.NEXT_TURN, None, "command")
            return _said(outcome) or self.turn_line()
        if verb == "phase":
            outcome = table.press(Press.NEXT_PHASE, None, "command")
            return _said(outcome) or self.turn_line()
        if verb in ("up", "down"):
            seat = self.seat_named(" ".join(rest))
            if seat is None:
                return f"No player is called {' '.join(rest)!r}: try a seat number (1 on)."
            press = Press.LEVEL_UP if verb == "up" else Press.LEVEL_DOWN
            outcome = table.press(press, seat, "command")
            player = table.game.state.players[seat]
            return _said(outcome) or f"{player.name} is at Level {player.level}."
        if verb == "fight":
            return self.fight(rest)
        if verb == "kill":
            outcome = table.kill("command")
            return _said(outcome) or "The kill counts down: anyone may still interfere."
        if verb == "wait":
            return _said(table.interfere("command"))
        if verb == "export":
            return self.export(" ".join(rest))
        if verb == "back":
            seat = self.seat_named(" ".join(rest))
            if seat is None:
                return f"No player is called {' '.join(rest)!r}: try a seat number (1 on)."
            self.link.take_back(seat)
            name = table.game.state.players[seat].name
            return f"{name}'s seat has a new code; the phone that held it can no longer press."
        if verb == "new":
            from companion.core.errors import RuleError

            # The house rule for the player count holds as the server was started, or as
            # the game played so far chose it.
            house = getattr(self.args, "house_players", False)
            house = house or table.game.state.setup.variants.house_player_count
            try:
                names = " ".join(rest).replace(" ", ",") if rest else self.same_players()
                table.start(_setup(names, house))
            except RuleError as exc:
                return f"No new game: {exc}: {HOUSE_RULE_HINT}"
            except ValueError as exc:
                return f"No new game: {exc}"
            self.print_codes()
            return "A new game: every seat has a new code (above)."
        return f"Unknown command {verb!r}. {HOST_HELP}"

    def fight(self, words: list[str]) -> str:
        """`fight LEVEL [NAME]`: the player whose turn it is fights a monster of that level."""
        from companion.core import MonsterSpec, StartCombat

        if not words or not words[0].isdigit():
            return "fight LEVEL [NAME]: the level of the monster first, e.g. fight 8 Dragon"
        level = int(words[0])
        name = " ".join(words[1:]) or f"Level {level} monster"
        state = self.table.game.state
        try:
            monster = MonsterSpec(name=name, level=level)
        except ValueError as exc:
            return f"No fight: {exc}"
        outcome = self.table.act(StartCombat(fighter=state.current, monsters=(monster,)), "command")
        return _said(outcome) or self.fight_line()

    def fight_line(self) -> str:
        combat = self.table.game.state.combat
        if combat is None:
            return "No fight."
        verdict = "the players win" if combat.fighters_winning else "the monsters win"
        return f"Fight: {combat.players_strength} against {combat.monsters_strength}, {verdict}."

    def export(self, where: str) -> str:
        """`export FILE`: the game's log, for `companion replay` or another app."""
        from pathlib import Path

        from companion.plumbing.errors import StoreError

        if not where:
            return "export FILE: where to write the game's log"
        self.table.save()
        try:
            written = self.table.games.export(self.table.game_id, Path(where).expanduser())
        except (StoreError, OSError) as exc:
            return f"Not exported: {exc}"
        return f"The game's log is in {written}."

    def same_players(self) -> str:
        return ",".join(p.name for p in self.table.game.state.setup.players)

    def seat_named(self, text: str) -> int | None:
        players = self.table.game.state.players
        text = text.strip()
        if text.isdigit() and 1 <= int(text) <= len(players):
            return int(text) - 1
        folded = text.casefold()
        return next((i for i, p in enumerate(players) if p.name.casefold() == folded), None)

    def turn_line(self) -> str:
        """Whose turn it is and where it stands, in the words the app and the pages use."""
        from companion.table import words
        from companion.web.speech import ENGLISH

        state = self.table.game.state
        turn = words.turn_line(state, ENGLISH)
        return turn if state.winners else f"{turn} · {words.phase_line(state, ENGLISH)}"

    def status(self) -> str:
        state = self.table.game.state
        levels = ", ".join(f"{p.name} {p.level}" for p in state.players)
        return f"{self.turn_line()} · Levels: {levels}."


HOST_HELP = (
    "Commands: status · up NAME|SEAT · down NAME|SEAT (a Level) · next (end the turn) · "
    "phase (next phase) · fight LEVEL [NAME] · kill · wait · undo [n] · redo [n] · "
    "export FILE · "
    "back NAME|SEAT (take a seat back) · new [NAME NAME ...] · quit"
)


def _count(words: list[str]) -> int:
    return int(words[0]) if words and words[0].isdigit() else 1


def _said(outcome: Any) -> str:
    """An outcome in plain words: the refusal, or what was done ("" when there is nothing
    more to say than the new state)."""
    if outcome.refused:
        return f"Refused: {outcome.why}"
    return str(outcome.why)
