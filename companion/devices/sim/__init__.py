"""Simulation beside the device layer: virtual counters and dice, their radio and cables, faults.

Nothing outside this package imports it: a virtual counter is reached over the
same links as a real one (a pseudo-terminal, a Bumble virtual radio) and its
link is handed to the device manager like any other (`VirtualFleet.join`);
faults are links that wrap real ones (`faults.ChaosLink`, `faults.NoisyLine`).
The app, the command line, the tests and the benchmarks use it.
"""
