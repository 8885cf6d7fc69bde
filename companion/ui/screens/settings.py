"""Settings: theme, keeping the screen awake, language, rules defaults and the counters."""

from __future__ import annotations

from typing import Any

from kivy.properties import BooleanProperty, NumericProperty, StringProperty
from pydantic import ValidationError

from companion.core import EDITIONS
from companion.core.errors import first_validation_error
from companion.ui.awake import keep_awake
from companion.ui.i18n import LANGUAGES, _, set_language
from companion.ui.screens.base import CompanionScreen

EPIC_LEVEL = 20
NORMAL_LEVEL = 10
# The countdown before a kill is final moves in half seconds, up to ten.
COUNTDOWN_STEP_S = 0.5
COUNTDOWN_MAX_S = 10.0
# LED brightness moves in sixteenths of full scale (the firmware's 1..255).
BRIGHTNESS_STEP = 16
BRIGHTNESS_MIN = 1
BRIGHTNESS_MAX = 255


class SettingsScreen(CompanionScreen):
    """Every choice is saved at once and takes effect at once (the language on restart)."""

    theme_name = StringProperty("dark")
    keep_awake = BooleanProperty(True)
    language_name = StringProperty("")
    language_changed = BooleanProperty(False)
    edition_name = StringProperty("")
    epic = BooleanProperty(False)
    shared_victory = BooleanProperty(False)
    faster_play = BooleanProperty(False)
    countdown_text = StringProperty("")
    virtual_counters = BooleanProperty(True)
    brightness = NumericProperty(96)
    brightness_text = StringProperty("")

    def __init__(self, **kwargs: Any) -> None:
        self._started_language = ""
        super().__init__(**kwargs)
        self._started_language = self.app.settings.language

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

    def next_language(self) -> None:
        """The next language that has a catalogue."""
        codes = list(LANGUAGES)
        current = self.app.settings.language
        at = codes.index(current) if current in codes else -1
        code = codes[(at + 1) % len(codes)]
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
        self.language_changed = bool(self._started_language) and (
            settings.language != self._started_language
        )
        edition = EDITIONS.get(settings.edition)
        self.edition_name = edition.name if edition is not None else settings.edition
        self.epic = settings.winning_level == EPIC_LEVEL
        self.shared_victory = settings.shared_victory
        self.faster_play = settings.faster_play
        self.countdown_text = _("{seconds:.1f} s").format(seconds=settings.victory_countdown_s)
        self.virtual_counters = settings.virtual_counters
        self.brightness = settings.led_brightness
        self.brightness_text = _("{percent} %").format(
            percent=round(100 * settings.led_brightness / BRIGHTNESS_MAX)
        )
