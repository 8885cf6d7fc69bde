"""Starts the counter, unless its claim (or +) button is held at reset: then the REPL stays."""

import time

import micropython

# A moment with Ctrl-C still working: lets mpremote and people at a REPL break in.
time.sleep_ms(1500)

from counter import app  # noqa: E402  (after the grace period on purpose)

if app.safe_mode("board.json"):
    print("counter: safe mode (button held at reset), staying at the REPL")
else:
    micropython.alloc_emergency_exception_buf(100)
    app.run("board.json")
