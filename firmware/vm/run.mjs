// Runs Python code in MicroPython's WebAssembly VM for the firmware tests.
//
//   node run.mjs [--heap BYTES] [--copy VMPATH=HOSTPATH]...
//
// Each --copy puts a host file or directory tree into the VM's file system
// (directories named node_modules or vm are skipped). Then it reads one JSON
// request per line on stdin, {"code": "..."}, runs the code in the same VM (so
// state persists between requests) and answers one JSON line on stdout:
// {"ok": true, "out": "<what the code printed>"} or
// {"ok": false, "type": "<exception type>", "error": "<traceback>", "out": "..."}.
import { loadMicroPython } from "@micropython/micropython-webassembly-pyscript";
import { copyInto } from "./vmfs.mjs";
import readline from "node:readline";

let heap = 512 * 1024;
const copies = [];
for (let i = 2; i < process.argv.length; i++) {
  const arg = process.argv[i];
  if (arg === "--heap") heap = parseInt(process.argv[++i], 10);
  else if (arg === "--copy") copies.push(process.argv[++i]);
  else throw new Error(`unknown argument ${arg}`);
}

let out = [];
const mp = await loadMicroPython({
  heapsize: heap,
  linebuffer: false,
  stdout: (bytes) => out.push(...bytes),
  stderr: (bytes) => out.push(...bytes),
});

copyInto(mp.FS, copies);

const decoder = new TextDecoder();
const rl = readline.createInterface({ input: process.stdin, terminal: false });
for await (const line of rl) {
  if (!line.trim()) continue;
  const { code } = JSON.parse(line);
  out = [];
  let reply;
  try {
    mp.runPython(code);
    reply = { ok: true, out: decoder.decode(new Uint8Array(out)) };
  } catch (e) {
    if (e.name !== "PythonError") throw e;
    reply = { ok: false, type: e.type, error: e.message, out: decoder.decode(new Uint8Array(out)) };
  }
  process.stdout.write(JSON.stringify(reply) + "\n");
}
