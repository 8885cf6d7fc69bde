"""The table as an application: the open game, its saving, its dice and roll offers, and
everything that follows it (counters, the table link, screens, statistics).

No Kivy, aiohttp or bleak here: the Kivy app, `companion serve`, `companion sim` and the
benchmarks are adapters around it, and every way into the game goes through it.
"""
