# Runs inside MicroPython's WebAssembly VM: the `neopixel` of a board; it counts writes.
STRIPS = []


class NeoPixel:
    def __init__(self, pin, n):
        self.pin = pin
        self.n = n
        self.buf = bytearray(3 * n)
        self.writes = 0
        STRIPS.append(self)

    def write(self):
        self.writes += 1
