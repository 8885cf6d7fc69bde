"""Debounced buttons: raw pin samples in, (name, hold) presses out; chords for claim.

``hold`` is SHORT (released before LONG_PRESS_MS), LONG (held past it: claim,
identify) or RESET (still held at RESET_PRESS_MS: factory reset).
"""

from micropython import const

from counter.timebase import ticks_diff

DEBOUNCE_MS = const(30)  # contact bounce of tactile switches settles well within this
LONG_PRESS_MS = const(1500)
RESET_PRESS_MS = const(10000)  # long enough that nobody does it by accident
SHORT = 0
LONG = 1
RESET = 2


class Buttons:
    """Feed ``update(i, pressed, now_ms)`` for every button every few ms; read ``events``.

    ``chords`` maps a pair of button names to the name a long press of both at
    once stands for (the tracker's + and - together mean "claim").
    """

    def __init__(self, names, chords=None):
        self.names = list(names)
        n = len(self.names)
        self._raw = bytearray(n)
        self._stable = bytearray(n)
        self._changed = [0] * n
        self._down_at = [0] * n
        self._used = bytearray(n)  # the longest hold (LONG, RESET) already reported this press
        self._chords = []
        for pair, name in (chords or {}).items():
            if pair[0] in self.names and pair[1] in self.names:
                self._chords.append((self.names.index(pair[0]), self.names.index(pair[1]), name))
        self.events = []  # (name, hold) in the order they happened

    def update(self, i, pressed, now):
        pressed = 1 if pressed else 0
        if pressed != self._raw[i]:
            self._raw[i] = pressed
            self._changed[i] = now
            return
        if pressed != self._stable[i]:
            if ticks_diff(now, self._changed[i]) < DEBOUNCE_MS:
                return
            self._stable[i] = pressed
            if pressed:
                self._down_at[i] = now
                self._used[i] = 0
            elif not self._used[i]:
                self.events.append((self.names[i], SHORT))
            return
        if not pressed or self._used[i] >= RESET:
            return
        held = ticks_diff(now, self._down_at[i])
        hold = RESET if held >= RESET_PRESS_MS else LONG if held >= LONG_PRESS_MS else SHORT
        if hold <= self._used[i]:
            return
        for a, b, name in self._chords:
            if (a == i or b == i) and self._stable[a] and self._stable[b]:
                if self._used[a] >= hold and self._used[b] >= hold:
                    return  # the other button of the chord reported it already
                self._used[a] = hold
                self._used[b] = hold
                self.events.append((name, hold))
                return
        self._used[i] = hold
        self.events.append((self.names[i], hold))

    def take(self):
        """The events so far, oldest first, and forget them."""
        if not self.events:
            return self.events
        out = self.events
        self.events = []
        return out
