// Puts host files into the MicroPython VM's file system, for run.mjs and board.mjs.
//
// Each spec is "VMPATH=HOSTPATH": a file or a directory tree (directories named
// node_modules, vm or __pycache__ are skipped).
import fs from "node:fs";
import path from "node:path";

const SKIP_DIRS = new Set(["node_modules", "vm", "__pycache__"]);

function mkdirs(FS, vmPath) {
  let cur = "";
  for (const part of vmPath.split("/").filter(Boolean)) {
    cur += "/" + part;
    try { FS.mkdir(cur); } catch (e) { /* exists */ }
  }
}

function copy(FS, vmPath, hostPath) {
  const st = fs.statSync(hostPath);
  if (st.isDirectory()) {
    mkdirs(FS, vmPath);
    for (const name of fs.readdirSync(hostPath)) {
      const child = path.join(hostPath, name);
      if (fs.statSync(child).isDirectory() && SKIP_DIRS.has(name)) continue;
      copy(FS, vmPath + "/" + name, child);
    }
  } else {
    mkdirs(FS, path.posix.dirname(vmPath));
    FS.writeFile(vmPath, fs.readFileSync(hostPath));
  }
}

export function copyInto(FS, specs) {
  for (const spec of specs) {
    const eq = spec.indexOf("=");
    copy(FS, spec.slice(0, eq), spec.slice(eq + 1));
  }
}
