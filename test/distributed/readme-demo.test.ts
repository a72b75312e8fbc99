import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTopology, type Topology } from "../support/distributed-topology.js";
import { startPrivatePostgres, type PrivatePostgres } from "../support/private-postgres.js";
import {
  freePort,
  startPrivateNats,
  startPrivateRedis,
  type PrivateServer,
} from "../support/private-servers.js";
import { brokenPromise, demoCommands, type DemoCommand } from "../support/readme-demo.js";

const root = fileURLToPath(new URL("../../", import.meta.url));
const commands = demoCommands(readFileSync(`${root}README.md`, "utf8"));
const DEMO_MS = 120_000;

// The README's checked demo, pasted into bash as written, against `npm run start:distributed`
// under local auth (loopback only): every service, a runner and the gateway in processes of
// their own, on a Postgres, NATS and Redis of this test.
describe("the README demo against the distributed topology", () => {
  let postgres: PrivatePostgres;
  let nats: PrivateServer;
  let redis: PrivateServer;
  let t: Topology;
  let outputs: { command: DemoCommand; output: string }[] = [];

  beforeAll(async () => {
    postgres = await startPrivatePostgres();
    const base = new pg.Client({ connectionString: postgres.url });
    await base.connect();
    await base.query("create database svc_demo");
    await base.end();
    [nats, redis] = await Promise.all([startPrivateNats(), startPrivateRedis()]);
    t = await startTopology(
      {
        SVC_AUTH_PROVIDER: "local",
        SVC_PORT: String(await freePort()),
        SVC_DATABASE_URL: Object.assign(new URL(postgres.url), {
          pathname: "/svc_demo",
        }).toString(),
        SVC_NATS_URL: nats.url,
        SVC_REDIS_URL: redis.url,
        SVC_KILLSWITCH_POLL_INTERVAL_S: "1",
        SVC_LOG_LEVEL: "warn",
      },
      [],
    );
    outputs = await runInBash(commands, new URL(t.gateway).port);
  }, 150_000 + DEMO_MS);
  afterAll(async () => {
    await t?.interrupt();
    await Promise.all([nats?.stop(), redis?.stop()]);
    await postgres?.stop();
  }, 60_000);

  it("keeps every promise the README makes", () => {
    expect(outputs.length).toBe(commands.length);
    const broken = outputs
      .filter(({ command }) => command.promise)
      .map(({ command, output }) => {
        const why = brokenPromise(command.promise!, output);
        return (
          why &&
          `README line ${command.line}: ${command.shell.split("\n")[0]}\n  ${why}\n  printed: ${output.slice(0, 600)}`
        );
      })
      .filter(Boolean);
    expect(broken).toEqual([]);
  });
});

/** The commands in one bash (variables carry over), each one's output cut at a marker. */
async function runInBash(
  list: DemoCommand[],
  port: string,
): Promise<{ command: DemoCommand; output: string }[]> {
  const marker = "@@demo-command";
  const script = [
    "set -e",
    ...list.map((c, i) => `printf '\\n${marker} ${i}\\n'\n${c.shell}`),
    `printf '\\n${marker} end\\n'`,
  ].join("\n");
  const child = spawn("bash", ["-c", script], {
    cwd: root,
    env: { ...process.env, SVC_PORT: port },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  // The demo's own `until` loops wait on conditions: a deadline keeps a broken one from hanging CI.
  const timer = setTimeout(() => child.kill("SIGKILL"), DEMO_MS);
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  clearTimeout(timer);
  const pieces = stdout.split(new RegExp(`^${marker} `, "m")).slice(1);
  const last = pieces.at(-1)?.trim();
  if (code !== 0 || last !== "end") {
    const stoppedAt = list[Number(last?.split("\n")[0])];
    throw new Error(
      `the demo stopped (exit ${code}) at README line ${stoppedAt?.line}: ${stoppedAt?.shell}\n${stderr.slice(-2000)}\n${stdout.slice(-2000)}`,
    );
  }
  return pieces.slice(0, -1).map((piece) => {
    const newline = piece.indexOf("\n");
    return { command: list[Number(piece.slice(0, newline))]!, output: piece.slice(newline + 1) };
  });
}
