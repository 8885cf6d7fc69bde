"""Runs first at every reset: keeps the USB serial line clean for the protocol."""

try:
    import esp

    esp.osdebug(None)  # no ESP-IDF log lines in the middle of our frames
except ImportError:
    pass  # not an ESP32 (the Pico W prints nothing of its own)
