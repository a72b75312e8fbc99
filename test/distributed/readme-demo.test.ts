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
import {
  brokenPromises,
  demoCommands,
  runDemoInBash,
  type DemoOutput,
} from "../support/readme-demo.js";

const root = fileURLToPath(new URL("../../", import.meta.url));
const commands = demoCommands(readFileSync(`${root}README.md`, "utf8"));
// Only stops a hung demo: the same bound as the all-in-one run's (test/e2e/readme-demo.test.ts).
const DEMO_MS = 300_000;

// The README's checked demo, pasted into bash as written, against `npm run start:distributed`
// under local auth (loopback only): every service, a runner and the gateway in processes of
// their own, on a Postgres, NATS and Redis of this test.
describe("the README demo against the distributed topology", () => {
  let postgres: PrivatePostgres;
  let nats: PrivateServer;
  let redis: PrivateServer;
  let t: Topology;
  let outputs: DemoOutput[] = [];

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
    outputs = await runDemoInBash(commands, {
      cwd: root,
      port: new URL(t.gateway).port,
      deadlineMs: DEMO_MS,
    });
  }, 150_000 + DEMO_MS);
  afterAll(async () => {
    await t?.interrupt();
    await Promise.all([nats?.stop(), redis?.stop()]);
    await postgres?.stop();
  }, 60_000);

  it("keeps every promise the README makes", () => {
    expect(outputs.length).toBe(commands.length);
    expect(brokenPromises(outputs)).toEqual([]);
  });
});
