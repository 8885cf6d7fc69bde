"""Saved games: start a new one, resume, delete, export a game log (or a finished game
for BG Stats and spreadsheets), import one."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from kivy.clock import Clock
from kivy.properties import BooleanProperty, StringProperty
from kivy.uix.widget import Widget

from companion.ui.i18n import _, ngettext
from companion.ui.screens.base import PagedScreen

if TYPE_CHECKING:
    from companion.store import SavedGame

EXPORTS_DIR = "exports"
CONFIRM_DELETE_S = 4.0  # s: how long "Tap again to delete" waits for the second tap
# Games listed at first, and added by each tap on "Show older games".
SHOWN_STEP = 50


class GamesScreen(PagedScreen):
    """Every saved game, newest first."""

    folder_text = StringProperty("")
    empty = BooleanProperty(False)
    # Why games are not being kept in the data folder ("" when they are).
    notice = StringProperty("")
    # A damaged copy of the saved games kept aside, offered for recovery ("" when none).
    recoverable = StringProperty("")
    # The game whose Delete button was tapped once and now asks to be tapped again.
    armed = StringProperty("")
    page_size = SHOWN_STEP

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._disarm = Clock.create_trigger(self._forget_armed, CONFIRM_DELETE_S)
        self.chooser: Any = None  # the file chooser on show, if any
        self.sheet: Any = None  # the sheet asking what to export, if any
        # The finished games listed: they can also be exported for BG Stats.
        self._finished: set[str] = set()

    def new_game(self) -> None:
        """Set up a new game (the open one stays saved)."""
        self.app.show("new_game", fresh=True)

    def recover(self) -> None:
        """Bring back what can still be read of the damaged copy kept aside."""
        self.session.recover()
        self.refresh()

    def resume(self, game_id: str) -> None:
        """Open a saved game."""
        self.session.open(game_id)

    def delete(self, game_id: str) -> None:
        """Delete a saved game: the first tap asks, a second tap within seconds deletes."""
        if self.armed != game_id:
            self.armed = game_id
            self._disarm()
            self.app.notify(_("Tap Delete again to delete this game for good."))
            self.refresh()
            return
        self._forget_armed()
        self.session.delete(game_id)
        self.refresh()

    def _forget_armed(self, *_args: Any) -> None:
        self._disarm.cancel()
        if self.armed:
            self.armed = ""
            self.refresh()

    def export(self, game_id: str) -> None:
        """Export a game: a finished one is asked about first (its log, or its play for
        BG Stats and spreadsheets); the log of one going on goes into a folder picked."""
        if game_id not in self._finished:
            self.export_log(game_id)
            return
        from companion.ui.sheets import ChoiceSheet

        def answered(chosen: tuple[str, ...]) -> None:
            if chosen == ("plays",):
                self.export_plays(game_id)
            else:
                self.export_log(game_id)

        self.sheet = ChoiceSheet(
            title=_("Export this game"),
            question=_(
                "A game log opens here again; BG Stats and spreadsheets take the play, "
                "written into the exports folder."
            ),
            options=[("log", _("Game log…")), ("plays", _("For BG Stats and spreadsheets"))],
            count=1,
            answered=answered,
        )
        self.sheet.open()

    def export_plays(self, game_id: str) -> None:
        """Write a finished game for BG Stats and a spreadsheet into the data folder's
        exports folder, as Game over does (the banner says where)."""
        self.session.export_plays(game_id)

    def export_log(self, game_id: str) -> None:
        """Write a game's log into a folder the player picks."""
        from companion.ui.choosers import choose_path

        self.chooser = choose_path(
            _("Export the game into this folder"),
            _("Save here"),
            Path(self._default_folder()),
            lambda folder: self.export_to(game_id, folder),
            folders_only=True,
        )

    def export_to(self, game_id: str, folder: Path) -> None:
        """Write a game's log into `folder` (created if need be)."""
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            self.app.notify(str(exc), True)
            return
        self.session.export(game_id, folder)

    def import_file(self) -> None:
        """Pick a game-log file to add to the saved games."""
        from companion.ui.choosers import choose_path

        self.chooser = choose_path(
            _("Import a game log"), _("Import"), Path(self._default_folder()), self.import_from
        )

    def import_from(self, path: Path) -> None:
        """Add a game-log file to the saved games."""
        if self.session.import_file(path) is not None:
            self.refresh()

    def _default_folder(self) -> str:
        return str(self.session.games.root / EXPORTS_DIR)

    def rows(self) -> list[Widget]:
        """The rows on screen, top first (only those exist as widgets)."""
        shown = [
            row for row in self.ids.saved.layout_manager.children if getattr(row, "game_id", "")
        ]
        order = {item.get("game_id"): index for index, item in enumerate(self.ids.saved.data)}
        return sorted(shown, key=lambda row: order.get(row.game_id, len(order)))

    def refresh(self) -> None:
        games = self.session.games
        self.notice = games.notice or ""
        kept = ", ".join(path.name for path in games.recoverable)
        self.recoverable = (
            _("A damaged copy of your saved games is kept aside ({names}).").format(names=kept)
            if kept
            else ""
        )
        # One query over the newest games' summaries; only the rows on screen are built.
        saved = self.session.games.list(limit=self.listed + 1)
        self.empty = not saved
        current = self.session.game_id
        older = saved[self.listed :]
        del saved[self.listed :]
        self._finished = {item.id for item in saved if item.winners and item.problem is None}
        data: list[dict[str, Any]] = [
            {
                "viewclass": "SavedGameRow",
                "owner": self,
                "game_id": item.id,
                "title": item.title,
                "detail": _detail(item),
                "current": item.id == current,
                "damaged": item.problem is not None,
                "armed": item.id == self.armed,
            }
            for item in saved
        ]
        if older:
            data.append({"viewclass": "SavedGamesMore", "owner": self})
        self.ids.saved.data = data


def _detail(item: SavedGame) -> str:
    if item.problem:
        return item.problem
    detail = ngettext("{n} action · {when}", "{n} actions · {when}", item.actions).format(
        n=item.actions, when=item.updated.astimezone().strftime("%Y-%m-%d %H:%M")
    )
    if item.winners:
        detail += " · " + _("won by {names}").format(names=", ".join(item.winners))
    return detail
