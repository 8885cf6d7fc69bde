# Runs inside MicroPython's WebAssembly VM: the board's `micropython` module (runboard.py
# puts it in sys.modules as `micropython`), the real one but for one seam: a Ctrl-C can be
# made to arrive at the very next kbd_intr() call, the first thing main.py does, which
# is when one sent while MicroPython switched Ctrl-C on for the script is raised.
import micropython as _real
from micropython import const  # noqa: F401  (what the firmware imports from here)

AT_NEXT_KBD_INTR = []  # callables to run just before the next kbd_intr()


def kbd_intr(char):
    while AT_NEXT_KBD_INTR:
        AT_NEXT_KBD_INTR.pop(0)()
    _real.kbd_intr(char)


def __getattr__(name):
    return getattr(_real, name)
