"""Current limiter like WLED's: estimate the LEDs' draw from pixel values, scale to a budget."""


def estimate_ma(buf, count, ma_per_channel, idle_ua):
    """Estimated milliamps of ``count`` RGB pixels in ``buf`` (integer maths: no heap)."""
    units = 0
    for i in range(count * 3):
        units += buf[i]
    return units * ma_per_channel // 255 + idle_ua * count // 1000


def limit(buf, count, budget_ma, ma_per_channel, idle_ua):
    """Scale ``buf`` in place so the estimate fits ``budget_ma``; returns the resulting estimate.

    The idle draw of dark LEDs is fixed, so only what is above it is scaled. A
    budget of 0 means no limit.
    """
    total = estimate_ma(buf, count, ma_per_channel, idle_ua)
    if budget_ma <= 0 or total <= budget_ma:
        return total
    idle = idle_ua * count // 1000
    lit = total - idle
    avail = budget_ma - idle
    if avail <= 0:
        factor = 0
    else:
        factor = avail * 256 // lit
    for i in range(count * 3):
        buf[i] = buf[i] * factor >> 8
    return estimate_ma(buf, count, ma_per_channel, idle_ua)


def scale(buf, count, level):
    """Multiply every channel by level/255 in place (the master brightness)."""
    if level >= 255:
        return
    for i in range(count * 3):
        buf[i] = (buf[i] * level + 127) // 255
