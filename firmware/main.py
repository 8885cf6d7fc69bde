"""Starts the counter (counter/start.py decides how: normal, safe mode, maintenance, cut-off).

Ctrl-C is switched off before anything else runs: the app reconnects a quarter of a
second after a reset, and the first byte of its HELLO frame is 0x03, which a live
keyboard interrupt would take for Ctrl-C and stop the start-up. MicroPython switches
Ctrl-C on again for each script it starts, so one that arrives at the very moment
this file begins is caught here, as boot.py catches its own. The way back to the
REPL is the escape sequence of docs/firmware.md (firmware/deploy.py --repl sends it),
or safe mode: press reset three times, each within three seconds of the start before.
"""

while True:
    try:
        import micropython

        micropython.kbd_intr(-1)
        break
    except KeyboardInterrupt:
        pass

try:
    from counter import start

    start.boot("board.json")
finally:
    micropython.kbd_intr(3)  # the REPL gets its Ctrl-C back
