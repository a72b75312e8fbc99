import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { checkLimits, DEFAULT_SANDBOX_LIMITS, type SandboxLimits } from "../limits.js";
import { SOCKET_NAME, spawnPythonStrategy, SYSTEM_PYTHON } from "./isolation.js";
import { pythonStubs } from "./stubs.js";

const STDERR_KEPT = 16 * 1024;

/**
 * A strategy service's process, as the gRPC host sees it: where to call it, and how to end it
 * and tell why it ended. A sidecar container has none (Kubernetes runs and restarts it).
 */
export interface StrategyProcess {
  /** The Unix socket the strategy's gRPC server listens on. */
  readonly socketPath: string;
  /** Resolves when the process has ended, with how. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The last lines the process wrote to stderr (a Python traceback, bwrap's complaint). */
  stderrTail(): string;
  /** Ends the process now (idempotent); removes its socket folder. */
  kill(): void;
}

/**
 * Starts a Python strategy (one file, on the Python SDK in sdk/strategy-python) as a gRPC server
 * in its sandbox, listening on a socket in a fresh folder of its own.
 */
export async function startPythonStrategy(
  source: string,
  limits: Partial<SandboxLimits> = {},
): Promise<StrategyProcess> {
  const all: SandboxLimits = { ...DEFAULT_SANDBOX_LIMITS, ...limits };
  checkLimits(all);
  const stubs = await pythonStubs(SYSTEM_PYTHON);
  const socketDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-strategy-sock-"));
  const child = spawnPythonStrategy(source, stubs, socketDir, {
    addressSpaceMb: all.addressSpaceMb,
    cpuSeconds: all.runCpuSeconds,
  });
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString("utf8")).slice(-STDERR_KEPT);
  });
  let ended = false;
  const cleanUp = (): void => fs.rmSync(socketDir, { recursive: true, force: true });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on("error", (error) => {
      stderr += `\nthe sandbox did not start: ${error.message}`;
      ended = true;
      cleanUp();
      resolve({ code: null, signal: null });
    });
    child.on("close", (code, signal) => {
      ended = true;
      cleanUp();
      resolve({ code, signal });
    });
  });
  return {
    socketPath: path.join(socketDir, SOCKET_NAME),
    exited,
    stderrTail: () => stderr.trim().split("\n").slice(-5).join("\n").slice(-1_000),
    kill: () => {
      if (!ended) child.kill("SIGKILL");
    },
  };
}
