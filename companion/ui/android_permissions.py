"""The runtime permissions a Bluetooth scan needs on Android, asked for in one request
before bleak's scanner asks (the device service asks once, before its first scan)."""

from __future__ import annotations

import asyncio

PERMISSION_WAIT_S = 120.0  # s: the user reads the system's permission dialog


# Android 12 (API 31) gave BLE its own runtime permissions; before it, a BLE scan needed
# the fine location permission. The manifest declares each only where it applies
# (buildozer.spec), and a permission the manifest leaves out is refused without asking.
BLUETOOTH_PERMISSIONS_API = 31
BLUETOOTH_RUNTIME = ("android.permission.BLUETOOTH_SCAN", "android.permission.BLUETOOTH_CONNECT")
# bleak's Android scanner asks for location itself before every scan, on every release,
# and gives up unless one is granted (fine or coarse: bleak takes either; Android 12 takes
# a fine request only with the coarse one). Asked for with the app's own, in one request,
# before bleak asks: bleak then finds them granted and no question of its own shows.
LOCATION_RUNTIME = (
    "android.permission.ACCESS_FINE_LOCATION",
    "android.permission.ACCESS_COARSE_LOCATION",
)


def bluetooth_permissions(sdk_int: int) -> list[str]:
    """Every runtime permission a BLE scan needs on this Android API level, to be asked for
    in one request (Android shows one question for those of one group).

    >>> [name.rsplit(".", 1)[1] for name in bluetooth_permissions(34)]
    ['BLUETOOTH_SCAN', 'BLUETOOTH_CONNECT', 'ACCESS_FINE_LOCATION', 'ACCESS_COARSE_LOCATION']
    >>> [name.rsplit(".", 1)[1] for name in bluetooth_permissions(30)]
    ['ACCESS_FINE_LOCATION', 'ACCESS_COARSE_LOCATION']
    """
    if sdk_int >= BLUETOOTH_PERMISSIONS_API:
        return [*BLUETOOTH_RUNTIME, *LOCATION_RUNTIME]
    return list(LOCATION_RUNTIME)


def bluetooth_granted(permissions: list[str], grants: list[bool]) -> bool:
    """Whether BLE may be used after Android's answer to `bluetooth_permissions`: every
    Bluetooth permission granted, and location, precise or approximate.

    >>> names = bluetooth_permissions(34)
    >>> bluetooth_granted(names, [True, True, False, True])  # approximate location
    True
    >>> bluetooth_granted(names, [True, True, False, False])  # no location: bleak gives up
    False
    """
    granted = {name for name, grant in zip(permissions, grants, strict=False) if grant}
    asked = set(permissions)
    return asked & set(BLUETOOTH_RUNTIME) <= granted and bool(granted & set(LOCATION_RUNTIME))


async def ask_android_permissions(timeout_s: float = PERMISSION_WAIT_S) -> bool:
    """On Android, ask for everything a BLE scan needs, at once; answers whether BLE may
    be used."""
    from kivy.utils import platform

    if platform != "android":
        return True
    from android.permissions import request_permissions
    from jnius import autoclass  # only on Android

    loop = asyncio.get_running_loop()
    answer: asyncio.Future[bool] = loop.create_future()

    def answered(permissions: list[str], grants: list[bool]) -> None:
        # Called on Android's UI thread, not on the loop's.
        def settle() -> None:
            if not answer.done():
                answer.set_result(bluetooth_granted(list(permissions), list(grants)))

        loop.call_soon_threadsafe(settle)

    sdk_int = int(autoclass("android.os.Build$VERSION").SDK_INT)
    request_permissions(bluetooth_permissions(sdk_int), answered)
    try:
        return await asyncio.wait_for(answer, timeout_s)
    except TimeoutError:
        return False
