"""Seven-segment patterns (bit 0 = segment a ... bit 6 = g, bit 7 = the dot) for the digits."""

DIGITS = b"\x3f\x06\x5b\x4f\x66\x6d\x7d\x07\x7f\x6f"
BLANK = 0x00
DASH = 0x40
LETTER_C = 0x39
LETTER_D = 0x5E
LETTER_I = 0x10
LETTER_L = 0x38
LETTER_S = 0x6D  # safe mode: "SF"
LETTER_F = 0x71
LETTER_LOW_O = 0x5C  # a flat cell: "Lo"
DOT = 0x80
# One segment lit at a time, round the outside: the "rolling die" spinner.
SPIN = b"\x01\x02\x04\x08\x10\x20"


def number(buf, value):
    """Right-aligned decimal ``value`` in ``buf`` (no heap); "--" when it does not fit."""
    n = len(buf)
    if value < 0:
        for i in range(n):
            buf[i] = DASH
        return
    limit = 1
    for _ in range(n):
        limit *= 10
    if value >= limit:
        for i in range(n):
            buf[i] = DASH
        return
    for i in range(n - 1, -1, -1):
        if value == 0 and i < n - 1:
            buf[i] = BLANK
        else:
            buf[i] = DIGITS[value % 10]
        value //= 10
