# Runs inside MicroPython's WebAssembly VM, whose `os` has no urandom (a board's has, from
# its hardware RNG). The codec refuses to make tokens without it, so the tests give the VM
# this stand-in: xorshift32 seeded from the microsecond clock. Not for anything real.
import os
import time

_state = [time.ticks_us() | 1]


def urandom(size):
    out = bytearray(size)
    x = _state[0]
    for i in range(size):
        x ^= (x << 13) & 0xFFFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0xFFFFFFFF
        out[i] = x & 0xFF
    _state[0] = x
    return bytes(out)


if not hasattr(os, "urandom"):
    os.urandom = urandom
