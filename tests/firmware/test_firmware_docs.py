"""The example in docs/firmware.md runs as written."""

from __future__ import annotations

import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_running_the_firmware_logic_on_a_computer_example_works() -> None:
    text = (ROOT / "docs" / "firmware.md").read_text()
    section = text.split("## Running the firmware logic on a computer", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S)
    assert code is not None
    here = os.getcwd()
    os.chdir(ROOT)
    try:
        exec(compile(code.group(1), "docs/firmware.md", "exec"), {})
    finally:
        os.chdir(here)
