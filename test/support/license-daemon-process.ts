import { spawn } from "node:child_process";
import { fileURLToPath, pathToFileURL } from "node:url";

const MAIN = fileURLToPath(
  new URL("../../services/identity/src/license-daemon/main.ts", import.meta.url),
);
const ROOT = fileURLToPath(new URL("../..", import.meta.url));

export interface DaemonRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  /** The JSON log lines, parsed. */
  logs: Array<{ level: number; msg: string } & Record<string, unknown>>;
}

/**
 * Runs svc-license-daemon as its own process, as an operator would, with the given settings;
 * `prefix` runs it under another program (faketime), `preload` adds an --import module.
 */
export function runDaemon(
  args: string[],
  env: Record<string, string>,
  opts: { prefix?: string[]; preload?: string } = {},
): Promise<DaemonRun> {
  const nodeArgs = [
    ...(opts.preload ? ["--import", pathToFileURL(opts.preload).href] : []),
    "--import",
    "tsx",
    MAIN,
    ...args,
  ];
  const [cmd, ...cmdArgs] = opts.prefix
    ? [...opts.prefix, process.execPath, ...nodeArgs]
    : [process.execPath, ...nodeArgs];
  const child = spawn(cmd!, cmdArgs, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => {
      const logs = stdout
        .split("\n")
        .filter((l) => l.startsWith("{"))
        .map((l) => JSON.parse(l))
        .filter((l) => typeof l.msg === "string");
      if (stderr.trim() && code !== 0 && signal === null)
        logs.push({ level: 60, msg: `stderr: ${stderr.trim()}` });
      resolve({ code, signal, stdout, logs });
    });
  });
}

/** Runs the long-lived daemon until `stopWhen` sees enough log lines (or `ms` pass), then stops it. */
export function runDaemonUntil(
  env: Record<string, string>,
  stopWhen: (logs: DaemonRun["logs"]) => boolean,
  ms = 20_000,
): Promise<DaemonRun> {
  const child = spawn(process.execPath, ["--import", "tsx", MAIN, "run"], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  const logs: DaemonRun["logs"] = [];
  const deadline = setTimeout(() => child.kill("SIGTERM"), ms);
  child.stdout.on("data", (d: Buffer) => {
    stdout += d;
    const lines = stdout.split("\n");
    stdout = lines.pop()!;
    for (const l of lines) if (l.startsWith("{")) logs.push(JSON.parse(l));
    if (stopWhen(logs)) child.kill("SIGTERM");
  });
  return new Promise((resolve) => {
    child.on("close", (code, signal) => {
      clearTimeout(deadline);
      resolve({ code, signal, stdout, logs });
    });
  });
}
