import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "kysely";
import type { RunningPlatform } from "@svc/all-in-one";
import { call, createTestDatabase, startTestPlatform } from "../support/test-platform.js";
import { startRunnerProcess } from "../support/runner-process.js";
import {
  startPrivateNats,
  startPrivateRedis,
  type PrivateServer,
} from "../support/private-servers.js";
import { eventually } from "../support/until.js";
import { withDeadline } from "@svc/lib/deadline";

const as = (user: string) => ({ "x-svc-local-user": user });

// SVC_RUNNERS=external: sessions run in runner processes of their own, as pods would.
describe("paper sessions in a separate runner process", () => {
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
  });
  const startRunner = async () => {
    const child = await startRunnerProcess(env());
    runners.push(child);
    return child;
  };
  const bars = async () =>
    (
      await sql<{
        i: number;
      }>`select (data->>'index')::int as i from bots.bot_events where type = 'bar_received' order by seq`.execute(
        p.platform.db.db,
      )
    ).rows.map((r) => r.i);

  beforeAll(async () => {
    db = await createTestDatabase();
    redis = await startPrivateRedis();
    nats = await startPrivateNats();
    p = await startTestPlatform("postgres", { ...env(), SVC_RUNNERS: "external" });
  }, 60_000);
  afterAll(async () => {
    for (const r of runners) if (r.exitCode === null) r.kill("SIGKILL");
    await p?.close();
    await nats?.stop();
    await redis?.stop();
    await db?.drop();
  });

  it("a runner process runs the session, obeys halts and the kill switch, and hands over on shutdown", async () => {
    const bot = (
      await call(
        p.url,
        "POST",
        "/bots",
        {
          name: "remote",
          slug: "remote",
          kind: "trading",
          fleet: "far",
          strategy: { family: "ma_crossover", parameters: { fast: 3, slow: 8 } },
        },
        as("alice"),
      )
    ).body;
    await eventually(
      "the promotion service learns of the bot",
      () =>
        sql<{ n: number }>`select count(*)::int as n from promotion.known_bot_versions`.execute(
          p.platform.db.db,
        ),
      (r) => r.rows[0]!.n > 0,
    );
    await call(
      p.url,
      "POST",
      "/promotion/requests",
      {
        request_id: "remote-1",
        kind: "strategy",
        artifact: { bot_ref: "remote", version: 1, version_hash: bot.spec_hash },
        validation: { verdict: "PASS" },
        risk: { decision: "APPROVE" },
      },
      as("alice"),
    );
    const token = (await call(p.url, "POST", "/promotion/requests/remote-1/approve", {}, as("bob")))
      .body.approved_promotion;
    await eventually(
      "remote-1 is promoted",
      () => call(p.url, "GET", "/promotion/requests/remote-1"),
      (r) => r.body.status === "promoted",
    );

    const first = await startRunner();
    const started = await call(p.url, "POST", "/bots/remote/paper/start", {
      approved_promotion: token,
      speed: 100,
    });
    expect(started.status).toBe(202);
    expect(
      (await eventually("the runner process records 10 bars", bars, (b) => b.length >= 10)).length,
    ).toBeGreaterThanOrEqual(10);
    const host = await sql<{
      host: string;
    }>`select host from bots.bot_deployments where task_id = ${started.body.task_id}`.execute(
      p.platform.db.db,
    );
    expect(host.rows[0]!.host).toMatch(new RegExp(`:${first.pid}:`));

    // The kill switch reaches the runner process through its own watcher.
    await call(p.url, "PUT", "/kill-switches/far", {
      scope: "fleet",
      target: "far",
      mode: "cancel",
      reason: "remote drill",
    });
    expect(
      (
        await eventually(
          "the remote session halts",
          () => call(p.url, "GET", "/bots/remote/deployments"),
          (r) => r.body.items[0].status === "halted",
        )
      ).body.items[0].status,
    ).toBe("halted");
    await call(p.url, "DELETE", "/kill-switches/far");
    expect(
      (
        await eventually(
          "the remote session restarts",
          () => call(p.url, "GET", "/bots/remote/deployments"),
          (r) => r.body.items[0].status === "running",
        )
      ).body.items[0].status,
    ).toBe("running");

    // A graceful shutdown hands the session to the next runner, which continues from the next bar.
    first.kill("SIGTERM");
    await withDeadline(once(first, "exit"), 15_000, "the first runner's graceful shutdown");
    const before = (await bars()).length;
    await startRunner();
    const after = await eventually(
      "the new runner process records 10 more bars",
      bars,
      (b) => b.length >= before + 10,
    );
    expect(after).toEqual(Array.from({ length: after.length }, (_, i) => i));

    const halted = await call(p.url, "POST", "/bots/remote/halt", { reason: "end" });
    expect(halted.body.task_ids).toEqual([started.body.task_id]);
    const phases = await eventually(
      "the last phase recorded is Stopped",
      async () =>
        (
          await sql<{
            phase: string;
          }>`select data->>'phase' as phase from bots.bot_events where type = 'phase_changed' order by seq desc limit 1`.execute(
            p.platform.db.db,
          )
        ).rows[0]?.phase,
      (ph) => ph === "Stopped",
    );
    expect(phases).toBe("Stopped");
    // Its own time limit: two runner processes start here (tsx compiles each, up to ~10 s on a
    // loaded 2-core machine) besides the waits above, each with a deadline naming what it awaits.
  }, 60_000);
});
