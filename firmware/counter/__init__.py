"""Firmware of the LED level counters; modules are small and the logic runs under CPython too."""
