import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";

/** What the supervisor runs: a TypeScript entry point under tsx, with its environment. */
export interface ChildSpec {
  name: string;
  entry: string;
  env: Record<string, string>;
}

/** A running child, in a process group of its own so a stop reaches whatever it started. */
export interface Child {
  spec: ChildSpec;
  proc: ChildProcess;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Starts `spec` as `node --import tsx <entry>` in its own process group, every line it prints
 * written to ours as `[name] line`, so one terminal reads the whole topology.
 */
export function startChild(
  spec: ChildSpec,
  cwd: string,
  onLine: (line: string) => void = () => {},
): Child {
  const proc = spawn(process.execPath, ["--import", "tsx", spec.entry], {
    cwd,
    env: { ...inherited(), ...spec.env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  const prefix = `[${spec.name}] `;
  createInterface({ input: proc.stdout! }).on("line", (l) => {
    process.stdout.write(prefix + l + "\n");
    onLine(l);
  });
  createInterface({ input: proc.stderr! }).on("line", (l) =>
    process.stderr.write(prefix + l + "\n"),
  );
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    proc.once("exit", (code, signal) => resolve({ code, signal })),
  );
  return { spec, proc, exited };
}

/**
 * SIGTERM to the child's whole group (a graceful close), SIGKILL to it after `graceMs`: a child
 * that hangs in its shutdown does not keep the supervisor, nor leave anything running.
 */
export async function stopChild(child: Child, graceMs: number): Promise<void> {
  if (child.proc.exitCode !== null || child.proc.signalCode !== null)
    return killGroup(child, "SIGKILL");
  killGroup(child, "SIGTERM");
  const timer = setTimeout(() => killGroup(child, "SIGKILL"), graceMs);
  await child.exited;
  clearTimeout(timer);
  // Anything the child started and left behind in its group goes with it.
  killGroup(child, "SIGKILL");
}

/** SIGKILL to the child's whole group: what a paused (SIGSTOP) or hung process cannot ignore. */
export function killChild(child: Child): void {
  killGroup(child, "SIGKILL");
}

function killGroup(child: Child, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.proc.pid!, signal);
  } catch {
    // ESRCH: the group is gone already.
  }
}

/**
 * Secrets that belong to one service: the topology hands each to its service alone (topology.ts),
 * so none reaches the other children by inheritance, where any of them, or a dump of its
 * environment, could sign leases or approvals.
 */
export const ONE_SERVICE_SECRETS = [
  "SVC_AUTH_LICENSE_LEASE_PRIVATE_KEY_PEM",
  "SVC_AUTH_LICENSE_LEASE_PRIVATE_KEY_PATH",
  "SVC_PROMOTION_SIGNING_KEY_PEM",
] as const;

/**
 * The supervisor's own environment less what is the supervisor's alone: its SVC_DISTRIBUTED_*
 * settings (a service refuses an SVC_* it does not know), a metrics port that every child would
 * try to bind, and the secrets of one service.
 */
function inherited(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  const oneService = new Set<string>(ONE_SERVICE_SECRETS);
  for (const key of Object.keys(env))
    if (key.startsWith("SVC_DISTRIBUTED_") || key === "SVC_METRICS_PORT" || oneService.has(key))
      delete env[key];
  return env;
}
