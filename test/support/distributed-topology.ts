import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { generate } from "otplib";
import { signIn } from "@svc/dev-idp";
import { MFA_ACR } from "@svc/lib/auth";

const root = fileURLToPath(new URL("../../", import.meta.url));
const API_AUDIENCE = "https://api.svc.local";

/** `npm run start:distributed` as a test runs it, and what it printed about itself. */
export interface Topology {
  gateway: string;
  issuer: string;
  /** The pid of each child, updated when the supervisor starts one again. */
  pids: Record<string, number>;
  supervisor: ChildProcess;
  /** Every pid any child ever had: none may be left once the supervisor exits. */
  everyPid(): number[];
  /** Resolves with the new pid once the supervisor says it started `name` again. */
  restarted(name: string): Promise<number>;
  /** A person's access token from the topology's provider, with the second factor when `mfa`. */
  token(user: "alice" | "bob" | "admin", mfa?: boolean): Promise<string>;
  /** SIGINT, as Ctrl-C, and the supervisor's exit code. */
  interrupt(): Promise<number | null>;
}

export interface TopologyUser {
  username: string;
  password: string;
  totpSecret: string;
}

/**
 * Starts the supervisor (`node --import tsx scripts/distributed/main.ts`) with `env` and resolves
 * once it prints its ready line; fails naming what it printed last when it exits first or stays
 * silent past `readyMs`.
 */
export async function startTopology(
  env: Record<string, string>,
  users: TopologyUser[],
  readyMs = 120_000,
): Promise<Topology> {
  const supervisor = spawn(process.execPath, ["--import", "tsx", "scripts/distributed/main.ts"], {
    cwd: root,
    env: {
      ...process.env,
      ...env,
      ...Object.fromEntries(
        users.flatMap((u) => [
          [`DEV_IDP_${u.username.toUpperCase()}_PASSWORD`, u.password],
          [`DEV_IDP_${u.username.toUpperCase()}_TOTP_SECRET`, u.totpSecret],
        ]),
      ),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const tail: string[] = [];
  const waiting = new Map<string, (pid: number) => void>();
  const seen = new Set<number>();
  let ready:
    ((t: { gateway: string; issuer: string; pids: Record<string, number> }) => void) | undefined;
  const pids: Record<string, number> = {};
  const onLine = (line: string) => {
    tail.push(line);
    if (tail.length > 40) tail.shift();
    const r = /^\[supervisor\] ready (.*)$/.exec(line);
    if (r) ready?.(JSON.parse(r[1]!));
    const again = /^\[supervisor\] restarted (\S+) pid (\d+)$/.exec(line);
    if (again) {
      pids[again[1]!] = Number(again[2]);
      seen.add(Number(again[2]));
      waiting.get(again[1]!)?.(Number(again[2]));
    }
  };
  createInterface({ input: supervisor.stdout! }).on("line", onLine);
  createInterface({ input: supervisor.stderr! }).on("line", (l) => {
    tail.push(l);
    if (tail.length > 40) tail.shift();
  });
  const exited = new Promise<number | null>((resolve) => supervisor.once("exit", resolve));
  let timer: NodeJS.Timeout | undefined;
  const info = await new Promise<{ gateway: string; issuer: string; pids: Record<string, number> }>(
    (resolve, reject) => {
      ready = resolve;
      void exited.then((code) =>
        reject(new Error(`the supervisor exited (${code}) before ready:\n${tail.join("\n")}`)),
      );
      timer = setTimeout(() => {
        supervisor.kill("SIGINT");
        reject(new Error(`the topology was not ready within ${readyMs} ms:\n${tail.join("\n")}`));
      }, readyMs);
    },
  ).finally(() => clearTimeout(timer));
  Object.assign(pids, info.pids);
  for (const pid of Object.values(info.pids)) seen.add(pid);

  const usedSteps = new Map<string, number>();
  const tokens = new Map<string, { token: string; at: number }>();
  return {
    gateway: info.gateway,
    issuer: info.issuer,
    pids,
    supervisor,
    everyPid: () => [...seen],
    restarted: (name) => new Promise((resolve) => waiting.set(name, resolve)),
    async token(username, mfa = false) {
      // A step-up token stays fresh 180 s: reused for 90, so a test never asks the provider for
      // more second-factor codes than it takes.
      const key = `${username}:${mfa}`;
      const hit = tokens.get(key);
      if (hit && Date.now() - hit.at < 90_000) return hit.token;
      const user = users.find((u) => u.username === username)!;
      const { accessToken } = await signIn({
        issuer: info.issuer,
        clientId: "svc-console",
        redirectUri: "http://127.0.0.1/auth/callback",
        username,
        password: user.password,
        resource: API_AUDIENCE,
        timeoutMs: 10_000,
        ...(mfa
          ? {
              acrValues: MFA_ACR,
              maxAge: 0,
              // The provider takes a code once: each sign-in uses a later step than the last.
              totp: async () => {
                const step = Math.max(
                  Math.floor(Date.now() / 30_000),
                  (usedSteps.get(username) ?? -1) + 1,
                );
                usedSteps.set(username, step);
                return generate({ secret: user.totpSecret, epoch: step * 30 });
              },
            }
          : {}),
      });
      tokens.set(key, { token: accessToken, at: Date.now() });
      return accessToken;
    },
    async interrupt() {
      if (supervisor.exitCode === null && supervisor.signalCode === null) supervisor.kill("SIGINT");
      return exited;
    },
  };
}

/** Whether a process with this pid still exists (a zombie of ours counts as gone). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
