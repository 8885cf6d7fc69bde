"""The app's side of the table link: runs `TableLink` beside the UI, on the same loop.

The link is off until the host turns it on (on the Invite screen); once on it starts
again with the app, so phones come back to their seats. It follows the table's open
game and takes phones' presses through the table (`companion.table`), and publishes what the
Invite screen shows as Kivy properties. The web layer is imported only when the link
is first turned on, so starting the app stays quick. With the link off, or no phone
joined, the app works exactly as without it.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from kivy.clock import Clock
from kivy.event import EventDispatcher
from kivy.properties import BooleanProperty, ListProperty, StringProperty

from companion.plumbing.places import LOCALE_DIR
from companion.plumbing.tasks import TaskSet
from companion.ui.i18n import _, tr

if TYPE_CHECKING:
    from companion.core import Game
    from companion.ui.session import GameSession
    from companion.web.keys import Role, TableKeys
    from companion.web.server import TableLink

log = logging.getLogger(__name__)

STOP_TIMEOUT_S = 2.0  # s: telling every page the link is off takes milliseconds


class LinkHost(Protocol):
    """What the table link needs of the app."""

    session: GameSession
    data_dir: Path | None

    def notify(self, text: str, error: bool = False) -> None:
        """Show a short message across the top; errors in red."""


class TableLinkService(EventDispatcher):
    """Owns the table link for the app's lifetime; the Invite screen reads its properties."""

    running = BooleanProperty(False)
    # The host's addresses on the local network, best first, and the one codes carry.
    addresses = ListProperty([])
    address = StringProperty("")
    # PageInfo of every open page (who is connected), oldest first.
    pages = ListProperty([])
    # Changes each time a seat's code changes (taken back, a new game), for the QR codes.
    generation = StringProperty("")

    def __init__(self, app: LinkHost, *, host: str = "0.0.0.0", port: int | None = None) -> None:
        super().__init__()
        self.app = app
        self.host = host
        self.port = port
        self.link: TableLink | None = None
        self._keys: TableKeys | None = None
        self._tasks = TaskSet("table link", on_error=self._failed)
        self._publish_trigger = Clock.create_trigger(self._publish)
        self._started = False

    # -- what the app calls ---------------------------------------------------------------
    async def run(self) -> None:
        """Serve while the app runs (when the link was on last time); stop when cancelled."""
        self._started = True
        try:
            if self.keys.enabled:
                await self._start()
            await asyncio.Event().wait()
        finally:
            self._started = False
            await self._stop()

    def game_changed(self, _game: Game | None) -> None:
        """The pages follow the table's open game by themselves; a new game gets new seat
        codes, which the Invite screen shows."""
        if self.link is not None:
            self._publish()

    # -- what the Invite screen calls -----------------------------------------------------
    @property
    def keys(self) -> TableKeys:
        """The codes of the table (in the data folder), read on first use."""
        if self._keys is None:
            from companion.web.keys import KEYS_FILE, TableKeys

            folder = self.app.data_dir
            self._keys = TableKeys(folder / KEYS_FILE) if folder is not None else TableKeys()
            if self._keys.problem:
                self.app.notify(self._keys.problem, True)
        return self._keys

    def turn_on(self) -> None:
        """Start serving (and remember that the link is on)."""
        if not self.running:
            self._spawn(self._start(), "turning the table link on")

    def turn_off(self) -> None:
        """Tell every page the link is off, stop serving, and remember it."""
        self.keys.set_enabled(False)
        self._spawn(self._stop(), "turning the table link off")

    def url(self, role: Role) -> str:
        """The address a code carries for this role ("" while the link is off)."""
        if self.link is None or not self.address:
            return ""
        return self.link.url(role, self.address)

    def next_address(self) -> None:
        """Codes carry the host's next address (a host on two networks: Wi-Fi and hotspot)."""
        if self.addresses:
            at = self.addresses.index(self.address) if self.address in self.addresses else -1
            self.address = self.addresses[(at + 1) % len(self.addresses)]

    def take_back(self, seat: int) -> None:
        """The seat gets a new code; the phone that held it is told and can no longer press."""
        if self.link is not None:
            self.link.take_back(seat)
            self._publish()

    # -- inside ---------------------------------------------------------------------------
    async def _start(self) -> None:
        if self.link is not None:
            return
        try:
            from companion.web.invites import local_addresses
            from companion.web.server import TableLink
            from companion.web.speech import Voices
        except ImportError as exc:
            # A build without the web server (aiohttp) or the QR codes (segno): the rest
            # of the app works, and the host is told why Invite cannot.
            log.warning("the table link cannot start: %s", exc)
            missing = exc.name or str(exc)
            problem = _(
                "The table link is not part of this build of the app: {module} is missing."
            ).format(module=missing)
            self.app.notify(problem, True)
            return

        link = TableLink(
            keys=self.keys,
            table=self.app.session.table,
            voices=Voices(LOCALE_DIR),
            host=self.host,
            port=self.port,
        )
        try:
            port = await link.start()
        except OSError as exc:
            problem = _("The table link could not start: {problem}").format(problem=exc)
            self.app.notify(problem, True)
            return
        self.link = link
        self.keys.set_enabled(True, port=port)
        link.changes.add(self._publish_trigger)
        self.addresses = local_addresses()
        if self.address not in self.addresses:
            self.address = self.addresses[0]
        self.running = True
        self._publish()

    async def _stop(self) -> None:
        link, self.link = self.link, None
        self.running = False
        if link is not None:
            try:
                await asyncio.wait_for(link.stop(), STOP_TIMEOUT_S)
            except (TimeoutError, OSError) as exc:
                log.warning("the table link did not stop cleanly: %s", exc)
        self._publish()

    def _publish(self, *_args: Any) -> None:
        link = self.link
        self.pages = link.pages() if link is not None else []
        keys = self._keys
        # Not the secrets themselves: only whether any of them changed.
        self.generation = f"{hash((keys.game_id, *keys.seats)):x}" if keys is not None else ""

    def _spawn(self, coro: Any, name: str) -> None:
        try:
            self._tasks.spawn(coro, name)
        except RuntimeError:  # no loop running: the app is closing
            coro.close()

    def _failed(self, _name: str, exc: BaseException) -> None:
        self.app.notify(tr(exc), True)


def table_link(app: Any) -> TableLinkService | None:
    """The app's table link service, or None in an app without one (tests, tools)."""
    service = getattr(app, "table_link", None)
    return service if isinstance(service, TableLinkService) else None
