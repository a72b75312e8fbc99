import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../../", import.meta.url));

/** A process tree the bench started, and how to end it. */
export interface Started {
  url: string;
  issuer?: string;
  stop(): Promise<void>;
}

function lines(child: ChildProcess, on: (l: string) => void): void {
  createInterface({ input: child.stdout! }).on("line", on);
  createInterface({ input: child.stderr! }).on("line", () => {});
}

function stopper(child: ChildProcess): () => Promise<void> {
  return () =>
    new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once("exit", () => resolve());
      child.kill("SIGINT");
    });
}

/** `npm run start:distributed` with `env`; resolves on its ready line. */
export function startDistributed(env: Record<string, string>): Promise<Started> {
  const child = spawn(process.execPath, ["--import", "tsx", "scripts/distributed/main.ts"], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`the supervisor exited (${code}) before ready`)));
    lines(child, (l) => {
      const m = /^\[supervisor\] ready (.*)$/.exec(l);
      if (!m) return;
      const info = JSON.parse(m[1]!) as { gateway: string; issuer: string };
      resolve({ url: info.gateway, issuer: info.issuer, stop: stopper(child) });
    });
  });
}

/** The all-in-one process from its sources with `env`; resolves once /readyz answers. */
export async function startAllInOne(env: Record<string, string>, port: number): Promise<Started> {
  const child = spawn(process.execPath, ["--import", "tsx", "all-in-one/src/main.ts"], {
    cwd: root,
    env: { ...process.env, ...env, SVC_PORT: String(port) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  lines(child, () => {});
  const url = `http://127.0.0.1:${port}`;
  const end = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`the all-in-one process exited (${child.exitCode})`);
    const ok = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2_000) })
      .then((r) => r.ok)
      .catch(() => false);
    if (ok) return { url, stop: stopper(child) };
    if (Date.now() > end) throw new Error("the all-in-one process was not ready within 120 s");
    await new Promise((r) => setTimeout(r, 250));
  }
}
