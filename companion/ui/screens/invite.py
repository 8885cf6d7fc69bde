"""Invite: QR codes that bring phones and TVs to the table, who is connected, and the switch.

One code for the board (any browser can watch) and one per seat (that phone presses
for that player); the plain address under each, for a device that cannot scan. A
seat can be taken back from a phone, and the whole link turned off.
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any, Protocol

from kivy.core.image import Image as CoreImage
from kivy.metrics import dp
from kivy.properties import BooleanProperty, NumericProperty, StringProperty

from companion.ui.i18n import _, ngettext
from companion.ui.link_service import TableLinkService, table_link
from companion.ui.screens.base import CompanionScreen
from companion.ui.weak import weakly
from companion.ui.widgets import FlatButton

if TYPE_CHECKING:
    from companion.ui.session import GameSession
    from companion.ui.theme import Theme

BOARD_CODE = -1  # `chosen` when the board's code is on show


class InviteHost(Protocol):
    """What the Invite screen needs of the app."""

    theme: Theme
    session: GameSession
    table_link: TableLinkService | None

    def notify(self, text: str, error: bool = False) -> None:
        """Show a short message across the top; errors in red."""


class InviteScreen(CompanionScreen):
    """The codes of the table, one at a time, as large as the screen allows."""

    on = BooleanProperty(False)
    chosen = NumericProperty(BOARD_CODE)
    code_title = StringProperty("")
    address_text = StringProperty("")
    connected_text = StringProperty("")
    pages_text = StringProperty("")
    several_addresses = BooleanProperty(False)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._followed: TableLinkService | None = None
        self._shown_url = ""

    @property
    def link(self) -> TableLinkService | None:
        return table_link(self.app)

    # -- what the buttons do --------------------------------------------------------------
    def toggle(self) -> None:
        """The switch: turn the table link on, or off (every page is told)."""
        link = self.link
        if link is None:
            return
        if link.running:
            link.turn_off()
        else:
            link.turn_on()

    def choose(self, seat: int) -> None:
        """Show the code of a seat (or `BOARD_CODE`)."""
        self.chosen = seat
        self.refresh()

    def take_back(self) -> None:
        """The chosen seat gets a new code: the phone that held the old one is told."""
        link = self.link
        state = self.session.live_state
        if link is None or self.chosen < 0 or state is None:
            return
        link.take_back(self.chosen)
        self.app.notify(
            _("{name}'s seat was taken back: scan the new code.").format(
                name=state.players[self.chosen].name
            )
        )
        self.refresh()

    def next_address(self) -> None:
        """Codes carry the host's other address (a host on two networks)."""
        link = self.link
        if link is not None:
            link.next_address()
            self.refresh()

    # -- drawing --------------------------------------------------------------------------
    def on_pre_enter(self, *args: Any) -> None:
        self._follow()
        super().on_pre_enter(*args)

    def _follow(self) -> None:
        link = self.link
        if link is None or link is self._followed:
            return
        self._followed = link
        link.bind(
            running=self._link_changed,
            pages=self._link_changed,
            generation=self._link_changed,
            address=self._link_changed,
        )

    def _link_changed(self, *_args: Any) -> None:
        if self.manager is not None and self.manager.current == self.name:
            self.refresh()

    def refresh(self) -> None:
        from companion.web.keys import BOARD, Role

        link = self.link
        state = self.session.live_state
        players = list(state.players) if state is not None else []
        if self.chosen >= len(players):
            self.chosen = BOARD_CODE
        self._choices(players)
        self.on = bool(link is not None and link.running)
        self.several_addresses = bool(link is not None and len(link.addresses) > 1)
        role = BOARD if self.chosen < 0 else Role("seat", self.chosen)
        url = link.url(role) if link is not None and self.on else ""
        if self.chosen < 0:
            self.code_title = _("The board: any browser can watch")
        else:
            self.code_title = _("{name}'s phone: presses for {name}").format(
                name=players[self.chosen].name
            )
        self.address_text = url
        self._draw_code(url)
        pages = link.pages if link is not None and self.on else []
        self.connected_text = self._connected_words(pages, players)
        self.pages_text = "\n".join(self._page_line(info, players) for info in pages)

    def _choices(self, players: list[Any]) -> None:
        row = self.ids.choices
        names = [_("Board"), *(player.name for player in players)]
        if [button.text for button in reversed(row.children)] != names:
            row.clear_widgets()
            for index, name in enumerate(names):
                button = FlatButton(
                    text=name, font_size=self.app.theme.body, wrap=False, size_hint_x=None
                )
                button.width = max(dp(72), button.texture_size[0] + dp(24))
                button.bind(
                    texture_size=lambda b, size: setattr(b, "width", max(dp(72), size[0] + dp(24)))
                )
                button.bind(on_release=weakly(self.choose, index - 1))
                row.add_widget(button)
        for index, button in enumerate(reversed(row.children)):
            button.selected = index - 1 == self.chosen

    def _draw_code(self, url: str) -> None:
        image = self.ids.qr
        if url == self._shown_url:
            return
        self._shown_url = url
        if not url:
            image.texture = None
            return
        from companion.web.invites import qr_png

        texture = CoreImage(io.BytesIO(qr_png(url, scale=4)), ext="png").texture
        texture.mag_filter = "nearest"  # sharp modules, however large the code is drawn
        texture.min_filter = "nearest"
        image.texture = texture

    def _connected_words(self, pages: list[Any], players: list[Any]) -> str:
        if not self.on:
            return _("The table link is off: no phone or TV can see the game.")
        if self.chosen < 0:
            boards = sum(1 for info in pages if info.role.kind == "board")
            return ngettext("{n} board page open", "{n} board pages open", boards).format(n=boards)
        phones = sum(1 for info in pages if info.role.seat == self.chosen and info.role.writes)
        return ngettext("{n} phone on this seat", "{n} phones on this seat", phones).format(
            n=phones
        )

    def _page_line(self, info: Any, players: list[Any]) -> str:
        if info.role.kind == "board":
            who = _("Board")
        elif info.role.seat is not None and info.role.seat < len(players):
            who = players[info.role.seat].name
        else:
            who = _("Seat {n}").format(n=(info.role.seat or 0) + 1)
        return f"{who} \u00b7 {info.address} \u00b7 {info.language}"
