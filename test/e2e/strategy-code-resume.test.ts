import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "kysely";
import type { RunningPlatform } from "@svc/all-in-one";
import { withDeadline } from "@svc/lib/deadline";
import { approvedSession } from "../support/paper.js";
import {
  startPrivateNats,
  startPrivateRedis,
  type PrivateServer,
} from "../support/private-servers.js";
import { startRunnerProcess } from "../support/runner-process.js";
import { COUNTER_STRATEGY, createCodeBot } from "../support/strategy-code.js";
import { createTestDatabase, startTestPlatform } from "../support/test-platform.js";
import { eventually } from "../support/until.js";

// A runner process killed outright (SIGKILL: no shutdown, no hand-over) while it runs a code
// strategy's paper session: the next runner takes the session over once the lease lapses, and
// the strategy resumes from the state kept with the last bar recorded.
describe("a code strategy's paper session resumes after its runner process is killed", () => {
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
    SVC_RUNNER_LEASE_S: "3",
  });
  const rows = async (type: string) =>
    (
      await sql<{
        data: Record<string, unknown> & { fields?: { seen: number } };
      }>`select data from bots.bot_events where type = ${type} order by seq`.execute(
        p.platform.db.db,
      )
    ).rows.map((r) => r.data);

  beforeAll(async () => {
    db = await createTestDatabase();
    redis = await startPrivateRedis();
    nats = await startPrivateNats();
    p = await startTestPlatform("postgres", { ...env(), SVC_RUNNERS: "external" });
    await createCodeBot(p.url, "Warm Up");
  }, 90_000);
  afterAll(async () => {
    for (const r of runners) if (r.exitCode === null) r.kill("SIGKILL");
    await p?.close();
    await nats?.stop();
    await redis?.stop();
    await db?.drop();
  });

  it("ctx.state is restored, init runs again, and no bar is missed or seen twice", async () => {
    const first = await startRunnerProcess(env());
    runners.push(first);
    await approvedSession(p, "code-resume", "resume-fleet", 20, {
      strategy: { code: { files: [{ path: "strategy.ts", content: COUNTER_STRATEGY }] } },
    });
    await eventually(
      "the first runner records 15 bars",
      () => rows("bar_received"),
      (b) => b.length >= 15,
      60_000,
    );
    first.kill("SIGKILL");
    await withDeadline(once(first, "exit"), 10_000, "the killed runner's exit");
    const before = (await rows("bar_received")).length;

    runners.push(await startRunnerProcess(env()));
    const bars = await eventually(
      "the second runner takes the session over and records 10 more bars",
      () => rows("bar_received"),
      (b) => b.length >= before + 10,
      60_000,
    );
    expect(bars.map((b) => b.index)).toEqual(Array.from({ length: bars.length }, (_, i) => i));

    const logs = await rows("strategy_log");
    const inits = logs.filter((l) => l.message === "init");
    // init ran again on resume, with ctx.state as of the last bar the first runner recorded.
    expect(inits.map((l) => l.fields!.seen)).toEqual([0, before]);
    const counted = logs.filter((l) => l.message === "bar").map((l) => l.fields!.seen);
    expect(counted.slice(0, bars.length)).toEqual(
      Array.from({ length: bars.length }, (_, i) => i + 1),
    );
    // Each line carries the time of the bar it was written at.
    for (const l of logs.filter((x) => x.message === "bar").slice(0, bars.length))
      expect(l.time).toBe(bars[l.fields!.seen - 1]!.time);
  }, 180_000);
});
