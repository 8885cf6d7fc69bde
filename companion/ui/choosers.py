"""Picking a file or a folder: the platform's own chooser where plyer offers one (Android,
iOS), otherwise Kivy's file chooser in a pop-up. Nobody types a path."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kivy.clock import Clock
from kivy.lang import Builder
from kivy.properties import BooleanProperty, ListProperty, ObjectProperty, StringProperty
from kivy.uix.modalview import ModalView
from kivy.utils import platform

from companion.ui.i18n import _

log = logging.getLogger(__name__)

# Platforms whose own chooser plyer drives well; on desktops Kivy's chooser is used.
NATIVE_PLATFORMS = ("android", "ios")
GAME_LOG_FILTERS = ("*.json",)

Builder.load_file(str(Path(__file__).with_suffix(".kv")))


class ChooserPopup(ModalView):
    """Kivy's file chooser with a title and one action button ("Import", "Save here")."""

    title = StringProperty("")
    action_text = StringProperty("")
    folders_only = BooleanProperty(False)
    start = StringProperty("")
    # Said under the folder line when the folder asked for could not be shown.
    note = StringProperty("")
    on_chosen = ObjectProperty(None)
    # The files shown (a folder chooser shows folders only).
    filters = ListProperty(list(GAME_LOG_FILTERS))

    def choose(self) -> None:
        """The action button: hand over the selected file (or the folder on show)."""
        chooser = self.ids.chooser
        if self.folders_only:
            picked = chooser.selection[0] if chooser.selection else chooser.path
        elif chooser.selection:
            picked = chooser.selection[0]
        else:
            return  # nothing chosen yet: the pop-up stays
        self.dismiss()
        if self.on_chosen is not None:
            self.on_chosen(Path(picked))


def choose_path(
    title: str,
    action_text: str,
    start: Path,
    on_chosen: Callable[[Path], None],
    folders_only: bool = False,
    filters: tuple[str, ...] = GAME_LOG_FILTERS,
) -> Any:
    """Ask for a game-log file (or a folder, with `folders_only`); `on_chosen` gets the path.

    `filters` are the patterns of the files shown (a game log's by default).

    Returns the pop-up shown (None when the platform's own chooser was used).
    """
    if platform in NATIVE_PLATFORMS and _native(on_chosen, folders_only, filters):
        return None
    note = ""
    try:  # the app's own folder for exports may not exist yet: it is made, not skipped
        start.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        log.info("%s cannot be made: %s", start, exc)
    if not start.is_dir():
        note = _("{folder} cannot be opened: showing the home folder.").format(folder=start)
        start = Path.home()
    popup = ChooserPopup(
        title=title,
        action_text=action_text,
        folders_only=folders_only,
        start=str(start),
        note=note,
        filters=list(filters),
    )
    popup.on_chosen = on_chosen
    popup.open()
    return popup


def _native(
    on_chosen: Callable[[Path], None], folders_only: bool, filters: tuple[str, ...]
) -> bool:
    try:
        from plyer import filechooser
    except ImportError:
        return False

    def picked(selection: list[str] | None) -> None:
        # plyer may answer on another thread; the app acts on Kivy's.
        if selection:
            Clock.schedule_once(lambda _dt: on_chosen(Path(selection[0])), 0)

    try:
        if folders_only:
            filechooser.choose_dir(on_selection=picked)
        else:
            filechooser.open_file(on_selection=picked, filters=list(filters))
    except (NotImplementedError, OSError) as exc:
        log.info("the platform's file chooser is not available: %s", exc)
        return False
    return True
