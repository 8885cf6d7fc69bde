"""A tiny stand-in for an ESP32-S3/C3's ROM bootloader (and its flasher stub) on a pty.

It speaks esptool's serial protocol as far as a write needs it: SLIP frames, SYNC,
GET_SECURITY_INFO (naming the chip), READ_REG/WRITE_REG (registers read as 0), the
stub upload (MEM_BEGIN/DATA/END, then "OHAI"), SPI_ATTACH, SPI_SET_PARAMS, ERASE_FLASH,
FLASH_BEGIN/DATA and FLASH_DEFL_BEGIN/DATA/END (the data, inflated where it came
compressed, into a flash of its own) and SPI_FLASH_MD5.
What was written is in `flash`, what was asked in `commands`.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pty
import struct
import threading
import tty
import zlib

CHIP_IDS = {"ESP32-S3": 9, "ESP32-C3": 5}
FLASH_SIZE = 4 * 1024 * 1024

FLASH_BEGIN, FLASH_DATA = 0x02, 0x03
SYNC = 0x08
WRITE_REG = 0x09
READ_REG = 0x0A
MEM_BEGIN, MEM_END, MEM_DATA = 0x05, 0x06, 0x07
SPI_SET_PARAMS = 0x0B
SPI_ATTACH = 0x0D
CHANGE_BAUDRATE = 0x0F
DEFL_BEGIN, DEFL_DATA, DEFL_END = 0x10, 0x11, 0x12
FLASH_MD5 = 0x13
SECURITY_INFO = 0x14
ERASE_FLASH = 0xD0


def slip(data: bytes) -> bytes:
    return b"\xc0" + data.replace(b"\xdb", b"\xdb\xdd").replace(b"\xc0", b"\xdb\xdc") + b"\xc0"


class FakeRom:
    """The bootloader on the far side of a pty; `port` is the path esptool opens."""

    def __init__(self, chip: str = "ESP32-S3") -> None:
        self.chip = chip
        self.master, slave = pty.openpty()
        tty.setraw(slave)
        self.port = os.ttyname(slave)
        self._slave = slave  # kept open, so the pty lives while esptool reopens it
        self.flash = bytearray(b"\xff" * FLASH_SIZE)
        self.commands: list[int] = []
        self.stub = False
        self.erased = False
        self._inflate: zlib._Decompress | None = None
        self._at = 0
        self._begin = 0
        self._block = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True, name="fake-rom")
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        for fd in (self.master, self._slave):
            with contextlib.suppress(OSError):
                os.close(fd)
        self._thread.join(timeout=2.0)

    # -- the wire ----------------------------------------------------------------------
    def _serve(self) -> None:
        frame: bytearray | None = None
        escaped = False
        while not self._stop.is_set():
            try:
                chunk = os.read(self.master, 4096)
            except OSError:
                return
            if not chunk:
                return
            for byte in chunk:
                if byte == 0xC0:
                    if frame:
                        self._packet(bytes(frame))
                    frame = bytearray()
                elif frame is None:
                    continue
                elif escaped:
                    frame.append({0xDC: 0xC0, 0xDD: 0xDB}.get(byte, byte))
                    escaped = False
                elif byte == 0xDB:
                    escaped = True
                else:
                    frame.append(byte)

    def _send(self, op: int, value: int = 0, data: bytes = b"", status: int = 0) -> None:
        tail = bytes([status, 0]) if self.stub else bytes([status, 0, 0, 0])
        body = data + tail
        packet = struct.pack("<BBHI", 1, op, len(body), value) + body
        with contextlib.suppress(OSError):
            os.write(self.master, slip(packet))

    def _packet(self, packet: bytes) -> None:
        if len(packet) < 8 or packet[0] != 0:
            return
        op, size = packet[1], struct.unpack_from("<H", packet, 2)[0]
        data = packet[8 : 8 + size]
        self.commands.append(op)
        if op == SYNC:
            for _ in range(8):
                self._send(op, 0 if self.stub else 0x20120707)
        elif op == SECURITY_INFO:
            info = struct.pack("<IBBBBBBBBII", 0, 0, 0, 0, 0, 0, 0, 0, 0, CHIP_IDS[self.chip], 0)
            self._send(op, 0, info)
        elif op == READ_REG:
            self._send(op, 0)
        elif op == MEM_END:
            self._send(op)
            self.stub = True
            with contextlib.suppress(OSError):
                os.write(self.master, slip(b"OHAI"))
        elif op == ERASE_FLASH:
            self.flash[:] = b"\xff" * FLASH_SIZE
            self.erased = True
            self._send(op)
        elif op == FLASH_BEGIN:  # data sent as it is (esptool finds it does not compress)
            _size, _blocks, self._block, self._at = struct.unpack_from("<IIII", data)
            self._begin = self._at
            self._send(op)
        elif op == FLASH_DATA:
            length, sequence = struct.unpack_from("<II", data)
            at = self._begin + sequence * self._block
            self.flash[at : at + length] = data[16 : 16 + length]
            self._send(op)
        elif op == DEFL_BEGIN:
            _size, _blocks, _block, offset = struct.unpack_from("<IIII", data)
            self._inflate = zlib.decompressobj()
            self._at = offset
            self._send(op)
        elif op == DEFL_DATA:
            length = struct.unpack_from("<I", data)[0]
            assert self._inflate is not None
            plain = self._inflate.decompress(data[16 : 16 + length])
            self.flash[self._at : self._at + len(plain)] = plain
            self._at += len(plain)
            self._send(op)
        elif op == FLASH_MD5:
            offset, length = struct.unpack_from("<II", data)
            digest = hashlib.md5(self.flash[offset : offset + length]).digest()
            self._send(op, 0, digest if self.stub else digest.hex().encode())
        else:  # WRITE_REG, MEM_BEGIN/DATA, SPI_ATTACH, SPI_SET_PARAMS, DEFL_END, ...
            self._send(op)
