// Runs the whole counter firmware (boot.py, main.py, its tasks) in MicroPython's
// WebAssembly VM as if it were a board, for the firmware-in-the-loop tests.
//
//   node board.mjs --serial RX_FD,TX_FD [--heap BYTES] [--copy VMPATH=HOSTPATH]... SCRIPT
//
// The board's USB serial line is two inherited file descriptors: bytes read from
// RX_FD reach the firmware's sys.stdin, and what it writes to sys.stdout goes to
// TX_FD. As a port's USB or UART driver does, every received byte is checked
// against MicroPython's interrupt character (Ctrl-C unless kbd_intr changed it)
// when it arrives, and schedules a KeyboardInterrupt if it matches.
//
// SCRIPT (a VM path) is run with runPython; it drives the firmware and calls the
// functions put on globalThis here: sleepMs (a real blocking sleep, so the VM's
// clock moves), pumpSerial, ctrlC (schedule a keyboard interrupt now), control (one
// line of the test's commands from this process's stdin, or null) and report (one
// JSON line to stderr for the test).
import { loadMicroPython } from "@micropython/micropython-webassembly-pyscript";
import { copyInto } from "./vmfs.mjs";
import fs from "node:fs";

let heap = 512 * 1024;
let rxFd = -1;
let txFd = -1;
let script = null;
const copies = [];
for (let i = 2; i < process.argv.length; i++) {
  const arg = process.argv[i];
  if (arg === "--heap") heap = parseInt(process.argv[++i], 10);
  else if (arg === "--copy") copies.push(process.argv[++i]);
  else if (arg === "--serial") [rxFd, txFd] = process.argv[++i].split(",").map(Number);
  else script = arg;
}
if (rxFd < 0 || script === null) throw new Error("usage: board.mjs --serial RX,TX SCRIPT");

const rx = [];
let mp = null;

function readNonBlocking(fd, size) {
  const buf = Buffer.alloc(size);
  try {
    const n = fs.readSync(fd, buf, 0, size, null);
    return n > 0 ? buf.subarray(0, n) : null;
  } catch (e) {
    if (e.code === "EAGAIN" || e.code === "EWOULDBLOCK") return null;
    throw e;
  }
}

// The "USB driver": take what arrived, as an interrupt handler would, Ctrl-C check included.
function pumpSerial() {
  const got = readNonBlocking(rxFd, 4096);
  if (got === null) return 0;
  const interrupt = mp._module._mp_hal_get_interrupt_char();
  for (const byte of got) {
    if (interrupt >= 0 && byte === interrupt) {
      mp._module._mp_sched_keyboard_interrupt();
      rx.length = 0; // a port's driver drops what it had buffered on Ctrl-C
      report({ event: "ctrl-c" });
    } else {
      rx.push(byte);
    }
  }
  return got.length;
}

function report(value) {
  fs.writeSync(2, JSON.stringify(value) + "\n");
}

let pendingControl = "";
function control() {
  const buf = Buffer.alloc(4096);
  let got = null;
  try {
    const n = fs.readSync(0, buf, 0, buf.length, null);
    // The test closed its end (or died): nobody will ever drive this board again.
    if (n === 0) process.exit(0);
    got = buf.subarray(0, n);
  } catch (e) {
    if (e.code !== "EAGAIN" && e.code !== "EWOULDBLOCK") throw e;
  }
  if (got !== null) pendingControl += got.toString("utf8");
  const nl = pendingControl.indexOf("\n");
  if (nl < 0) return null;
  const line = pendingControl.slice(0, nl);
  pendingControl = pendingControl.slice(nl + 1);
  return line;
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));
globalThis.sleepMs = (ms) => {
  pumpSerial();
  Atomics.wait(sleeper, 0, 0, ms);
  pumpSerial();
};
globalThis.pumpSerial = pumpSerial;
// A Ctrl-C that arrives at this very moment (the tests aim one at the start of main.py).
globalThis.ctrlC = () => mp._module._mp_sched_keyboard_interrupt();
globalThis.interruptChar = () => mp._module._mp_hal_get_interrupt_char();
globalThis.control = control;
globalThis.report = (text) => fs.writeSync(2, text + "\n");

mp = await loadMicroPython({
  heapsize: heap,
  linebuffer: false,
  stdin: () => {
    if (rx.length === 0) pumpSerial();
    return rx.length ? rx.shift() : null;
  },
  stdout: (bytes) => fs.writeSync(txFd, Buffer.from(bytes)),
  stderr: (bytes) => fs.writeSync(2, Buffer.from(bytes)),
});

copyInto(mp.FS, copies);

try {
  mp.runPython(new TextDecoder().decode(mp.FS.readFile(script)));
  report({ event: "exit" });
} catch (e) {
  report({ event: "crash", type: e.type ?? e.name, error: String(e.message) });
  process.exitCode = 1;
}
