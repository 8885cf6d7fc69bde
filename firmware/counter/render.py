"""Turns the counter's state into an LED frame and digits, in buffers allocated once.

Nothing here allocates while rendering (integer maths, no tuples or floats), so
the LED task runs forever without waking the garbage collector.
"""

from micropython import const

from counter import limiter, segments

_SPIN_MS = const(1200)  # the die "rolls" this long before it shows its value
_BLINK_MS = const(250)
_BREATH_MS = const(1536)  # one slow breath of the player whose turn it is
_CHASE_MS = const(60)


class Renderer:
    """Owns the frame buffers for one board; ``render(state, now_ms)`` refills them."""

    def __init__(self, board):
        self.board = board
        self.count = board.led_count
        self.rgb = bytearray(self.count * 3)  # R, G, B per LED, in frame order
        self.digits = bytearray(board.digits)  # 7-segment patterns, left to right
        self.spaces = board.spaces
        self.positions = board.positions
        self.bar = 0  # LEDs of a tracker's bar
        self.status = -1  # index of the status LED, -1 if none
        if board.display is not None and board.display.kind == "ledbar":
            self.bar = board.display.count
        if board.status_led is not None:
            self.status = self.count - board.status_led.count
        chains = board.led_chains()
        self.ma_per_channel = chains[0][0].ma_per_channel if chains else 20
        self.idle_ua = int(chains[0][0].idle_ma_per_led * 1000) if chains else 0
        self.current_ma = 0

    # -- pixels -----------------------------------------------------------------

    def _set(self, i, r, g, b):
        j = i * 3
        self.rgb[j] = r
        self.rgb[j + 1] = g
        self.rgb[j + 2] = b

    def _slot(self, i, state, slot, level):
        """LED i in slot's colour scaled by level/255."""
        c = slot * 3
        col = state.colours
        self._set(i, col[c] * level >> 8, col[c + 1] * level >> 8, col[c + 2] * level >> 8)

    def _clear(self):
        rgb = self.rgb
        for i in range(self.count * 3):
            rgb[i] = 0

    # -- the whole frame --------------------------------------------------------

    def render(self, state, now):
        self._clear()
        if self.board.role == "board":
            self._board(state, now)
        else:
            self._tracker(state, now)
        limiter.scale(self.rgb, self.count, state.brightness)
        self.current_ma = limiter.limit(
            self.rgb, self.count, state.budget_ma, self.ma_per_channel, self.idle_ua
        )
        return self.rgb

    def _player_level(self, state, slot, now):
        """How bright slot's light is now: dead dim, turn breathing, fighter blinking."""
        flags = state.flags[slot]
        if flags & 8:  # dead
            return 40
        if state.effect == 1 and flags & 6 and (now // _BLINK_MS) & 1:
            return 96  # fighting or helping: pulse with the combat
        if flags & 1:
            phase = now % _BREATH_MS
            if phase >= _BREATH_MS // 2:
                phase = _BREATH_MS - phase
            return 96 + phase * 160 // (_BREATH_MS // 2)
        return 256

    def _board(self, state, now):
        spaces = self.spaces
        per = self.positions
        effect = state.effect
        if state.identifying(now):
            on = (now // _BLINK_MS) & 1
            if on:
                white = 0 if state.claim_open(now) else 160
                for i in range(self.count):
                    self._set(i, white, white, 160)
            return
        if effect == 3:  # win: chase in the winner's colour
            step = now // _CHASE_MS
            slot = state.effect_slot
            for i in range(self.count):
                if (i + step) % 6 < 3:
                    if slot < 8:
                        self._slot(i, state, slot, 256)
                    else:
                        self._set(i, 255, 255, 255)
            return
        if effect == 2:  # roll: a running light, then the value as lit spaces
            elapsed = state.effect_elapsed(now)
            slot = state.effect_slot
            if elapsed < _SPIN_MS:
                i = (elapsed // 40) % self.count
                self._set(i, 255, 255, 255)
                return
            value = state.effect_value
            if value > spaces:
                value = spaces
            for i in range(value * per):
                if slot < 8:
                    self._slot(i, state, slot, 256)
                else:
                    self._set(i, 255, 255, 255)
            return
        for p in range(per):
            slot = state.slot_map[p] if p < state.slot_count else 255
            if slot >= 8:
                continue
            level = state.levels[slot]
            if level == 0:
                continue
            lap = 0
            while level > spaces:
                level -= spaces
                lap += 1
            if lap and (now // (_BLINK_MS * 2)) & 1:
                continue  # above the track (Epic on a short board): blink
            self._slot((level - 1) * per + p, state, slot, self._player_level(state, slot, now))
        if effect == 1 and state.effect_slot < 8:  # combat: the fighter's space shows who wins
            level = state.levels[state.effect_slot]
            while level > spaces:
                level -= spaces
            if level > 0:
                base = (level - 1) * per
                for p in range(per):
                    j = (base + p) * 3
                    if self.rgb[j] | self.rgb[j + 1] | self.rgb[j + 2]:
                        continue
                    if state.effect_value:
                        self._set(base + p, 0, 90, 0)
                    else:
                        self._set(base + p, 90, 0, 0)

    def _tracker(self, state, now):
        slot = state.slot_map[0] if state.slot_count else 0
        if slot >= 8:
            slot = 0
        level = state.levels[slot]
        flags = state.flags[slot]
        effect = state.effect
        ident = state.identifying(now)
        blink = (now // _BLINK_MS) & 1
        # Digits or bar: the level, or the effect that is showing.
        if self.digits:
            d = self.digits
            if ident:
                if state.claim_open(now):
                    d[0] = segments.LETTER_C
                    d[1] = segments.LETTER_L
                else:
                    d[0] = segments.LETTER_I
                    d[1] = segments.LETTER_D
                if blink:
                    d[0] = 0
                    d[1] = 0
            elif effect == 2 and state.effect_elapsed(now) < _SPIN_MS:
                d[0] = segments.LETTER_D
                d[1] = segments.SPIN[(state.effect_elapsed(now) // 80) % 6]
            elif effect == 2:
                d[0] = segments.LETTER_D
                d[1] = segments.DIGITS[state.effect_value % 10]
            elif level == 0:
                d[0] = segments.DASH
                d[1] = segments.DASH
            else:
                segments.number(d, level)
                if (flags & 8 or (effect == 3 and state.effect_slot == slot)) and blink:
                    d[0] = 0
                    d[1] = 0
            if state.low_battery and (now // 1000) % 4 == 0:
                d[len(d) - 1] |= segments.DOT
        if self.bar:
            self._bar(state, slot, level, now, ident, blink)
        if self.status >= 0:
            self._status(state, slot, flags, now, ident, blink)

    def _bar(self, state, slot, level, now, ident, blink):
        n = self.bar
        effect = state.effect
        if ident:
            if blink:
                white = 0 if state.claim_open(now) else 160
                for i in range(n):
                    self._set(i, white, white, 160)
            return
        if effect == 2:
            elapsed = state.effect_elapsed(now)
            if elapsed < _SPIN_MS:
                self._set((elapsed // 60) % n, 255, 255, 255)
                return
            value = state.effect_value
            for i in range(value if value < n else n):
                self._set(i, 255, 255, 255)
            return
        if effect == 3 and state.effect_slot == slot:
            step = now // _CHASE_MS
            for i in range(n):
                if (i + step) % 4 < 2:
                    self._slot(i, state, slot, 256)
            return
        lap = 0
        while level > n:
            level -= n
            lap += 1
        bright = self._player_level(state, slot, now)
        for i in range(level):
            self._slot(i, state, slot, bright)
        if lap:  # Epic above the bar: the bar's last LED blinks white
            if blink:
                self._set(n - 1, 200, 200, 200)

    def _status(self, state, slot, flags, now, ident, blink):
        i = self.status
        effect = state.effect
        if ident:
            if blink:
                if state.claim_open(now):
                    self._set(i, 0, 0, 200)
                else:
                    self._set(i, 200, 200, 200)
        elif effect == 3 and (state.effect_slot == slot or state.effect_slot >= 8):
            if blink:
                self._slot(i, state, slot, 256)
        elif effect == 1 and flags & 6:
            if state.effect_value:
                self._set(i, 0, 200, 0)
            else:
                self._set(i, 200, 0, 0)
        elif flags & 8:
            self._set(i, 40, 0, 0)
        elif flags & 1:
            self._slot(i, state, slot, self._player_level(state, slot, now))
        if state.low_battery and (now // 250) % 16 == 0:
            self._set(i, 255, 0, 0)
