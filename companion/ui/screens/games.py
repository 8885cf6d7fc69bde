"""Saved games: start a new one, resume, delete, export a game log, import one."""

from __future__ import annotations

from pathlib import Path

from kivy.factory import Factory
from kivy.properties import StringProperty

from companion.ui.i18n import _
from companion.ui.screens.base import CompanionScreen

EXPORTS_DIR = "exports"


class GamesScreen(CompanionScreen):
    """Every saved game, newest first."""

    folder_text = StringProperty("")

    def new_game(self) -> None:
        """Set up a new game (the open one stays saved)."""
        self.app.show("new_game", fresh=True)

    def resume(self, game_id: str) -> None:
        """Open a saved game."""
        self.session.open(game_id)

    def delete(self, game_id: str) -> None:
        """Delete a saved game."""
        self.session.delete(game_id)
        self.refresh()

    def export(self, game_id: str) -> None:
        """Write a game's log into the folder named in the box."""
        folder = Path(self.ids.folder.text.strip() or self._default_folder()).expanduser()
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            self.app.notify(str(exc), True)
            return
        self.session.export(game_id, folder)

    def import_file(self) -> None:
        """Add the game-log file named in the box to the saved games."""
        text = self.ids.import_path.text.strip()
        if not text:
            self.app.notify(_("Type the path of a game-log file first."), True)
            return
        if self.session.import_file(Path(text).expanduser()) is not None:
            self.refresh()

    def _default_folder(self) -> str:
        return str(self.session.games.root / EXPORTS_DIR)

    def refresh(self) -> None:
        if not self.ids.folder.text:
            self.ids.folder.text = self._default_folder()
        box = self.ids.saved
        box.clear_widgets()
        saved = self.session.games.list()
        if not saved:
            box.add_widget(Factory.Caption(text=_("No saved games yet.")))
        for item in saved:
            if item.problem:
                detail = item.problem
            else:
                detail = _("{n} actions · {when}").format(
                    n=item.actions, when=item.updated.astimezone().strftime("%Y-%m-%d %H:%M")
                )
                if item.winners:
                    detail += " · " + _("won by {names}").format(names=", ".join(item.winners))
            # Properties declared in kv exist only once the rule applied: set them after.
            row = Factory.SavedGameRow()
            row.owner = self
            row.game_id = item.id
            row.title = item.title
            row.detail = detail
            row.current = item.id == self.session.game_id
            row.damaged = item.problem is not None
            box.add_widget(row)
