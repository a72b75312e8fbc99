import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const runnerMain = fileURLToPath(
  new URL("../../services/bots/src/runner/main.ts", import.meta.url),
);

/** A runner process (`npm run runner -w services/bots`) with these settings; resolves once it says it is ready. */
export async function startRunnerProcess(env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", runnerMain], {
    env: { ...process.env, ...env, SVC_LOG_LEVEL: "silent" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  await new Promise<void>((resolve) =>
    createInterface({ input: child.stdout! }).on("line", (l) => l === "runner ready" && resolve()),
  );
  return child;
}
