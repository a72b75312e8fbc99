import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { findOnPath } from "../isolation.js";
import { PYTHON_SDK } from "./stubs.js";

/**
 * Debian's interpreter, the one python3-grpcio and python3-protobuf are built for (a python3
 * earlier on PATH, pyenv's or a virtualenv's, would not have them).
 */
export const SYSTEM_PYTHON = "/usr/bin/python3";

/** Where the pieces sit inside the sandbox. */
const SITE = "/sandbox/site";
const GEN = "/sandbox/gen";
const SOCKET_DIR = "/sandbox/sock";
export const SANDBOX_STRATEGY_FILE = "/sandbox/strategy.py";
export const SOCKET_NAME = "strategy.sock";
/** The child's fd from which bwrap copies the strategy's source into the sandbox. */
const SOURCE_FD = 3;

interface PythonLayout {
  /** The interpreter's real path (python3.11), bound at the same path. */
  executable: string;
  /** The standard library (with lib-dynload), bound at the same path. */
  stdlib: string;
  /** The grpc and google (protobuf) packages, bound into SITE. */
  grpc: string;
  google: string;
  /** Read-only binds of the shared libraries the interpreter and the extension modules load. */
  libraries: string[];
}

let layout: PythonLayout | undefined;

/** Where Debian's Python and its gRPC packages are, found once per process. */
function pythonLayout(): PythonLayout {
  if (layout) return layout;
  if (!fs.existsSync(SYSTEM_PYTHON))
    throw new Error(
      "Python strategies need Debian's python3 with gRPC: apt-get install -y python3-grpcio python3-protobuf python3-grpc-tools",
    );
  let found: { executable: string; stdlib: string; grpc: string; google: string };
  try {
    found = JSON.parse(
      execFileSync(
        SYSTEM_PYTHON,
        [
          "-I",
          "-c",
          "import grpc, google.protobuf, json, os, sys, sysconfig; print(json.dumps({'executable': os.path.realpath(sys.executable), 'stdlib': sysconfig.get_paths()['stdlib'], 'grpc': os.path.dirname(grpc.__file__), 'google': os.path.dirname(os.path.dirname(google.protobuf.__file__))}))",
        ],
        { encoding: "utf8", timeout: 10_000 },
      ),
    ) as typeof found;
  } catch (error) {
    throw new Error(
      `Python strategies need python3-grpcio and python3-protobuf (apt-get install -y python3-grpcio python3-protobuf python3-grpc-tools): ${(error as Error).message.split("\n")[0]}`,
    );
  }
  const objects = [found.executable];
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith(".so")) objects.push(full);
    }
  };
  walk(found.grpc);
  walk(path.join(found.google, "protobuf"));
  walk(path.join(found.stdlib, "lib-dynload"));
  const libraries = new Set<string>();
  for (const object of objects) {
    let listed = "";
    try {
      listed = execFileSync("ldd", [object], { encoding: "utf8", timeout: 5_000 });
    } catch {
      continue;
    }
    for (const match of listed.matchAll(/(\/[^\s)]+)/g))
      if (fs.existsSync(match[1]!)) libraries.add(match[1]!);
  }
  const binds: string[] = [];
  for (const file of libraries) binds.push("--ro-bind", fs.realpathSync(file), file);
  layout = { ...found, libraries: binds };
  return layout;
}

export interface PythonProcessLimits {
  /** The process's address space (RLIMIT_AS), MiB: Python's whole memory. */
  addressSpaceMb: number;
  /** CPU seconds for the whole run (RLIMIT_CPU). */
  cpuSeconds: number;
}

/**
 * Runs a Python strategy's gRPC server in the same kind of sandbox as a TypeScript strategy's
 * node (isolation.ts): prlimit's rlimits, bubblewrap's new namespaces of every kind (no network:
 * the only way out is the Unix socket in `socketDir`, the one folder bound writable), an empty
 * read-only root holding only the interpreter, its standard library, the grpc and protobuf
 * packages, their shared libraries, the runtime, the stubs and the strategy's file; no
 * environment, uid nobody, no capabilities. Python runs isolated (-I: no PYTHONPATH, no user
 * site) without site-packages (-S) or bytecode writes (-B).
 */
export function spawnPythonStrategy(
  source: string,
  stubs: string,
  socketDir: string,
  limits: PythonProcessLimits,
): ChildProcess {
  const bwrap = findOnPath("bwrap");
  const prlimit = findOnPath("prlimit");
  if (!bwrap)
    throw new Error(
      "the strategy sandbox needs bubblewrap: install the Debian package bubblewrap (apt-get install -y bubblewrap)",
    );
  if (!prlimit) throw new Error("the strategy sandbox needs prlimit (Debian package util-linux)");
  const py = pythonLayout();
  const mb = 1024 * 1024;
  const bootstrap = [
    "import sys",
    `sys.path[:0] = [${JSON.stringify(GEN)}, ${JSON.stringify(SITE)}]`,
    "from svc_strategy.serve import main",
    `main(["serve", ${JSON.stringify(`${SOCKET_DIR}/${SOCKET_NAME}`)}, ${JSON.stringify(SANDBOX_STRATEGY_FILE)}])`,
  ].join("\n");
  const args = [
    `--as=${limits.addressSpaceMb * mb}`,
    // SIGXCPU at the soft limit, SIGKILL a second later if it lingers.
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
    "--tmpfs",
    "/",
    "--ro-bind",
    py.executable,
    py.executable,
    "--ro-bind",
    py.stdlib,
    py.stdlib,
    ...py.libraries,
    "--ro-bind",
    py.grpc,
    `${SITE}/grpc`,
    "--ro-bind",
    py.google,
    `${SITE}/google`,
    "--ro-bind",
    PYTHON_SDK,
    `${SITE}/svc_strategy`,
    "--ro-bind",
    stubs,
    GEN,
    "--bind",
    socketDir,
    SOCKET_DIR,
    "--ro-bind-data",
    String(SOURCE_FD),
    SANDBOX_STRATEGY_FILE,
    "--remount-ro",
    "/",
    "--chdir",
    "/",
    py.executable,
    "-I",
    "-S",
    "-B",
    "-c",
    bootstrap,
  ];
  // stdout is not the wire (the socket is): what a strategy prints there goes nowhere.
  const child = spawn(prlimit, args, { stdio: ["ignore", "ignore", "pipe", "pipe"], env: {} });
  const pipe = child.stdio[SOURCE_FD] as NodeJS.WritableStream;
  pipe.on("error", () => undefined);
  pipe.end(source);
  return child;
}
