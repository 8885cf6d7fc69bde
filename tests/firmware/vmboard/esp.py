# Runs inside MicroPython's WebAssembly VM: the esp32 port's `esp` module, as far as boot.py
# uses it. runboard.py imports it only on an esp32 board; on rp2 `import esp` fails.
def osdebug(level):
    pass
