"""Devices: find, connect, claim and assign LED counters; a live picture of each one's LEDs."""

from __future__ import annotations

from typing import Any

from kivy.properties import (
    BooleanProperty,
    ColorProperty,
    NumericProperty,
    ObjectProperty,
    StringProperty,
)
from kivy.uix.boxlayout import BoxLayout

from companion.devices.link import LinkState
from companion.devices.status import Access, CounterStatus, Role
from companion.ui.device_service import DeviceService
from companion.ui.dice_service import DiceService, dice_service
from companion.ui.i18n import N_, _, ngettext, tr
from companion.ui.screens.base import CompanionScreen
from companion.ui.theme import colour

# Brightness moves in sixteenths of full scale, as on the Settings screen.
BRIGHTNESS_STEP = 16

CONNECTION: dict[LinkState, str] = {
    LinkState.OPENING: N_("connecting"),
    LinkState.OPEN: N_("connected"),
    LinkState.LOST: N_("reconnecting"),
    LinkState.CLOSED: N_("stopped"),
}
ACCESS: dict[Access, str] = {
    Access.UNKNOWN: N_("saying hello"),
    Access.OURS: N_("ours"),
    Access.UNCLAIMED: N_("not claimed: long-press it to add it"),
    Access.CLAIMING: N_("claiming"),
    Access.CLAIMED_ELSEWHERE: N_("claimed by another table"),
    # It answers with the id of a counter claimed here but could not prove it is that
    # counter there (a fake, or one passing messages on): never used; the details say why.
    Access.MISMATCH: N_("not the counter claimed here"),
    Access.VERSION: N_("needs a firmware update"),
}
ROLES: dict[Role, str] = {Role.BOARD: N_("level board"), Role.TRACKER: N_("tracker")}
TRANSPORTS: dict[str, str] = {"serial": N_("USB serial"), "ble": N_("Bluetooth LE")}


def status_line(status: CounterStatus) -> str:
    """Connection, access, battery and link quality of one counter in words."""
    parts = [_(CONNECTION[status.connection]), _(ACCESS[status.access])]
    if status.battery_percent is not None:
        battery = _("battery {percent} %").format(percent=status.battery_percent)
        if status.charging:
            battery += " " + _("(charging)")
        elif status.battery_low:
            battery += " " + _("(low: charge it)")
        parts.append(battery)
    if status.rtt_ms is not None:
        parts.append(_("{ms:.0f} ms").format(ms=status.rtt_ms))
    if status.errors:
        parts.append(ngettext("{n} error", "{n} errors", status.errors).format(n=status.errors))
    if status.disturbed:
        # Junk on its line, another program's messages, the app's own lost on the way.
        parts.append(_("disturbed: something else is on its line"))
    return " \u00b7 ".join(parts)


def safe_mode_text(status: CounterStatus) -> str:
    """What a counter in safe mode needs, in words; "" for any other counter."""
    if not status.safe_mode:
        return ""
    if not status.failed_starts:
        return _("This counter started in safe mode; install the firmware again.")
    return ngettext(
        "This counter started in safe mode after {n} failed start; install the firmware again.",
        "This counter started in safe mode after {n} failed starts; install the firmware again.",
        status.failed_starts,
    ).format(n=status.failed_starts)


class CounterRow(BoxLayout):
    """One connected counter: what it is, its state, its LEDs and what can be done with it."""

    key = StringProperty("")
    title = StringProperty("")
    detail = StringProperty("")
    problem = StringProperty("")
    players_text = StringProperty("")
    swatch = ColorProperty([0, 0, 0, 0])
    ours = BooleanProperty(False)
    # Not ours, and able to take a claim (a counter in safe mode takes none).
    claimable = BooleanProperty(True)
    tracker = BooleanProperty(False)
    # A counter on USB (not a virtual one): the firmware this app ships can go on it.
    installable = BooleanProperty(False)
    frame = ObjectProperty(None, allownone=True)
    owner = ObjectProperty(None)


class InstallRow(BoxLayout):
    """A firmware install on a counter: how far it is, then how it ended."""

    key = StringProperty("")
    title = StringProperty("")
    text = StringProperty("")
    fraction = NumericProperty(0.0)
    busy = BooleanProperty(False)
    error = BooleanProperty(False)
    owner = ObjectProperty(None)


class BareRow(BoxLayout):
    """A board with no MicroPython yet: what it is, what to do, the image to write on it."""

    index = NumericProperty(0)
    title = StringProperty("")
    text = StringProperty("")
    # Which counter it becomes, when more than one fits its chip ("" otherwise).
    becomes_text = StringProperty("")
    erase_text = StringProperty("")
    # An ESP32 in its bootloader (its flash can be erased first).
    esp = BooleanProperty(False)
    # It can take an image now (not a board that answers nothing).
    ready = BooleanProperty(False)
    owner = ObjectProperty(None)


class FoundRow(BoxLayout):
    """A counter from the last scan, not connected yet."""

    title = StringProperty("")
    detail = StringProperty("")
    index = NumericProperty(0)
    owner = ObjectProperty(None)

    def pick(self) -> None:
        """Connect it."""
        self.owner.connect(self.index)


class DieCard(BoxLayout):
    """One smart die: its name and shape, battery, last face, and who it rolls for."""

    die_id = StringProperty("")
    title = StringProperty("")
    detail = StringProperty("")
    assign_text = StringProperty("")
    shell_text = StringProperty("")  # for dice whose shell their owner sets ("" otherwise)
    connected = BooleanProperty(False)
    owner = ObjectProperty(None)


class FoundDieRow(FoundRow):
    """A die from the last dice scan, not connected yet."""

    def pick(self) -> None:
        """Connect it."""
        self.owner.connect_die(self.index)


class DevicesScreen(CompanionScreen):
    """Counters connect by themselves at start; this screen shows them and hands out players."""

    activity = StringProperty("")
    virtual_counters = BooleanProperty(True)
    brightness_text = StringProperty("")
    available = BooleanProperty(False)
    scanning = BooleanProperty(False)
    count_text = StringProperty("")
    dice_scanning = BooleanProperty(False)
    looking_bare = BooleanProperty(False)
    # A computer (not a phone): boards with no MicroPython can be written from here.
    can_make_counters = BooleanProperty(False)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.rows: dict[str, CounterRow] = {}
        self._bare: list[Any] = []
        self.chooser: Any = None
        self._found: list[Any] = []
        self._bound: DeviceService | None = None
        self._dice_bound: DiceService | None = None
        self._found_dice: list[Any] = []
        self.die_cards: dict[str, DieCard] = {}
        self.session.bind(state=self._rows_changed)  # held weakly, as a method

    @property
    def service(self) -> DeviceService | None:
        """The app's device service (None in an app started without one)."""
        service = self.app.devices
        if service is not None and service is not self._bound:
            # Methods, which Kivy holds weakly: the service outlives this screen.
            service.bind(
                statuses=self._rows_changed,
                frames=self._frames_changed,
                found=self._found_changed,
                activity=self._texts_changed,
                scanning=self._texts_changed,
                installs=self._installs_changed,
                bare=self._bare_changed,
                looking_bare=self._bare_changed,
            )
            self._bound = service
        return service

    @property
    def dice(self) -> DiceService | None:
        """The app's smart dice (None in an app started without the device service)."""
        dice = dice_service(self.app)
        if dice is not None and dice is not self._dice_bound:
            changed = self._dice_changed
            dice.bind(rows=changed, found=changed, scanning=changed)
            self._dice_bound = dice
        return dice

    # -- actions ----------------------------------------------------------------------
    def find_dice(self) -> None:
        """Look for smart dice in range (or say why they cannot be looked for)."""
        if self.dice is not None:
            self.dice.scan()
        else:
            self.app.notify(
                _("Dice cannot be looked for: Bluetooth is not available in this app."),
                error=True,
            )

    def connect_die(self, index: int) -> None:
        """Connect a die found by the dice scan."""
        if self.dice is not None and 0 <= index < len(self._found_dice):
            self.dice.connect(self._found_dice[index])

    def next_die_player(self, die_id: str) -> None:
        """Who a die rolls for, in turn: whoever is rolling, each player, nobody."""
        state = self.session.live_state
        if self.dice is not None:
            self.dice.next_assignment(die_id, len(state.players) if state is not None else 0)
            self.dice.blink(die_id)

    def next_shell(self, die_id: str) -> None:
        """The shell a GoDice wears, in turn: d6 (bare), d4, d8, d10, d00, d12, d20."""
        if self.dice is not None:
            self.dice.next_shell(die_id)

    def blink_die(self, die_id: str) -> None:
        """Light a die up to see which one it is."""
        if self.dice is not None:
            self.dice.blink(die_id)

    def scan(self) -> None:
        """Look for counters that are not connected yet."""
        if self.service is not None:
            self.service.scan()

    def connect(self, index: int) -> None:
        """Connect to a counter found by the scan."""
        if self.service is not None and 0 <= index < len(self._found):
            self.service.connect(self._found[index])

    def identify(self, key: str) -> None:
        """Blink a counter to see which one it is."""
        if self.service is not None:
            self.service.identify(key)

    def install_firmware(self, key: str) -> None:
        """Put the firmware this app ships on a counter on USB (progress in its own row)."""
        if self.service is not None:
            self.service.install_firmware(key)

    def dismiss_install(self, key: str) -> None:
        """Take away the row of an install that has ended."""
        if self.service is not None:
            self.service.dismiss_install(key)

    def look_for_bare(self) -> None:
        """Look for boards with no MicroPython yet."""
        if self.service is not None:
            self.service.look_for_bare()

    def next_becomes(self, index: int) -> None:
        """The next counter a bare board can become (those of its chip, in turn)."""
        from companion.devices.bare import fitting_pinouts

        board, service = self._bare[index], self.service
        if service is None:
            return
        fits = fitting_pinouts(board.chip)
        now = service.bare_becomes.get(board.key, fits[0])
        service.bare_becomes[board.key] = fits[(fits.index(now) + 1) % len(fits)]
        self._update_bare()

    def toggle_erase(self, index: int) -> None:
        """Erase an ESP32's whole flash before writing, or not."""
        board, service = self._bare[index], self.service
        if service is None:
            return
        service.bare_erase[board.key] = not service.bare_erase.get(board.key, False)
        self._update_bare()

    def choose_image(self, index: int) -> None:
        """Pick the MicroPython image for a bare board; it is checked, then written."""
        from pathlib import Path

        from companion.ui.choosers import choose_path

        board = self._bare[index]
        downloads = Path.home() / "Downloads"
        self.chooser = choose_path(
            _("Choose MicroPython for this board"),
            _("Write"),
            downloads if downloads.is_dir() else Path.home(),
            lambda path: self.write_image(index, path),
            filters=("*.uf2",) if board.chip == "RP2040" else ("*.bin",),
        )

    def write_image(self, index: int, path: Any) -> None:
        """Write MicroPython from `path` on a bare board, then the counter firmware."""
        from companion.devices.bare import fitting_pinouts

        service = self.service
        if service is None or not 0 <= index < len(self._bare):
            return
        board = self._bare[index]
        pinout = service.bare_becomes.get(board.key) or fitting_pinouts(board.chip)[0]
        refused = service.write_bare(board, path, pinout, service.bare_erase.get(board.key, False))
        if refused:
            self.app.notify(refused, error=True)

    def next_player(self, key: str) -> None:
        """Give a tracker to the next player (it blinks to show which one it is)."""
        service, state = self.service, self.session.live_state
        if service is None or state is None:
            self.app.notify(_("Start a game first."))
            return
        status = next((s for s in service.statuses if s.key == key), None)
        if status is None:
            return
        count = min(len(state.players), 8)
        seat = (status.players[0] + 1) % count if status.players else 0
        service.assign(key, (seat,))

    def claim(self, key: str) -> None:
        """Add a counter to this table: the app allows it, a long press on the counter does it."""
        if self.service is None:
            return
        self.service.claim(key)
        if not self.service.is_virtual(key):
            self.app.notify(_("Now long-press the button on the counter."))

    def toggle_virtual(self) -> None:
        """Virtual counters on or off (saved, like on the Settings screen)."""
        settings = self.app.settings
        settings.virtual_counters = not settings.virtual_counters
        self._settings_saved()

    def step_brightness(self, direction: int) -> None:
        """All counters' LEDs a step brighter or dimmer."""
        settings = self.app.settings
        value = settings.led_brightness + direction * BRIGHTNESS_STEP
        if direction > 0 and settings.led_brightness == 1:
            value = BRIGHTNESS_STEP
        settings.led_brightness = max(1, min(255, value))
        self._settings_saved()

    def _settings_saved(self) -> None:
        self.app.save_settings()
        self.app.settings_changed(self.app.settings)
        self._update_texts()

    # -- drawing ----------------------------------------------------------------------
    def on_pre_enter(self, *args: Any) -> None:
        service = self.service
        if service is not None:
            service.show_leds(True)  # the virtual counters' animation, pictured here
        super().on_pre_enter(*args)

    def on_leave(self, *_args: Any) -> None:
        service = self.service
        if service is not None:
            service.show_leds(False)

    def refresh(self) -> None:
        self._update_texts()
        self._update_installs()
        self._update_rows()
        self._update_found()
        self._update_bare()
        self._update_dice()

    def _update_texts(self) -> None:
        settings = self.app.settings
        service = self.service
        self.available = service is not None and service.running
        self.scanning = bool(service and service.scanning)
        self.virtual_counters = bool(settings.virtual_counters and not self.app.no_virtual)
        self.brightness_text = _("{percent} %").format(
            percent=round(100 * settings.led_brightness / 255)
        )
        if service is None or not service.running:
            self.activity = _("The counters are not running in this window.")
        else:
            self.activity = "\n".join(
                t for t in (service.activity, tr(service.tokens_problem)) if t
            )

    def _rows_changed(self, *_args: Any) -> None:
        self._update_rows()

    def _found_changed(self, *_args: Any) -> None:
        self._update_found()

    def _texts_changed(self, *_args: Any) -> None:
        self._update_texts()

    def _dice_changed(self, *_args: Any) -> None:
        self._update_dice()

    def _bare_changed(self, *_args: Any) -> None:
        self._update_bare()

    def _update_bare(self) -> None:
        from companion.devices.bare import Kind, fitting_pinouts, guide, pinouts

        service = self.service
        self.can_make_counters = service is not None and service.can_make_counters
        self.looking_bare = bool(service and service.looking_bare)
        boards = list(service.bare) if service is not None else []
        box = self.ids.bare
        if boards != self._bare or len(box.children) != len(boards):
            self._bare = boards
            box.clear_widgets()
            for index in range(len(boards)):
                box.add_widget(BareRow(index=index, owner=self))
        titles = pinouts()
        becoming = service.bare_becomes if service is not None else {}
        erasing = service.bare_erase if service is not None else {}
        for row in reversed(box.children):  # in the order added
            board = boards[row.index]
            lines = [tr(line) for line in guide(board, command_line=False)]
            row.title, row.text = lines[0], "\n".join(lines[1:])
            row.ready = board.kind is not Kind.SILENT
            row.esp = board.kind is Kind.ESP_BOOTLOADER
            fits = fitting_pinouts(board.chip) if board.chip else []
            becomes = becoming.get(board.key, fits[0] if fits else "")
            title = titles.get(becomes, {}).get("title", becomes)
            row.becomes_text = (
                _("Becomes: {counter}").format(counter=title) if len(fits) > 1 else ""
            )
            erase = erasing.get(board.key, False)
            row.erase_text = _("Erase the flash first") + ": " + (_("yes") if erase else _("no"))

    def _installs_changed(self, *_args: Any) -> None:
        self._update_installs()
        self._update_rows()

    def _update_installs(self) -> None:
        service = self.service
        views = dict(service.installs) if service is not None else {}
        box = self.ids.installs
        rows = {row.key: row for row in box.children}
        if set(rows) != set(views):
            box.clear_widgets()
            rows = {}
            for key in views:
                rows[key] = InstallRow(key=key, owner=self)
                box.add_widget(rows[key])
        for key, view in views.items():
            row = rows[key]
            row.title = _("Firmware for {name}").format(name=view.name)
            row.text, row.fraction = view.words(), view.fraction
            row.busy, row.error = view.busy, view.error

    def _update_rows(self) -> None:
        service = self.service
        box = self.ids.counters
        statuses = list(service.statuses) if service is not None else []
        keys = [s.key for s in statuses]
        if keys != list(self.rows):
            box.clear_widgets()
            self.rows = {}
            for status in statuses:
                row = CounterRow(key=status.key, owner=self)
                self.rows[status.key] = row
                box.add_widget(row)
        state = self.session.live_state
        for status in statuses:
            self._fill_row(self.rows[status.key], status, state, service)
        self.count_text = (
            ngettext("{n} counter", "{n} counters", len(statuses)).format(n=len(statuses))
            if statuses
            else _("No counters yet.")
        )

    def _fill_row(
        self, row: CounterRow, status: CounterStatus, state: Any, service: DeviceService | None
    ) -> None:
        kind = _(ROLES[status.role]) if status.role is not None else ""
        where = _(TRANSPORTS.get(status.transport, status.transport))
        if service is not None and service.is_virtual(status.key):
            where = _("virtual") + ", " + where
        row.title = f"{status.name}  \u00b7  {kind}" if kind else status.name
        row.detail = f"{where}  \u00b7  {status_line(status)}"
        row.problem = safe_mode_text(status) or (status.last_problem if not status.ours else "")
        row.ours = status.ours
        row.claimable = not status.ours and not status.safe_mode
        row.tracker = status.role is Role.TRACKER
        row.installable = service is not None and service.can_install(status.key)
        names = []
        if state is not None:
            names = [state.players[s].name for s in status.players if s < len(state.players)]
        if row.tracker and names:
            row.players_text = _("Player: {name}").format(name=names[0])
            row.swatch = colour(state.players[status.players[0]].colour)
        elif names:
            row.players_text = _("Shows: {names}").format(names=", ".join(names))
            row.swatch = [0, 0, 0, 0]
        else:
            row.players_text = _("No player yet")
            row.swatch = [0, 0, 0, 0]
        if service is not None:
            row.frame = service.frames.get(status.key)

    def _frames_changed(self, _service: Any, frames: dict[str, Any]) -> None:
        for key, frame in frames.items():
            row = self.rows.get(key)
            if row is not None:
                row.frame = frame

    def _update_dice(self) -> None:
        dice = self.dice
        rows = list(dice.rows) if dice is not None else []
        found = list(dice.found) if dice is not None else []
        self.dice_scanning = bool(dice and dice.scanning)
        ids = [row.die_id for row in rows]
        if ids != list(self.die_cards) or found != self._found_dice:
            # Rebuilt only when dice come or go: a card being tapped must stay put.
            self._found_dice = found
            box = self.ids.dice
            box.clear_widgets()
            self.die_cards = {}
            for row in rows:
                card = DieCard(die_id=row.die_id, owner=self)
                self.die_cards[row.die_id] = card
                box.add_widget(card)
            for index, die in enumerate(found):
                row = FoundDieRow(title=die.name, detail=die.maker, index=index, owner=self)
                box.add_widget(row)
        state = self.session.live_state
        for row in rows:
            card = self.die_cards[row.die_id]
            card.title = f"{row.label}  \u00b7  {row.maker}"
            card.detail = _die_line(row)
            card.assign_text = _("Rolls for: {who}").format(who=_die_player(row.seat, state))
            card.shell_text = _("{shape} shell").format(shape=row.shell) if row.shell else ""
            card.connected = row.connected

    def _update_found(self) -> None:
        service = self.service
        self._found = list(service.found) if service is not None else []
        box = self.ids.found
        box.clear_widgets()
        for index, info in enumerate(self._found):
            role = _(ROLES[info.role]) if info.role is not None else "?"
            claimed = _("claimed") if info.claimed else _("free")
            box.add_widget(
                FoundRow(
                    title=info.name,
                    detail=f"{_(TRANSPORTS.get(info.transport, info.transport))} \u00b7 "
                    f"{role} \u00b7 {info.firmware} \u00b7 {claimed}",
                    index=index,
                    owner=self,
                )
            )


def _die_line(row: Any) -> str:
    """Connection, battery and last face of one die in words."""
    parts = [_("connected") if row.connected else _("away: it reconnects when back in range")]
    if row.battery_percent is not None:
        parts.append(_("battery {percent} %").format(percent=row.battery_percent))
    if row.last_face is not None:
        parts.append(_("shows {face}").format(face=row.last_face))
    return " \u00b7 ".join(parts)


def _die_player(seat: int | None, state: Any) -> str:
    """Who a die rolls for, in words."""
    if seat is None:
        return _("nobody")
    if seat < 0:
        return _("whoever is rolling")
    if state is not None and seat < len(state.players):
        return str(state.players[seat].name)
    return _("player {n}").format(n=seat + 1)
