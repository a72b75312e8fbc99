import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const runnerMain = fileURLToPath(
  new URL("../../services/bots/src/runner/main.ts", import.meta.url),
);

/**
 * A runner process (`npm run runner -w services/bots`) with these settings; resolves once it says
 * it is ready, and fails saying why when it exits first or stays silent past `readyMs` (a test
 * must not hang on a process that never came up).
 */
export async function startRunnerProcess(
  env: Record<string, string>,
  readyMs = 30_000,
): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", runnerMain], {
    env: { ...process.env, ...env, SVC_LOG_LEVEL: "silent" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let timer: NodeJS.Timeout | undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      createInterface({ input: child.stdout! }).on(
        "line",
        (l) => l === "runner ready" && resolve(),
      );
      child.once("exit", (code, signal) =>
        reject(new Error(`the runner process exited (${signal ?? code}) before it was ready`)),
      );
      timer = setTimeout(() => {
        child.kill("SIGKILL");
        reject(new Error(`the runner process was not ready within ${readyMs} ms`));
      }, readyMs);
    });
  } finally {
    clearTimeout(timer);
  }
  return child;
}
