"""Settings: theme, keeping the screen awake, language, rules defaults and the counters."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kivy.properties import BooleanProperty, NumericProperty, ObjectProperty, StringProperty
from kivy.uix.modalview import ModalView
from pydantic import ValidationError

from companion.core import EDITIONS
from companion.core.errors import first_validation_error
from companion.ui.awake import keep_awake
from companion.ui.i18n import LANGUAGES, _, card_name, set_language
from companion.ui.screens.base import CompanionScreen
from companion.ui.widgets import FlatButton

EPIC_LEVEL = 20
NORMAL_LEVEL = 10
# The countdown before a kill is final moves in half seconds, up to ten.
COUNTDOWN_STEP_S = 0.5
COUNTDOWN_MAX_S = 10.0
# LED brightness moves in sixteenths of full scale (the firmware's 1..255).
BRIGHTNESS_STEP = 16
BRIGHTNESS_MIN = 1
BRIGHTNESS_MAX = 255
# Language rows that show without scrolling on the smallest phone (640 dp tall).
ROWS_IN_VIEW = 8


class LanguageRow(FlatButton):
    """One language in the picker, by its own name; a tap chooses it."""

    code = StringProperty("")
    picker = ObjectProperty(None, allownone=True)

    def on_release(self) -> None:
        if self.picker is not None:
            self.picker.pick(self.code)


class LanguagePicker(ModalView):
    """Every language the app speaks, each in its own words, the one in use marked: one tap
    picks a language (tapping beside the list keeps the one in use)."""

    chosen = StringProperty("")

    def __init__(self, chosen: str, on_pick: Callable[[str], Any], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.chosen = chosen
        self._on_pick = on_pick
        self.ids.rows.data = [
            {"text": name, "code": code, "selected": code == chosen, "picker": self}
            for code, name in LANGUAGES.items()
        ]
        codes = list(LANGUAGES)
        # The list opens at its top, unless the language in use would be below the fold.
        if chosen in codes and codes.index(chosen) >= ROWS_IN_VIEW:
            self.ids.rows.scroll_to_index(codes.index(chosen))

    def pick(self, code: str) -> None:
        """A language was tapped: close the list, then use it."""
        self.dismiss()
        if code != self.chosen:
            self._on_pick(code)


class SettingsScreen(CompanionScreen):
    """Every choice is saved at once and takes effect at once, the language included."""

    theme_name = StringProperty("dark")
    keep_awake = BooleanProperty(True)
    language_name = StringProperty("")
    # Every language the app speaks, each in its own words.
    language_list = StringProperty(" · ".join(LANGUAGES.values()))
    edition_name = StringProperty("")
    epic = BooleanProperty(False)
    shared_victory = BooleanProperty(False)
    faster_play = BooleanProperty(False)
    countdown_text = StringProperty("")
    virtual_counters = BooleanProperty(True)
    brightness = NumericProperty(96)
    brightness_text = StringProperty("")

    # -- changes ----------------------------------------------------------------------
    def toggle_theme(self) -> None:
        """Dark <-> light, applied to every screen at once."""
        name = "light" if self.app.settings.theme == "dark" else "dark"
        if self._change(theme=name):
            self.app.theme.apply(name)

    def toggle_keep_awake(self) -> None:
        """Keep the screen on during play, or let it sleep as usual."""
        on = not self.app.settings.keep_awake
        if self._change(keep_awake=on):
            keep_awake(on)

    def choose_language(self) -> LanguagePicker:
        """The list of every language the app speaks; the one tapped is used at once."""
        picker = LanguagePicker(self.app.settings.language, self.use_language)
        picker.open()
        return picker

    def use_language(self, code: str) -> None:
        """Speak `code` from now on: saved, and every screen shows it at once."""
        if self._change(language=code):
            set_language(code)

    def next_edition(self) -> None:
        """The edition a new game starts with."""
        ids = list(EDITIONS)
        current = self.app.settings.edition
        at = ids.index(current) if current in ids else -1
        self._change(edition=ids[(at + 1) % len(ids)])

    def toggle(self, field: str) -> None:
        """Flip one of the on/off rules defaults or the virtual counters."""
        if field == "epic":
            level = NORMAL_LEVEL if self.app.settings.winning_level == EPIC_LEVEL else EPIC_LEVEL
            self._change(winning_level=level)
        elif field in ("shared_victory", "faster_play", "virtual_counters"):
            self._change(**{field: not getattr(self.app.settings, field)})
        else:
            raise ValueError(f"no on/off setting called '{field}'")

    def step_countdown(self, direction: int) -> None:
        """Half a second more or less before a kill is final."""
        now = float(self.app.settings.victory_countdown_s)
        value = min(COUNTDOWN_MAX_S, max(0.0, now + direction * COUNTDOWN_STEP_S))
        self._change(victory_countdown_s=round(value, 2))

    def step_brightness(self, direction: int) -> None:
        """Counters' LEDs a step brighter or dimmer."""
        now = int(self.app.settings.led_brightness)
        value = now + direction * BRIGHTNESS_STEP
        if direction > 0 and now == BRIGHTNESS_MIN:
            value = BRIGHTNESS_STEP
        self._change(led_brightness=min(BRIGHTNESS_MAX, max(BRIGHTNESS_MIN, value)))

    def _change(self, **fields: Any) -> bool:
        settings = self.app.settings
        try:
            for name, value in fields.items():
                setattr(settings, name, value)
        except ValidationError as exc:
            self.app.notify(first_validation_error(exc)[1], error=True)
            self.refresh()
            return False
        self.app.save_settings()
        self.app.settings_changed(settings)
        self.refresh()
        return True

    # -- drawing ----------------------------------------------------------------------
    def refresh(self) -> None:
        settings = self.app.settings
        self.theme_name = settings.theme
        self.keep_awake = settings.keep_awake
        self.language_name = LANGUAGES.get(settings.language, settings.language)
        edition = EDITIONS.get(settings.edition)
        self.edition_name = card_name(edition.name) if edition is not None else settings.edition
        self.epic = settings.winning_level == EPIC_LEVEL
        self.shared_victory = settings.shared_victory
        self.faster_play = settings.faster_play
        self.countdown_text = _("{seconds:.1f} s").format(seconds=settings.victory_countdown_s)
        self.virtual_counters = settings.virtual_counters
        self.brightness = settings.led_brightness
        self.brightness_text = _("{percent} %").format(
            percent=round(100 * settings.led_brightness / BRIGHTNESS_MAX)
        )
