"""The BLE carrier with aioble: our service (write + notify) plus Battery and Device Information."""

import asyncio

import aioble
import bluetooth
import wire
from micropython import const

_ADV_INTERVAL_US = const(250_000)


class BleCarrier:
    """GATT server of one counter; ``run()`` serves one app connection at a time."""

    def __init__(self, counter, outbox, name):
        self.counter = counter
        self.outbox = outbox
        self.name = name
        service = aioble.Service(bluetooth.UUID(wire.SERVICE_UUID))
        self.rx = aioble.Characteristic(
            service,
            bluetooth.UUID(wire.RX_CHAR_UUID),
            write=True,
            write_no_response=True,
            capture=True,  # queue writes: none may be lost while we answer the last one
        )
        self.tx = aioble.Characteristic(service, bluetooth.UUID(wire.TX_CHAR_UUID), notify=True)
        services = [service]
        self.level = None
        # Only a counter on a cell has a Battery service: one on mains would say 100 % for ever.
        if counter.board.battery is not None:
            battery = aioble.Service(bluetooth.UUID(wire.BATTERY_SERVICE_UUID))
            self.level = aioble.Characteristic(
                battery, bluetooth.UUID(wire.BATTERY_LEVEL_CHAR_UUID), read=True, notify=True
            )
            services.append(battery)
        info = aioble.Service(bluetooth.UUID(wire.DEVICE_INFO_SERVICE_UUID))
        texts = (
            (wire.MANUFACTURER_CHAR_UUID, b"Munchkin Companion counters"),
            (wire.MODEL_CHAR_UUID, counter.board.id.encode()),
            (wire.FIRMWARE_REV_CHAR_UUID, ("%d.%d.%d" % _version()).encode()),
        )
        chars = []
        for uuid, _ in texts:
            chars.append(aioble.Characteristic(info, bluetooth.UUID(uuid), read=True))
        services.append(info)
        aioble.register_services(*services)
        for char, (_, value) in zip(chars, texts):
            char.write(value)
        if self.level is not None:
            self.level.write(bytes([counter.state.battery_percent]))
        self.service_uuid = bluetooth.UUID(wire.SERVICE_UUID)
        # This counter's address as apps see it, in the order it is written (aioble's too).
        self.address = bytes(bluetooth.BLE().config("mac")[1])

    def battery_percent(self, percent):
        if self.level is not None:
            self.level.write(bytes([percent]), send_update=True)

    async def run(self):
        while True:
            connection = await aioble.advertise(
                _ADV_INTERVAL_US, name=self.name, services=[self.service_uuid]
            )
            # Both addresses go into the session's proofs: an app that reaches this
            # counter through a relay sees the relay's address, and its AUTH fails.
            session = self.counter.open_session(self.address, bytes(connection.device.addr))
            session.greeted = True  # a BLE connection is an app on the line (HELLO follows)
            self.outbox.clear("ble")  # queued while nobody was connected: stale by now
            try:
                await self._serve(connection, session)
            except Exception:
                # The app would stay connected to a counter that no longer answers it:
                # drop the link, so that it reconnects to the restarted carrier.
                try:
                    await connection.disconnect()
                except Exception:  # already gone: nothing to drop
                    pass
                raise
            finally:
                self.counter.close_session(session)

    async def _serve(self, connection, session):
        """Until the app disconnects: answer its writes, pass on what the outbox holds.

        Nothing polls: one flag wakes this loop, set by the write handler (through
        aioble's ``written()``, itself a flag its IRQ sets), by the outbox when a
        message is queued, and when the link drops.
        """
        wake = self.outbox.watch("ble")
        inbox = []
        failed = []

        async def listen():
            try:
                while True:
                    _, data = await self.rx.written()
                    inbox.append(data)
                    wake.set()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # handed to the loop below, which ends the link
                failed.append(exc)
                wake.set()

        async def watch_link():
            await connection.disconnected(timeout_ms=None)
            wake.set()

        helpers = [asyncio.create_task(listen()), asyncio.create_task(watch_link())]
        try:
            while True:
                if failed:
                    raise failed[0]
                while inbox:
                    for reply in self.counter.handle(inbox.pop(0), session):
                        self.tx.notify(connection, reply)
                while self.outbox.has("ble"):
                    kind, payload = self.outbox.pop("ble")
                    if kind == "all" or session.authenticated:
                        self.tx.notify(connection, session.out(payload))
                if not connection.is_connected():
                    return
                wake.clear()  # nothing awaited since the last look: no set() was missed
                await wake.wait()
        finally:
            for task in helpers:
                task.cancel()


def _version():
    from counter.logic import FIRMWARE_VERSION

    return FIRMWARE_VERSION
