"""A window drawn by the CPU is drawn without multisampling; a graphics card keeps it."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from companion.commands.app import software_rendering


def no_device(_path: str) -> bool:
    return False


def dri_only(path: str) -> bool:
    return path == "/dev/dri"


def nvidia_only(path: str) -> bool:
    return path == "/dev/nvidiactl"


@pytest.mark.parametrize(
    ("environ", "exists", "platform", "software"),
    [
        ({}, no_device, "linux", True),  # a server or a virtual machine without a card
        ({}, dri_only, "linux", False),
        ({}, nvidia_only, "linux", False),  # NVIDIA's own driver, no /dev/dri
        ({"LIBGL_ALWAYS_SOFTWARE": "1"}, dri_only, "linux", True),
        ({"LIBGL_ALWAYS_SOFTWARE": "0"}, dri_only, "linux", False),
        ({"GALLIUM_DRIVER": "llvmpipe"}, dri_only, "linux", True),
        ({"ANDROID_ARGUMENT": "x"}, no_device, "linux", False),  # a phone: its GPU draws
        ({}, no_device, "darwin", False),
        ({}, no_device, "win32", False),
    ],
)
def test_software_rendering_is_recognised(
    environ: dict[str, str], exists: object, platform: str, software: bool
) -> None:
    assert software_rendering(environ, exists, platform) is software  # type: ignore[arg-type]


PROBE = (
    "import sys\n"
    "from companion.commands.app import prepare_kivy\n"
    "prepare_kivy((360, 640), smooth_edges=sys.argv[1] == 'smooth')\n"
    "from kivy.config import Config\n"
    "print('MULTISAMPLES', Config.get('graphics', 'multisamples'))\n"
)


@pytest.mark.parametrize(("how", "expected"), [("app", "0"), ("smooth", "2")])
def test_the_app_draws_in_software_without_multisampling(how: str, expected: str) -> None:
    # Kivy reads its configuration once per process: each case in a fresh one.
    env = dict(os.environ, LIBGL_ALWAYS_SOFTWARE="1", KIVY_NO_ARGS="1", KIVY_NO_CONSOLELOG="1")
    env.pop("KIVY_HOME", None)
    done = subprocess.run(
        [sys.executable, "-c", PROBE, how], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert f"MULTISAMPLES {expected}" in done.stdout
