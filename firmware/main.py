"""Starts the counter; safe mode (REPL only) after three short boots in a row.

Ctrl-C is switched off before anything else runs: the app reconnects a quarter of a
second after a reset, and the first byte of its HELLO frame is 0x03, which a live
keyboard interrupt would take for Ctrl-C and stop the start-up. The way back to the
REPL is the escape sequence of docs/firmware.md (firmware/deploy.py --repl sends it),
or safe mode: press reset three times, each within ten seconds of the last.
"""

import micropython

micropython.kbd_intr(-1)
try:
    from counter import app

    app.boot("board.json")
finally:
    micropython.kbd_intr(3)  # the REPL gets its Ctrl-C back
