"""Keeping the screen on while the table plays, on the desktop and on Android.

Kivy's SDL2 window turns `Window.allow_screensaver = False` into
`SDL_DisableScreenSaver()`: on the desktop that holds off the screensaver and
display sleep; on Android SDL's activity sets `FLAG_KEEP_SCREEN_ON` on its window,
which keeps the screen lit without holding a CPU wake lock.
"""

from __future__ import annotations


def keep_awake(on: bool) -> bool:
    """Keep the screen on (`on`) or let it sleep as usual; answers whether it took effect."""
    from kivy.core.window import Window

    if Window is None or not hasattr(Window, "allow_screensaver"):
        return False
    Window.allow_screensaver = not on
    return True


def is_kept_awake() -> bool:
    """Whether the app currently stops the screen from sleeping."""
    from kivy.core.window import Window

    return Window is not None and not Window.allow_screensaver
