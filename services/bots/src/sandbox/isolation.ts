import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { noNewProcessesFilter } from "./no-new-processes.js";

/** Where the child's files sit inside the sandbox (an empty tmpfs otherwise, mounted read-only). */
export const SANDBOX_NODE = "/sandbox/node";
export const SANDBOX_BOOTSTRAP = "/sandbox/bootstrap.cjs";
/** The child's fd from which bwrap copies the bootstrap script into the sandbox. */
export const BOOTSTRAP_FD = 3;
/** The child's fd from which bwrap reads the seccomp filter that keeps it one process. */
export const SECCOMP_FD = 4;

export function findOnPath(program: string): string | undefined {
  for (const dir of (process.env.PATH ?? "/usr/bin:/bin").split(":")) {
    const candidate = path.join(dir, program);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

let libraryBinds: string[] | undefined;

/**
 * Read-only binds of the shared libraries the node binary loads (and the loader), found with
 * ldd once per process: the sandbox holds these files and nothing else of the host's. Without
 * ldd, the system library directories are bound whole.
 */
function nodeLibraryBinds(nodePath: string): string[] {
  if (libraryBinds) return libraryBinds;
  const binds: string[] = [];
  let listed = "";
  try {
    listed = execFileSync("ldd", [nodePath], { encoding: "utf8", timeout: 5_000 });
  } catch {
    listed = "";
  }
  for (const match of listed.matchAll(/(\/[^\s)]+)/g)) {
    const file = match[1]!;
    if (!fs.existsSync(file)) continue;
    binds.push("--ro-bind", fs.realpathSync(file), file);
  }
  if (binds.length === 0) {
    for (const dir of ["/lib", "/lib64", "/usr/lib", "/usr/lib64"]) {
      if (fs.existsSync(dir)) binds.push("--ro-bind", fs.realpathSync(dir), dir);
    }
  }
  libraryBinds = binds;
  return binds;
}

export interface ProcessLimits {
  /** V8's old-space limit, MiB. */
  heapMb: number;
  /** The process's address space (RLIMIT_AS), MiB: bounds memory outside V8's heap (array buffers). */
  addressSpaceMb: number;
  /** CPU seconds for the whole run (RLIMIT_CPU). */
  cpuSeconds: number;
}

/**
 * The command that runs the child: prlimit sets the run's rlimits, bubblewrap gives it new
 * namespaces of every kind and a seccomp filter that keeps it one process (no network, no
 * other process, no host file system: an empty
 * read-only tmpfs holding only the node binary, its libraries and the bootstrap), no
 * environment, uid nobody and no capabilities; node runs without code generation from strings
 * or addons, with its heap capped (the realm takes WebAssembly away: node 24 has no
 * --no-expose-wasm).
 */
export function sandboxCommand(limits: ProcessLimits): { file: string; args: string[] } {
  const prlimit = findOnPath("prlimit");
  const bwrap = findOnPath("bwrap");
  if (!bwrap)
    throw new Error(
      "the strategy sandbox needs bubblewrap: install the Debian package bubblewrap (apt-get install -y bubblewrap)",
    );
  if (!prlimit) throw new Error("the strategy sandbox needs prlimit (Debian package util-linux)");
  const node = process.execPath;
  const mb = 1024 * 1024;
  return {
    file: prlimit,
    args: [
      `--as=${limits.addressSpaceMb * mb}`,
      // SIGXCPU at the soft limit (the run's own failure), SIGKILL a second later if it lingers.
      `--cpu=${limits.cpuSeconds}:${limits.cpuSeconds + 1}`,
      "--core=0",
      "--nofile=64",
      "--",
      bwrap,
      "--unshare-all",
      "--unshare-user",
      "--uid",
      "65534",
      "--gid",
      "65534",
      "--die-with-parent",
      "--new-session",
      "--clearenv",
      "--cap-drop",
      "ALL",
      // One process: no fork, vfork or clone of a process (no-new-processes.ts).
      "--seccomp",
      String(SECCOMP_FD),
      "--tmpfs",
      "/",
      "--ro-bind",
      fs.realpathSync(node),
      SANDBOX_NODE,
      ...nodeLibraryBinds(node),
      "--ro-bind-data",
      String(BOOTSTRAP_FD),
      SANDBOX_BOOTSTRAP,
      "--remount-ro",
      "/",
      "--chdir",
      "/",
      SANDBOX_NODE,
      `--max-old-space-size=${limits.heapMb}`,
      "--disallow-code-generation-from-strings",
      "--no-addons",
      "--no-warnings",
      SANDBOX_BOOTSTRAP,
    ],
  };
}

/**
 * Starts `bootstrap` (a CommonJS script) as the sandbox's node process: stdin and stdout are its
 * wire, stderr its diagnostics. The host's strategy runs and the isolation tests both start here.
 */
export function spawnIsolated(bootstrap: string, limits: ProcessLimits): ChildProcess {
  const command = sandboxCommand(limits);
  const filter = noNewProcessesFilter();
  const child = spawn(command.file, command.args, {
    stdio: ["pipe", "pipe", "pipe", "pipe", "pipe"],
    env: {},
  });
  const pipe = child.stdio[BOOTSTRAP_FD] as NodeJS.WritableStream;
  pipe.on("error", () => undefined);
  pipe.end(bootstrap);
  const seccomp = child.stdio[SECCOMP_FD] as NodeJS.WritableStream;
  seccomp.on("error", () => undefined);
  seccomp.end(filter);
  return child;
}
