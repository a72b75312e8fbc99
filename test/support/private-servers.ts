import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A free loopback port. */
export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export async function waitForPort(port: number): Promise<void> {
  const { connect } = await import("node:net");
  for (let i = 0; i < 100; i++) {
    const ok = await new Promise<boolean>((resolve) => {
      const c = connect(port, "127.0.0.1", () => {
        c.end();
        resolve(true);
      });
      c.on("error", () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`nothing listens on ${port}`);
}

/**
 * A NATS (JetStream) or Redis server of the test's own on a free port, so a test can stop it to
 * see what the platform does without it, without disturbing the shared servers.
 */
export interface PrivateServer {
  url: string;
  stop(): Promise<void>;
  /** SIGSTOP: the server hangs with its connections open, as a frozen VM or a stuck disk does. */
  pause(): void;
  /** SIGCONT after a pause. */
  resume(): void;
}

function controls(proc: ChildProcess, url: string, after?: () => void): PrivateServer {
  return {
    url,
    stop: () => {
      if (!exited(proc)) proc.kill("SIGCONT");
      return kill(proc, after);
    },
    pause: () => void proc.kill("SIGSTOP"),
    resume: () => void proc.kill("SIGCONT"),
  };
}

/** A NATS server that can also go down and come back on its port with its JetStream store. */
export interface PrivateNats extends PrivateServer {
  /** Stops the server (SIGTERM, as an orderly restart does), keeping its store. */
  down(): Promise<void>;
  /** Starts it again on the same port and store. */
  up(): Promise<void>;
}

export async function startPrivateNats(): Promise<PrivateNats> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "svc-nats-"));
  const launch = async () => {
    const p = spawn("nats-server", ["-a", "127.0.0.1", "-p", String(port), "-js", "-sd", dir], {
      stdio: "ignore",
    });
    await waitForPort(port);
    return p;
  };
  let proc = await launch();
  const url = `nats://127.0.0.1:${port}`;
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  return {
    url,
    stop: () => controls(proc, url, removeDir).stop(),
    pause: () => void proc.kill("SIGSTOP"),
    resume: () => void proc.kill("SIGCONT"),
    down: () =>
      new Promise<void>((resolve) => {
        if (exited(proc)) return resolve();
        proc.once("exit", () => resolve());
        proc.kill("SIGTERM");
      }),
    async up() {
      proc = await launch();
    },
  };
}

export async function startPrivateRedis(): Promise<PrivateServer> {
  const port = await freePort();
  const proc = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    { stdio: "ignore" },
  );
  await waitForPort(port);
  return controls(proc, `redis://127.0.0.1:${port}`);
}

function kill(proc: ChildProcess, after: () => void = () => {}): Promise<void> {
  return new Promise((resolve) => {
    // A process ended by a signal keeps exitCode null: stopping it twice must not wait for an exit that happened.
    if (exited(proc)) return resolve(after());
    proc.once("exit", () => resolve(after()));
    proc.kill("SIGKILL");
  });
}

function exited(proc: ChildProcess): boolean {
  return proc.exitCode !== null || proc.signalCode !== null;
}
