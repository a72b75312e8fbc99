import type { ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "kysely";
import type { RunningPlatform } from "@svc/all-in-one";
import { createTestDatabase, startTestPlatform } from "../support/test-platform.js";
import { startRunnerProcess } from "../support/runner-process.js";
import {
  startPrivateNats,
  startPrivateRedis,
  type PrivateServer,
} from "../support/private-servers.js";
import { approvedSession } from "../support/paper.js";
import { eventually } from "../support/until.js";

const LEASE_S = 3;

// Two runner processes; one is paused (SIGSTOP) past its lease, the other takes its sessions
// over, then the paused one resumes: the lease epoch fences it off, so nothing is traded twice.
describe("split brain: a paused runner that resumes never trades twice", () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let redis: PrivateServer;
  let nats: PrivateServer;
  let p: RunningPlatform;
  const runners: ChildProcess[] = [];
  const env = () => ({
    SVC_DATABASE_URL: db.url,
    SVC_NATS_URL: nats.url,
    SVC_REDIS_URL: redis.url,
    SVC_KILLSWITCH_POLL_INTERVAL_S: "1",
    SVC_RUNNER_LEASE_S: String(LEASE_S),
    SVC_DB_TIMEOUT_MS: "2000",
  });
  const startRunner = async () => {
    const child = await startRunnerProcess(env());
    runners.push(child);
    return child;
  };
  const q = <T>(query: ReturnType<typeof sql<T>>) =>
    query.execute(p.platform.db.db).then((r) => r.rows);
  const hosts = () =>
    q(
      sql<{
        task_id: string;
        host: string | null;
      }>`select task_id, host from bots.bot_deployments where target = 'paper' order by task_id`,
    );

  beforeAll(async () => {
    db = await createTestDatabase();
    redis = await startPrivateRedis();
    nats = await startPrivateNats();
    p = await startTestPlatform("postgres", { ...env(), SVC_RUNNERS: "external" });
  }, 60_000);
  afterAll(async () => {
    for (const r of runners) {
      if (r.exitCode === null) {
        r.kill("SIGCONT");
        r.kill("SIGKILL");
      }
    }
    await p?.close();
    await nats?.stop();
    await redis?.stop();
    await db?.drop();
  });

  it("fences the resumed holder: no bar index and no order id appears twice in any session", async () => {
    const first = await startRunner();
    const tasks = [
      await approvedSession(p, "split-a", "split", 40),
      await approvedSession(p, "split-b", "split", 40),
      await approvedSession(p, "split-c", "split", 40),
    ];
    await eventually(
      "the first runner holds every session",
      hosts,
      (rows) => rows.length === 3 && rows.every((r) => r.host?.includes(`:${first.pid}:`)),
      10_000,
    );
    const second = await startRunner();

    first.kill("SIGSTOP");
    await eventually(
      "the second runner takes every session over",
      hosts,
      (rows) => rows.every((r) => r.host?.includes(`:${second.pid}:`)),
      (LEASE_S + 10) * 1000,
    );
    const barsAt = async () =>
      (
        await q(
          sql<{
            n: number;
          }>`select count(*)::int as n from bots.bot_events where type = 'bar_received'`,
        )
      )[0]!.n;
    const before = await barsAt();
    await eventually(
      "the sessions go on under the second runner",
      barsAt,
      (n) => n >= before + 60,
      10_000,
    );

    first.kill("SIGCONT");
    // Give the resumed runner time to try: its timers fire at once, its pick-up runs every second.
    const resumedAt = await barsAt();
    await eventually(
      "bars keep coming after the resume",
      barsAt,
      (n) => n >= resumedAt + 120,
      15_000,
    );

    for (const task of tasks) {
      const bars = (
        await q(
          sql<{
            i: number;
          }>`select (data->>'index')::int as i from bots.bot_events where task_id = ${task} and type = 'bar_received' order by seq`,
        )
      ).map((r) => r.i);
      expect(new Set(bars).size, `bar indices of ${task}`).toBe(bars.length);
      expect(bars, `bars of ${task} run on without a gap`).toEqual(
        Array.from({ length: bars.length }, (_, i) => i),
      );
      const orders = (
        await q(
          sql<{
            id: string;
          }>`select data->>'order_id' as id from bots.bot_events where task_id = ${task} and type = 'order_placed'`,
        )
      ).map((r) => r.id);
      expect(new Set(orders).size, `order ids of ${task}`).toBe(orders.length);
    }
    expect((await hosts()).every((r) => r.host?.includes(`:${second.pid}:`))).toBe(true);
  }, 90_000);
});
