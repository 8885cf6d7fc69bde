"""Real hardware behind small classes: LED chains, TM1637 digits, buttons, battery ADC, sleep.

Only this module (and the start-up and the links) touch ``machine``; everything else
gets these objects injected, so the logic also runs on a computer.
"""

import time

import machine
from micropython import const

_TM_DELAY_US = const(5)  # TM1637 clocks at up to 250 kHz; 5 us per edge is safe
_CUT_OFF_LOOK_MS = const(100)  # cut off on a board no pin wakes: a look at the button this often


class LedChain:
    """One WS2812 chain; ``show(rgb, first)`` sends its LEDs out of the frame when they changed.

    Writing the same picture 30 times a second costs power and, on the single-core
    ESP32-C3 with the radio on, makes the known NeoPixel timing glitches visible, so
    an unchanged frame is not sent (an animation changes every frame and still is).
    """

    def __init__(self, section):
        import neopixel

        self.count = section.count
        self.np = neopixel.NeoPixel(machine.Pin(section.pin, machine.Pin.OUT), self.count)
        order = section.get("order", "GRB")
        # Where R, G and B go within each LED's 3 bytes on the wire.
        self.r = order.index("R")
        self.g = order.index("G")
        self.b = order.index("B")
        self.written = False  # nothing sent yet: the first frame always goes out
        self.writes = 0

    def show(self, rgb, first):
        """Copy this chain's LEDs from the frame; send them if they differ. True if sent."""
        buf = self.np.buf
        r = self.r
        g = self.g
        b = self.b
        j = first * 3
        changed = not self.written
        for k in range(0, self.count * 3, 3):
            if buf[k + r] != rgb[j] or buf[k + g] != rgb[j + 1] or buf[k + b] != rgb[j + 2]:
                changed = True
                buf[k + r] = rgb[j]
                buf[k + g] = rgb[j + 1]
                buf[k + b] = rgb[j + 2]
            j += 3
        if changed:
            self.np.write()
            self.written = True
            self.writes += 1
        return changed


class TM1637:
    """Two-wire 7-segment driver (bit-banged): ``show(patterns, brightness_0_to_255)``."""

    def __init__(self, section):
        self.clk = machine.Pin(section.clk, machine.Pin.OUT, value=1)
        self.dio = machine.Pin(section.dio, machine.Pin.OUT, value=1)
        self.levels = section.get("brightness_levels", 8)
        self._last = bytearray(section.digits)
        self._last_level = -1

    def _start(self):
        self.dio(0)
        time.sleep_us(_TM_DELAY_US)
        self.clk(0)

    def _stop(self):
        self.dio(0)
        self.clk(1)
        time.sleep_us(_TM_DELAY_US)
        self.dio(1)

    def _byte(self, value):
        for _ in range(8):
            self.dio(value & 1)
            value >>= 1
            time.sleep_us(_TM_DELAY_US)
            self.clk(1)
            time.sleep_us(_TM_DELAY_US)
            self.clk(0)
        # The chip pulls DIO low for the ACK on the ninth clock; we do not need it.
        self.clk(1)
        time.sleep_us(_TM_DELAY_US)
        self.clk(0)

    def show(self, patterns, brightness):
        level = brightness * self.levels // 256
        if level == self._last_level and patterns == self._last:
            return  # nothing changed: spare the bus
        self._last[:] = patterns
        self._last_level = level
        self._start()
        self._byte(0x40)  # data command: write, auto-increment address
        self._stop()
        self._start()
        self._byte(0xC0)  # address 0
        for p in patterns:
            self._byte(p)
        self._stop()
        self._start()
        self._byte((0x88 | level) if brightness else 0x80)  # display on/off + level
        self._stop()


class ButtonPins:
    """The board's buttons as Pins; ``read(i)`` is True while button i is pressed."""

    def __init__(self, board):
        self.names = board.buttons.keys()
        self.pins = []
        self.active_low = bytearray(len(self.names))
        for i, name in enumerate(self.names):
            spec = board.buttons[name]
            pull = machine.Pin.PULL_UP if spec.pull == "up" else machine.Pin.PULL_DOWN
            self.pins.append(machine.Pin(spec.pin, machine.Pin.IN, pull))
            self.active_low[i] = 1 if spec.active == "low" else 0

    def read(self, i):
        return self.pins[i].value() != self.active_low[i]


class BatteryADC:
    """Battery voltage through the board's resistor divider, in millivolts."""

    def __init__(self, section):
        self.adc = machine.ADC(machine.Pin(section.adc_pin))
        try:
            self.adc.atten(machine.ADC.ATTN_11DB)  # ESP32: full range to about 2.5 V
        except AttributeError:
            pass  # RP2040 has one fixed range
        self.ratio_x100 = int(section.divider_ratio * 100)

    def read_mv(self):
        total = 0
        if hasattr(self.adc, "read_uv"):  # esp32: calibrated microvolts
            for _ in range(8):  # average out the ESP32 ADC's noise
                total += self.adc.read_uv()
            return total // 8 * self.ratio_x100 // 100000
        for _ in range(8):  # rp2 reads raw 16-bit counts of its 3.3 V range only
            total += self.adc.read_u16()
        return total // 8 * 3300 // 65535 * self.ratio_x100 // 100


class Watchdog:
    """The chip's hardware watchdog: once started, a missed ``feed`` resets the board.

    Only a hard reset stops it again, and a soft reset stops every ``machine.Timer``,
    so nothing here feeds it from a timer: the REPL escape resets the board into a
    start that makes no watchdog (counter/start.py).
    """

    def __init__(self, timeout_ms):
        self.wdt = machine.WDT(timeout=timeout_ms)

    def feed(self):
        self.wdt.feed()


def _show(board, rgb_of, digits):
    """One steady picture: ``rgb_of(i)`` for every 4th LED of each chain, ``digits`` shown."""
    for section, _ in board.led_chains():
        chain = LedChain(section)
        rgb = bytearray(section.count * 3)
        for i in range(section.count):
            colour = rgb_of(i)
            if colour is not None:
                for c in range(3):
                    rgb[3 * i + c] = colour[c]
        chain.show(rgb, 0)
    if board.digits:
        TM1637(board.display).show(digits, 64 if any(digits) else 0)


def show_safe_mode(board):
    """Safe mode on the lights, drawn once: every 4th LED amber, digits "SF", status LED amber.

    Nothing runs after this, so it is a steady picture a person can read at a glance.
    """
    from counter import segments

    digits = bytearray(board.digits)
    if digits:
        digits[0] = segments.LETTER_S
        if len(digits) > 1:
            digits[1] = segments.LETTER_F
    # Amber: red and some green, dim enough for any supply.
    _show(board, lambda i: (60, 25, 0) if i % 4 == 0 else None, digits)


def show_low_battery(board):
    """The cell is flat: the first LED of each chain dim red, "Lo" on the digits."""
    from counter import segments

    digits = bytearray(board.digits)
    if digits:
        digits[0] = segments.LETTER_L
        if len(digits) > 1:
            digits[1] = segments.LETTER_LOW_O
    _show(board, lambda i: (40, 0, 0) if i == 0 else None, digits)


def lights_out(board):
    """Every LED dark and the digits switched off."""
    _show(board, lambda i: None, bytearray(board.digits))


def cut_off(board, show_ms=1500):
    """Below the cell's cut-off: "Lo" for a moment, then dark and asleep until a button.

    A press resets the board and the next start measures the cell again. Each port
    wakes on a pin its own way (docs/firmware.md, "Cut-off"):

    - ESP32-S3: deep sleep, woken through ext0 (``esp32.wake_on_ext0``, GPIO0-21);
    - ESP32-C3: no ext0; ``esp32.wake_on_gpio`` wakes it from deep sleep on GPIO0-5
      (``deepsleep()`` itself refuses other pins) and from light sleep on any pin, so
      a tracker's + on GPIO6 sleeps light. ``Pin.irq(wake=...)`` is no way there: with
      an edge trigger the esp32 port ignores ``wake`` without a word;
    - rp2: no pin wakes it, but any interrupt ends a timed light sleep early, so it
      sleeps light a while at a time and looks at the pin.

    Returns only on a board that cannot sleep.
    """
    show_low_battery(board)
    time.sleep_ms(show_ms)
    lights_out(board)
    names = board.buttons.keys()
    name = "plus" if "plus" in names else ("claim" if "claim" in names else None)
    if name is None:
        machine.deepsleep()  # nothing can wake it but the power switch
    spec = board.buttons[name]
    low = spec.active == "low"
    pull = machine.Pin.PULL_UP if spec.pull == "up" else machine.Pin.PULL_DOWN
    pin = machine.Pin(spec.pin, machine.Pin.IN, pull)
    pressed = 0 if low else 1
    try:
        import esp32
    except ImportError:
        esp32 = None
    if esp32 is not None:
        level = esp32.WAKEUP_ALL_LOW if low else esp32.WAKEUP_ANY_HIGH
        if hasattr(esp32, "wake_on_ext0"):
            try:
                esp32.wake_on_ext0(pin=pin, level=level)
                machine.deepsleep()
            except ValueError:
                esp32.wake_on_ext0(pin=None, level=level)  # not an RTC pin: light sleep below
        esp32.wake_on_gpio(pins=(pin,), level=level)
        try:
            machine.deepsleep()
        except ValueError:
            pass  # this pin wakes the chip from light sleep only
        while pin.value() != pressed:
            machine.lightsleep()
        machine.reset()
    try:
        # Only to end the timed light sleep early: the handler has nothing to do.
        pin.irq(handler=_woken, trigger=machine.Pin.IRQ_FALLING if low else machine.Pin.IRQ_RISING)
    except (ValueError, TypeError):
        pass  # then the sleep lasts its whole time
    while pin.value() != pressed:
        machine.lightsleep(_CUT_OFF_LOOK_MS)
    machine.reset()


def _woken(pin):
    pass


def counter_id():
    """A stable 32-bit id from the chip's unique id."""
    uid = machine.unique_id()
    value = 0
    for i, byte in enumerate(uid):
        value ^= byte << (8 * (i % 4))
    return value & 0xFFFFFFFF
