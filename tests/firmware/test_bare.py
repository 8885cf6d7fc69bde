"""A board with no MicroPython yet: found, its image checked, MicroPython written, a counter made.

The ESP32 is `fake_rom.FakeRom`, a pty that speaks esptool's protocol as the ROM
bootloader and the flasher stub do, driven by esptool's own code; the Pico's BOOTSEL
drive is a folder shaped like one; images are built here. Nothing is downloaded.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import random
import struct
from collections.abc import Iterator
from pathlib import Path

import pytest
from boardvm import BoardVM
from fake_rom import DEFL_BEGIN, FakeRom
from serial.tools.list_ports_common import ListPortInfo

from companion import cli
from companion.devices import bare
from companion.devices.install import Step

CHIP_IDS = {"ESP32-S3": 9, "ESP32-C3": 5, "ESP32": 0}
RP2040_FAMILY = 0xE48BFF56
RP2350_FAMILY = 0xE48BFF59


def esp_image(chip: str = "ESP32-S3", *, size: int = 0x9000, whole: bool = True) -> bytes:
    """A whole-looking ESP image: the bootloader's header names `chip`, a partition table."""
    data = bytearray(b"\xff" * size)
    header = bytes([0xE9, 3, 2, 0x20]) + struct.pack("<I", 0x403C8000)
    extended = bytes([0xEE, 0, 0, 0]) + struct.pack("<H", CHIP_IDS[chip]) + bytes(10)
    data[0:24] = header + extended
    data[24:size] = random.Random(size).randbytes(size - 24)  # as little squeezable as code
    if whole:
        data[0x8000:0x8002] = b"\xaa\x50"
    return bytes(data)


def uf2_image(family: int = RP2040_FAMILY, blocks: int = 300) -> bytes:
    """UF2 blocks of 256 bytes each for `family`, as MicroPython's .uf2 files have them."""
    out = bytearray()
    for number in range(blocks):
        payload = bytes([number % 256]) * 256
        head = struct.pack(
            "<IIIIIIII",
            0x0A324655,
            0x9E5D5157,
            0x00002000,
            0x10000000 + 256 * number,
            256,
            number,
            blocks,
            family,
        )
        out += head + payload + bytes(476 - len(payload)) + struct.pack("<I", 0x0AB16F30)
    return bytes(out)


def bootsel_drive(folder: Path, board_id: str = "RPI-RP2") -> Path:
    folder.mkdir(parents=True)
    (folder / "INFO_UF2.TXT").write_text(
        f"UF2 Bootloader v3.0\nModel: Raspberry Pi RP2\nBoard-ID: {board_id}\n"
    )
    (folder / "INDEX.HTM").write_text("<html></html>")
    return folder


def port_info(device: str, vid: int, pid: int) -> ListPortInfo:
    info = ListPortInfo(device, skip_link_detection=True)
    info.vid, info.pid = vid, pid
    return info


@pytest.fixture
def rom() -> Iterator[FakeRom]:
    fake = FakeRom("ESP32-S3")
    try:
        yield fake
    finally:
        fake.close()


# -- images ------------------------------------------------------------------------------------


def test_images_for_the_boards_chip_are_taken_with_where_they_go(tmp_path: Path) -> None:
    s3 = tmp_path / "ESP32_GENERIC_S3.bin"
    s3.write_bytes(esp_image("ESP32-S3"))
    image = bare.check_image(s3, "ESP32-S3")
    assert (image.kind, image.chip, image.offset) == ("esp", "ESP32-S3", 0)
    c3 = tmp_path / "ESP32_GENERIC_C3.bin"
    c3.write_bytes(esp_image("ESP32-C3"))
    assert bare.check_image(c3, "ESP32-C3").offset == 0
    pico = tmp_path / "RPI_PICO_W.uf2"
    pico.write_bytes(uf2_image())
    assert bare.check_image(pico, "RP2040").kind == "uf2"


@pytest.mark.parametrize(
    ("name", "data", "chip", "says"),
    [
        (
            "c3.bin",
            esp_image("ESP32-C3"),
            "ESP32-S3",
            "made for the ESP32-C3, but this board is an ESP32-S3",
        ),
        (
            "esp32.bin",
            esp_image("ESP32"),
            "ESP32-C3",
            "made for the ESP32, but this board is an ESP32-C3",
        ),
        (
            "pico2.uf2",
            uf2_image(RP2350_FAMILY),
            "RP2040",
            "made for the RP2350, but this board is an RP2040",
        ),
        ("s3.bin", esp_image("ESP32-S3"), "RP2040", "is not a .uf2 image"),
        ("pico.uf2", uf2_image(), "ESP32-S3", "is not an ESP32 firmware image"),
        ("app.bin", esp_image("ESP32-S3", whole=False), "ESP32-S3", "only a part of a firmware"),
        ("notes.txt", b"hello", "ESP32-S3", "is not an ESP32 firmware image"),
    ],
)
def test_an_image_for_another_chip_is_refused_in_one_line(
    tmp_path: Path, name: str, data: bytes, chip: str, says: str
) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(bare.WrongImageError) as refused:
        bare.check_image(path, chip)
    text = str(refused.value)
    assert says in text and name in text and "\n" not in text


# -- finding -----------------------------------------------------------------------------------


def test_a_bootsel_drive_is_found_by_its_info_file(tmp_path: Path) -> None:
    pico = bootsel_drive(tmp_path / "media" / "RPI-RP2")
    bootsel_drive(tmp_path / "media" / "RP2350", board_id="RP2350")
    (tmp_path / "media" / "USB-STICK").mkdir()
    places = list((tmp_path / "media").iterdir())
    assert bare.bootsel_drives(places) == [pico]


def test_boards_are_told_apart_and_each_gets_its_words(tmp_path: Path) -> None:
    drive = bootsel_drive(tmp_path / "RPI-RP2")
    ports = [
        port_info("/dev/ttyACM0", 0x303A, 0x1001),  # an S3 in its bootloader
        port_info("/dev/ttyACM1", 0x303A, 0x1001),  # a C3 running MicroPython
        port_info("/dev/ttyACM2", 0x2E8A, 0x000A),  # a Pico running something else
        port_info("/dev/ttyUSB0", 0x10C4, 0xEA60),  # a board behind a bridge, silent
        port_info("/dev/ttyUSB1", 0x1234, 0x5678),  # nothing of ours
        port_info("/dev/ttyACM3", 0x303A, 0x1001),  # a counter the app holds
    ]
    tried: list[str] = []

    def chip_of(port: str) -> str | None:
        tried.append(port)
        return "ESP32-S3" if port == "/dev/ttyACM0" else None

    found = bare.find_bare(
        ports=ports,
        places=[drive],
        skip=["/dev/ttyACM3"],
        answers=lambda port: port == "/dev/ttyACM1",
        chip_of=chip_of,
    )
    assert [(b.kind, b.chip, b.where) for b in found] == [
        (bare.Kind.BOOTSEL, "RP2040", str(drive)),
        (bare.Kind.ESP_BOOTLOADER, "ESP32-S3", "/dev/ttyACM0"),
        (bare.Kind.SILENT, None, "/dev/ttyACM2"),
        (bare.Kind.SILENT, None, "/dev/ttyUSB0"),
    ]
    assert tried == ["/dev/ttyACM0", "/dev/ttyUSB0"]  # esptool is never tried on a Pico
    esp = found[1]
    words = [" ".join(bare.guide(b, command_line=True)) for b in found]
    assert "BOOTSEL mode" in words[0] and "download page for the Raspberry Pi Pico W" in words[0]
    assert "ESP32-S3 in its bootloader on /dev/ttyACM0" in words[1]
    assert "download page for ESP32-S3 generic boards" in words[1]
    assert "companion install --image FILE" in words[1]
    assert "hold its BOOTSEL button while plugging it back in" in words[2]
    assert "hold its BOOT button, tap RESET" in words[3]
    on_screen = " ".join(bare.guide(esp, command_line=False))
    assert "choose that file here" in on_screen and "companion install" not in on_screen
    assert "http" not in " ".join(words)


def test_the_counter_a_board_becomes_is_asked_only_when_two_fit() -> None:
    assert bare.pick_pinout("RP2040", None) == "levelboard-picow"
    with pytest.raises(bare.InstallError, match="--board, one of: levelboard-esp32s3"):
        bare.pick_pinout("ESP32-S3", None)
    assert bare.pick_pinout("ESP32-C3", "tracker-esp32c3") == "tracker-esp32c3"
    with pytest.raises(bare.InstallError, match="not a counter for the ESP32-C3"):
        bare.pick_pinout("ESP32-C3", "levelboard-picow")


# -- writing an ESP32 with esptool -----------------------------------------------------------------


def test_esptool_finds_the_chip_in_its_bootloader(rom: FakeRom) -> None:
    assert bare.bootloader_chip(rom.port, reset="no-reset") == "ESP32-S3"


def test_esptool_writes_the_image_at_offset_zero_after_erasing(
    rom: FakeRom, tmp_path: Path
) -> None:
    path = tmp_path / "ESP32_GENERIC_S3.bin"
    data = esp_image("ESP32-S3", size=0x30000)
    path.write_bytes(data)
    image = bare.check_image(path, "ESP32-S3")
    heard: list = []
    bare.write_esp(
        rom.port,
        image,
        erase=True,
        on_progress=heard.append,
        reset="no-reset",
        after="no-reset-stub",
    )
    assert rom.erased and rom.stub
    assert bytes(rom.flash[: len(data)]) == data
    assert heard[0].step is Step.ERASING
    written = [p.bytes_done for p in heard if p.step is Step.FLASHING]
    assert written == sorted(written) and written[-1] == len(data) and len(set(written)) > 2
    assert heard[-1].fraction == 1.0


def test_a_board_of_another_chip_gets_nothing_written(tmp_path: Path) -> None:
    c3 = FakeRom("ESP32-C3")
    try:
        path = tmp_path / "ESP32_GENERIC_S3.bin"
        path.write_bytes(esp_image("ESP32-S3"))
        image = bare.check_image(path, "ESP32-S3")  # the file is right for an S3...
        with pytest.raises(bare.WrongImageError, match="but this board is an ESP32-C3"):
            bare.write_esp(c3.port, image, reset="no-reset", after="no-reset")
        assert DEFL_BEGIN not in c3.commands and not c3.stub
    finally:
        c3.close()


def test_no_bootloader_answering_is_said_with_what_to_press(tmp_path: Path) -> None:
    path = tmp_path / "ESP32_GENERIC_S3.bin"
    path.write_bytes(esp_image("ESP32-S3"))
    image = bare.check_image(path, "ESP32-S3")
    with pytest.raises(bare.FlashError, match="hold BOOT, tap RESET"):
        bare.write_esp(str(tmp_path / "ttyNONE"), image, reset="no-reset")


# -- a Pico's drive --------------------------------------------------------------------------------


def test_the_uf2_goes_onto_the_drive_and_its_going_away_is_success(tmp_path: Path) -> None:
    drive = bootsel_drive(tmp_path / "RPI-RP2")
    path = tmp_path / "RPI_PICO_W.uf2"
    path.write_bytes(uf2_image(blocks=400))
    image = bare.check_image(path, "RP2040")
    heard: list = []

    def restarts(progress) -> None:  # the Pico restarts once its last block is in
        heard.append(progress.bytes_done)
        if progress.bytes_done == len(image.data):
            (drive / "INFO_UF2.TXT").unlink(missing_ok=True)

    bare.copy_uf2(image, drive, on_progress=restarts, gone_wait_s=2.0)
    assert (drive / "RPI_PICO_W.uf2").read_bytes() == image.data
    assert heard == sorted(heard) and heard[-1] == len(image.data) and len(set(heard)) > 3


def test_a_drive_that_stays_says_the_image_did_not_start(tmp_path: Path) -> None:
    drive = bootsel_drive(tmp_path / "RPI-RP2")
    path = tmp_path / "RPI_PICO_W.uf2"
    path.write_bytes(uf2_image(blocks=4))
    with pytest.raises(bare.FlashError, match="still there after the copy"):
        bare.copy_uf2(bare.check_image(path, "RP2040"), drive, gone_wait_s=0.3)


# -- the command -----------------------------------------------------------------------------------


def run_cli(*args: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = cli.main(["install", *args])
    return code, out.getvalue()


def test_the_command_refuses_an_image_for_another_chip_before_writing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    board = bare.BareBoard(bare.Kind.ESP_BOOTLOADER, "ESP32-C3", port="/dev/ttyACM0")
    monkeypatch.setattr(bare, "find_bare", lambda **_kw: [board])
    monkeypatch.setattr(bare, "write_esp", lambda *a, **k: pytest.fail("nothing is written"))
    path = tmp_path / "ESP32_GENERIC_S3.bin"
    path.write_bytes(esp_image("ESP32-S3"))
    code, text = run_cli("--image", str(path), "--yes", "--board", "tracker-esp32c3")
    assert code == 1
    assert text.strip() == (
        "companion install: ESP32_GENERIC_S3.bin is made for the ESP32-S3, but this board "
        "is an ESP32-C3."
    )


def test_the_command_guides_a_board_that_answers_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    board = bare.BareBoard(bare.Kind.SILENT, None, port="/dev/ttyUSB0", usb="bridge")
    monkeypatch.setattr(bare, "find_bare", lambda **_kw: [board])
    path = tmp_path / "ESP32_GENERIC_S3.bin"
    path.write_bytes(esp_image("ESP32-S3"))
    code, text = run_cli("--image", str(path), "--yes")
    assert code == 1
    assert "A board on /dev/ttyUSB0 that answers nothing" in text
    assert "hold its BOOT button, tap RESET" in text


@pytest.mark.slow
async def test_a_pico_in_bootsel_mode_becomes_a_counter(tmp_path: Path) -> None:
    """The .uf2 goes on the drive, the Pico comes back as MicroPython, the counter goes on."""
    drive = bootsel_drive(tmp_path / "media" / "RPI-RP2")
    path = tmp_path / "RPI_PICO_W.uf2"
    path.write_bytes(uf2_image())
    image = bare.check_image(path, "RP2040")
    (board,) = bare.find_bare(ports=[], places=[drive])
    (tmp_path / "vm").mkdir()
    vm = BoardVM(tmp_path / "vm", "levelboard-picow", stage=False, heap_bytes=4 * 1024 * 1024)
    steps: list[Step] = []

    def heard(progress) -> None:
        steps.append(progress.step)
        done = progress.step is Step.FLASHING and progress.bytes_done == len(image.data)
        if done and (drive / "INFO_UF2.TXT").exists():  # the Pico restarts, with MicroPython
            (drive / "INFO_UF2.TXT").unlink()
            vm.start()

    def back(known) -> str:
        pico = port_info(vm.path, 0x2E8A, 0x0005)
        return bare.wait_for_micropython(known, ports=lambda: [pico], timeout_s=20.0)

    try:
        result = await asyncio.wait_for(
            bare.make_counter(
                board, image, pinout="levelboard-picow", on_progress=heard, wait=back
            ),
            60.0,
        )
    finally:
        vm.close()
    assert result.installed and result.after is not None
    assert (drive / "RPI_PICO_W.uf2").read_bytes() == image.data
    order = list(dict.fromkeys(steps))
    assert order[:3] == [Step.FLASHING, Step.REBOOTING, Step.ASKING]
    assert order[-1] is Step.DONE and Step.COPYING in order
