# Runs inside MicroPython's WebAssembly VM: the `bluetooth` module of the board, with the
# memory model of the port that /fakes/profile.json names.
#
# Where Bluetooth's memory comes from decides whether it starts (boardvm.PORTS):
# - esp32 ("split heap"): MicroPython's heap starts at heap_start bytes and, when a
#   collection does not free enough, adds an area from the system heap, at least
#   doubling its total each time. NimBLE takes ble_needs bytes of that same system
#   heap when ble.active(True) runs. A heap that grew first leaves too little, and the
#   chip panics there (MicroPython issue #14293 shows a C3 doing so with a heap of
#   about 140 KB): the board resets.
# - rp2 (one fixed heap): Bluetooth's buffers come out of MicroPython's own heap.
# The live heap is what gc.mem_alloc() grew by since this start began (runboard.py notes
# where it stood): this VM frees nothing while one call runs, so the figure counts the
# start's garbage too and errs towards failing.
import gc

import boardstate

PROFILE = boardstate.PROFILE
STATE = {
    "active": False,
    "fail": None,  # an errno to raise from active(True), as a radio that will not start
    "figures": None,  # the heap model at the moment Bluetooth started
    "irq": None,
}


def heap_after_growth(live):
    """The split heap's total once it holds ``live`` bytes (esp32), and what was left."""
    total = PROFILE["heap_start"]
    system = PROFILE["system_free"]
    while live > total:
        grow = total if total > live - total else live - total
        if grow > system:
            grow = system
        if grow <= 0:
            break
        total += grow
        system -= grow
    return total, system


class UUID:
    def __init__(self, value):
        self.value = value

    def __eq__(self, other):
        return isinstance(other, UUID) and other.value == self.value

    def __hash__(self):
        return hash(self.value)

    def __repr__(self):
        return "UUID(%r)" % (self.value,)


class BLE:
    def active(self, on=None):
        if on is None:
            return STATE["active"]
        if not on:
            STATE["active"] = False
            return False
        if STATE["active"]:
            return True
        if STATE["fail"] is not None:
            raise OSError(STATE["fail"])
        live = gc.mem_alloc() - boardstate.STATE["alloc_at_start"]
        if PROFILE["port"] == "esp32":
            total, left = heap_after_growth(live)
            ok = left >= PROFILE["ble_needs"]
        else:
            total = PROFILE["heap_start"]
            left = total - live
            ok = left >= PROFILE["ble_needs"]
        STATE["figures"] = {"live": live, "heap": total, "left": left, "ok": ok}
        if not ok:
            raise boardstate.Reset("panic in ble.active(True)", boardstate.HARD_RESET)
        STATE["active"] = True
        return True

    def config(self, name=None, **kwargs):
        if name == "mac":
            return (0, b"\xc0\x98\xe5\x49\x00\x01")
        if name == "mtu":
            return 23
        return None

    def irq(self, handler):
        STATE["irq"] = handler


def deinit():
    """A soft reset takes Bluetooth down (mp_bluetooth_deinit)."""
    STATE["active"] = False
    STATE["irq"] = None
