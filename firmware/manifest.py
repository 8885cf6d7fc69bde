# ruff: noqa: F821  (include/require/module/package are given by the manifest loader)
# Freezes the counter firmware into a MicroPython build, e.g. from ports/esp32:
#   make BOARD=ESP32_GENERIC_C3 FROZEN_MANIFEST=/path/to/firmware/manifest.py
# wire.py, seal.py and framing.py are the app's own codec, session cryptography and
# serial framing, taken from where the app keeps them, so the frozen firmware and
# the app can never disagree about the protocol.
include("$(PORT_DIR)/boards/manifest.py")
require("aioble")
module("wire.py", base_path="../companion/devices")
module("seal.py", base_path="../companion/devices")
module("framing.py", base_path="../companion/devices")
package("counter")
