"""Runs first at every start, soft resets included: Ctrl-C off at once, then finishes an install.

The app's HELLO frame starts with 0x03 and may arrive while the board starts, so the
keyboard interrupt is switched off before anything else (see main.py). A Ctrl-C that
arrived before even that line is raised at the first call below and caught there.

firmware/deploy.py copies a new firmware into STAGING and marks it complete with a
list of its files (COMPLETE) only once every file is there and checked. From then
on this file moves the new files into place, one rename each, putting each old file
it replaces aside in BACKUP first, and then puts aside what the old firmware had and
the new one does not. Only when all of that went through are the old files deleted
and COMPLETE removed. A reset in the middle leaves COMPLETE where it was, so the next
start carries on where this one stopped. A rename that fails (a full or failing
flash) moves every new file back to STAGING and every old one back into place: the
board runs the old firmware whole, and the next start tries again. So it runs either
the old firmware or, once COMPLETE is gone, the whole new one, never a mix, never
neither.
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
BACKUP = "/.old"  # the old firmware's files, until the new one is whole in place
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
    for folder in ("/counter", BACKUP, BACKUP + "/counter"):
        try:
            os.mkdir(folder)
        except OSError:
            pass  # there already
    try:
        for name in names:
            _move_in(os, name)
        for name in _stale(os, names):
            os.rename("/" + name, BACKUP + "/" + name)  # a stale .py would shadow its .mpy
    except OSError as exc:
        print("counter: the install stopped: %s" % exc)
        try:
            _move_back(os, names)
        except OSError as again:
            print("counter: could not put the old firmware back: %s" % again)
            return False
        print("counter: the old firmware runs as it was; the next start tries again")
        return False
    _remove_tree(BACKUP)  # the new firmware is whole in place: the old one can go
    os.remove(COMPLETE)  # the install is done: from here on only leftovers go
    _remove_tree(STAGING)
    print("counter: new firmware in place")
    return True


def _exists(os, path):
    try:
        os.stat(path)
        return True
    except OSError:
        return False


def _move_in(os, name):
    new = STAGING + "/" + name
    if not _exists(os, new):
        return  # moved by a start that was cut short
    if _exists(os, "/" + name) and not _exists(os, BACKUP + "/" + name):
        os.rename("/" + name, BACKUP + "/" + name)
    os.rename(new, "/" + name)


def _stale(os, names):
    out = ["counter/" + n for n in os.listdir("/counter") if "counter/" + n not in names]
    return out + [n for n in OURS if n not in names and _exists(os, "/" + n)]


def _move_back(os, names):
    """Every new file back to STAGING, every old one back in its place."""
    for name in names:
        if not _exists(os, STAGING + "/" + name) and _exists(os, "/" + name):
            os.rename("/" + name, STAGING + "/" + name)
    for folder in (BACKUP + "/counter", BACKUP):
        for entry in list(os.ilistdir(folder)):
            if not entry[1] & 0x4000:
                path = folder + "/" + entry[0]
                os.rename(path, path[len(BACKUP) :])


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
