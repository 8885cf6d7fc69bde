# Runs inside MicroPython's WebAssembly VM: the esp32 port's `esp32` module, its wake-up
# part, with the names of the chip /fakes/profile.json names (ports/esp32/modesp32.c):
# wake_on_gpio on the C3 and the S3; wake_on_ext0, ext1, touch and ULP on the S3 only.
# What the chip cannot wake from is refused by machine.deepsleep(), not here. The
# settings stay across a soft reset, as the port keeps them in a C global.
# runboard.py makes `import esp32` fail on an rp2 board.
import boardstate as _bs

WAKEUP_ALL_LOW = False
WAKEUP_ANY_HIGH = True


def _pin_number(pin):
    n = getattr(pin, "n", None)
    if n is None:
        raise TypeError("expecting a pin")
    return n


def wake_on_gpio(pins, level):
    """Light sleep wakes on any GPIO; deep sleep only where the chip can (deepsleep checks)."""
    _bs.GPIO_WAKE.clear()
    for pin in pins:
        _bs.GPIO_WAKE[_pin_number(pin)] = 1 if level else 0


def wake_on_ext0(pin, level):
    _bs.EXT0[:] = []
    for n in list(_bs.WAKE_DEEP):
        del _bs.WAKE_DEEP[n]
    if pin is None:
        return
    n = _pin_number(pin)
    if n not in range(22):
        raise ValueError("invalid pin")
    _bs.EXT0[:] = [n]
    _bs.WAKE_DEEP[n] = 1 if level else 0


def wake_on_ext1(pins, level):
    for pin in pins:
        if _pin_number(pin) not in range(22):
            raise ValueError("invalid pin")


def wake_on_touch(wake):
    pass


def wake_on_ulp(wake):
    pass


_HAS = _bs.PROFILE["names"]["esp32"]
for _name in list(globals()):
    if not _name.startswith("_") and _name not in _HAS:
        del globals()[_name]
