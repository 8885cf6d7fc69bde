"""A virtual serial port behaves like a USB cable: its name exists only while it is plugged in."""

from __future__ import annotations

import os


async def test_the_published_name_goes_with_the_cable_and_comes_back_with_it(tmp_path):
    from companion.devices.sim.pty_port import PtyPort

    port = PtyPort(tmp_path / "counter")
    port.plug()
    assert os.path.realpath(port.path) == port.device_path

    port.unplug()
    # A freed pty number is handed to the next program that asks: a stale name must not
    # lead an app reopening it to a stranger's terminal.
    assert not os.path.lexists(port.path)

    port.plug()
    assert os.path.exists(port.path)
    assert os.path.realpath(port.path) == port.device_path
    port.close()
    assert not os.path.lexists(port.path)
