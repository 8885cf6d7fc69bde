"""Runs first at every start, soft resets included: Ctrl-C off at once, then finishes an install.

The app's HELLO frame starts with 0x03 and may arrive while the board starts, so the
keyboard interrupt is switched off before anything else (see main.py). A Ctrl-C that
arrived before even that line is raised at the first call below and caught there.

firmware/deploy.py copies a new firmware into STAGING and marks it complete with a
list of its files (COMPLETE) only once every file is there and checked. From then
on this file moves the new files into place, one rename each, then removes what the
old firmware had and the new one does not. A reset in the middle leaves COMPLETE
where it was, so the next start carries on where this one stopped: the board runs
either the old firmware or, once COMPLETE is gone, the whole new one.
"""

while True:
    try:
        import micropython

        micropython.kbd_intr(-1)
        break
    except KeyboardInterrupt:
        pass

try:
    import esp

    esp.osdebug(None)  # no ESP-IDF log lines in the middle of our frames
except ImportError:
    pass  # not an ESP32 (the Pico W prints nothing of its own)

STAGING = "/.new"
COMPLETE = "/.new/.complete"
# Files of ours at the top of the flash; anything else there (data/, lib/, a user's
# own files) is left alone. Everything in counter/ is ours.
OURS = ("boot.py", "main.py", "main.py.off", "board.json", "wire.py", "wire.mpy")
OURS += ("seal.py", "seal.mpy", "framing.py", "framing.mpy")


def finish_install():
    import os

    try:
        with open(COMPLETE) as f:
            names = f.read().split()
    except OSError:
        return False  # nothing staged, or not complete: the firmware in place stays
    try:
        os.mkdir("/counter")
    except OSError:
        pass  # there already
    for name in names:
        try:
            os.rename(STAGING + "/" + name, "/" + name)
        except OSError:
            pass  # moved by a start that was cut short
    for name in os.listdir("/counter"):
        if "counter/" + name not in names:
            os.remove("/counter/" + name)  # a stale .py would shadow its new .mpy
    for name in OURS:
        if name not in names:
            try:
                os.remove("/" + name)
            except OSError:
                pass
    os.remove(COMPLETE)  # the install is done: from here on only leftovers go
    _remove_tree(STAGING)
    print("counter: new firmware in place")
    return True


def _remove_tree(folder):
    import os

    try:
        entries = list(os.ilistdir(folder))
    except OSError:
        return
    for entry in entries:
        path = folder + "/" + entry[0]
        if entry[1] & 0x4000:
            _remove_tree(path)
        else:
            os.remove(path)
    os.rmdir(folder)


finish_install()
