# Runs inside MicroPython's WebAssembly VM, installed on the board's flash as /lib/aioble
# (where `mip install aioble` puts micropython-lib's aioble): the part of aioble's server
# API the firmware uses, on the fake `bluetooth` module. As the real one does, it starts
# the radio (ble.active(True)) in register_services, and written() awaits a flag that
# the write handler sets. As on a board, a remote write longer than the characteristic's
# buffer (20 bytes unless its initial value was longer) is cut to it, and captured
# writes wait in one 10-entry queue shared by every capturing characteristic, which
# drops the oldest beyond that (aioble/server.py: _WRITE_CAPTURE_QUEUE_LIMIT; without
# capture only the last write is kept). The board runner plays the central: connect(),
# write(), disconnect(); what the firmware notifies is reported to the test.
import asyncio

import bluetooth

_BLE = bluetooth.BLE()
_PENDING = []  # centrals waiting to connect: their addresses
_ADVERTISING = [None]  # the Event advertise() waits on
_CONNECTION = [None]
_RX = []  # characteristics that take writes
NOTIFIED = []  # (characteristic uuid, bytes) the firmware sent; the runner reports them
CAPTURE_QUEUE_LIMIT = 10  # aioble's _WRITE_CAPTURE_QUEUE_LIMIT
BUFFER_BYTES = 20  # MicroPython's default characteristic buffer (MP_BLUETOOTH_DEFAULT_ATTR_LEN)
_CAPTURED = []  # (characteristic, connection, data), oldest first, for every capturing one
DROPPED = [0]  # captured writes the full queue pushed out


class Service:
    def __init__(self, uuid):
        self.uuid = uuid
        self.characteristics = []


class Characteristic:
    def __init__(
        self,
        service,
        uuid,
        read=False,
        write=False,
        write_no_response=False,
        notify=False,
        indicate=False,
        initial=None,
        capture=False,
    ):
        service.characteristics.append(self)
        self.uuid = uuid
        self.value = initial or b""
        self.buffer = max(BUFFER_BYTES, len(self.value))
        self.can_notify = notify
        self.capture = capture
        if write or write_no_response:
            self._written = asyncio.Event()
            self._last = None  # without capture: the last write only
            _RX.append(self)

    def write(self, data, send_update=False):
        self.value = bytes(data)
        self.buffer = max(self.buffer, len(self.value))  # a local write grows the buffer

    def read(self):
        return self.value

    def notify(self, connection, data=None):
        if not self.can_notify:
            raise ValueError("Not supported")
        if connection is None or not connection.is_connected():
            raise OSError(107)  # ENOTCONN: the central went away
        NOTIFIED.append((self.uuid.value, bytes(data if data is not None else self.value)))

    async def written(self, timeout_ms=None):
        while True:
            if timeout_ms is None:
                await self._written.wait()
            else:
                await asyncio.wait_for_ms(self._written.wait(), timeout_ms)
            if not self.capture:
                self._written.clear()
                return self._last
            mine = [item for item in _CAPTURED if item[0] is self]
            self._written.clear()
            if mine:
                _CAPTURED.remove(mine[0])
                if len(mine) > 1:
                    self._written.set()
                return mine[0][1], mine[0][2]

    def _remote_write(self, connection, data):
        data = bytes(data[: self.buffer])  # the radio stack cuts what its buffer cannot hold
        self.value = data
        if self.capture:
            _CAPTURED.append((self, connection, data))
            if len(_CAPTURED) > CAPTURE_QUEUE_LIMIT:
                _CAPTURED.pop(0)
                DROPPED[0] += 1
        else:
            self._last = connection
        self._written.set()


class _Device:
    def __init__(self, addr):
        self.addr = addr


class DeviceConnection:
    def __init__(self, addr):
        self.device = _Device(addr)
        self._connected = True
        self._gone = asyncio.Event()

    def is_connected(self):
        return self._connected

    async def disconnected(self, timeout_ms=None):
        await self._gone.wait()

    async def disconnect(self, timeout_ms=2000):
        _drop(self)


def _drop(connection):
    if connection._connected:
        connection._connected = False
        connection._gone.set()
        if _CONNECTION[0] is connection:
            _CONNECTION[0] = None


def register_services(*services):
    _BLE.active(True)  # aioble's ensure_active(): this is where the radio starts


async def advertise(interval_us, adv_data=None, resp_data=None, connectable=True, **fields):
    _BLE.active(True)
    while not _PENDING:
        event = asyncio.Event()
        _ADVERTISING[0] = event
        await event.wait()
    connection = DeviceConnection(_PENDING.pop(0))
    _CONNECTION[0] = connection
    return connection


# -- the central's side, driven by the board runner -------------------------------------


def connect(addr):
    _PENDING.append(bytes(addr))
    if _ADVERTISING[0] is not None:
        _ADVERTISING[0].set()


def write(data):
    connection = _CONNECTION[0]
    if connection is not None and _RX:
        _RX[0]._remote_write(connection, data)


def disconnect():
    if _CONNECTION[0] is not None:
        _drop(_CONNECTION[0])
