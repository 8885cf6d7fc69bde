# Runs inside MicroPython's WebAssembly VM: the `neopixel` of a board; it counts writes.
# One entry per pin: a new driver on a pin that had one drives the same LEDs.
STRIPS = []


class NeoPixel:
    def __init__(self, pin, n):
        self.pin = pin
        self.n = n
        self.buf = bytearray(3 * n)
        self.writes = 0
        for i, strip in enumerate(STRIPS):
            if strip.pin.n == pin.n:
                STRIPS[i] = self
                return
        STRIPS.append(self)

    def write(self):
        self.writes += 1
