"""Runs first at every reset: Ctrl-C off at once, and a clean USB serial line for the protocol.

The app's HELLO frame starts with 0x03 and may arrive while the board starts, so the
keyboard interrupt is switched off before anything else (see main.py). A Ctrl-C that
arrived before even that line is raised at the first call below and caught there.
"""

import micropython

try:
    micropython.kbd_intr(-1)
except KeyboardInterrupt:
    micropython.kbd_intr(-1)

try:
    import esp

    esp.osdebug(None)  # no ESP-IDF log lines in the middle of our frames
except ImportError:
    pass  # not an ESP32 (the Pico W prints nothing of its own)
