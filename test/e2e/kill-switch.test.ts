import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "kysely";
import { createClient } from "redis";
import type { RunningPlatform } from "@svc/all-in-one";
import { until } from "../support/until.js";
import { call, startTestPlatform } from "../support/test-platform.js";
import {
  startPrivateNats,
  startPrivateRedis,
  type PrivateServer,
} from "../support/private-servers.js";

const as = (user: string) => ({ "x-svc-local-user": user });

async function approvedSession(p: RunningPlatform, slug: string, fleet: string): Promise<string> {
  const bot = (
    await call(
      p.url,
      "POST",
      "/bots",
      {
        name: slug,
        slug,
        kind: "trading",
        fleet,
        strategy: { family: "ma_crossover", parameters: { fast: 3, slow: 8 } },
      },
      as("alice"),
    )
  ).body;
  await until(
    () =>
      sql<{
        n: number;
      }>`select count(*)::int as n from promotion.known_bot_versions where slug = ${slug}`.execute(
        p.platform.db.db,
      ),
    (r) => r.rows[0]!.n > 0,
  );
  await until(
    () =>
      sql<{
        n: number;
      }>`select count(*)::int as n from killswitch.known_bots where slug = ${slug}`.execute(
        p.platform.db.db,
      ),
    (r) => r.rows[0]!.n > 0,
  );
  await call(
    p.url,
    "POST",
    "/promotion/requests",
    {
      request_id: `ks-${slug}`,
      kind: "strategy",
      artifact: { bot_ref: slug, version: 1, version_hash: bot.spec_hash },
      validation: { verdict: "PASS" },
      risk: { decision: "APPROVE" },
    },
    as("alice"),
  );
  const token = (await call(p.url, "POST", `/promotion/requests/ks-${slug}/approve`, {}, as("bob")))
    .body.approved_promotion;
  await until(
    () => call(p.url, "GET", `/promotion/requests/ks-${slug}`),
    (r) => r.body.status === "promoted",
  );
  const started = await call(p.url, "POST", `/bots/${slug}/paper/start`, {
    approved_promotion: token,
    speed: 20,
  });
  expect(started.status).toBe(202);
  return started.body.task_id;
}

const statusOf = async (p: RunningPlatform, slug: string) =>
  (await call(p.url, "GET", `/bots/${slug}/deployments`)).body.items[0].status as string;
const phaseOf = async (p: RunningPlatform, slug: string) =>
  (await call(p.url, "GET", `/bots/${slug}/state/snapshot`)).body.metrics.phase as string;

describe("the kill switch against a real Redis and NATS", () => {
  let p: RunningPlatform;
  let redis: PrivateServer;
  let nats: PrivateServer;
  const raw = () => createClient({ url: redis.url });

  beforeAll(async () => {
    redis = await startPrivateRedis();
    nats = await startPrivateNats();
    p = await startTestPlatform("pglite", {
      SVC_REDIS_URL: redis.url,
      SVC_NATS_URL: nats.url,
      SVC_KILLSWITCH_POLL_INTERVAL_S: "1",
    });
    for (const [slug, fleet] of [
      ["alpha-1", "alpha"],
      ["alpha-2", "alpha"],
      ["beta-1", "beta"],
    ] as const)
      await approvedSession(p, slug, fleet);
  }, 60_000);
  afterAll(async () => {
    await p?.close();
    await nats?.stop();
    await redis?.stop();
  });

  it("engages by resource with exact scope: the fleet drains and stops, the other fleet runs, release restarts", async () => {
    const t0 = Date.now();
    const applied = await call(p.url, "PUT", "/kill-switches/alpha-drill", {
      scope: "fleet",
      target: "alpha",
      mode: "cancel",
      reason: "drill",
    });
    expect(applied.status).toBe(200);
    expect(applied.body.status).toMatchObject({ engaged: true, engaged_by: "local|default" });
    await until(
      () => Promise.all([statusOf(p, "alpha-1"), statusOf(p, "alpha-2")]),
      (s) => s.every((x) => x === "halted"),
    );
    const drainMs = Date.now() - t0;
    expect(await statusOf(p, "alpha-1")).toBe("halted");
    expect(await statusOf(p, "alpha-2")).toBe("halted");
    expect(await phaseOf(p, "alpha-1")).toBe("Stopped");
    expect(await statusOf(p, "beta-1")).toBe("running");
    expect(drainMs).toBeLessThan(10_000);
    const detail = await call(p.url, "GET", "/bots/alpha-1");
    expect(detail.body.runtime).toEqual({
      phase: "Stopped",
      killSwitchEngaged: true,
      killSwitchReason: "svc:bots:killswitch:fleet:alpha: drill",
    });
    expect((await call(p.url, "GET", "/bots/beta-1")).body.runtime).toEqual({
      phase: "Running",
      killSwitchEngaged: false,
      killSwitchReason: "",
    });
    const key = await (async () => {
      const c = raw();
      await c.connect();
      const v = await c.get("svc:bots:killswitch:fleet:alpha");
      await c.quit();
      return v;
    })();
    expect(JSON.parse(key!)).toMatchObject({
      name: "alpha-drill",
      mode: "cancel",
      reason: "drill",
    });
    const audit = await sql<{
      event_type: string;
    }>`select event_type from killswitch.security_audit_events order by id`.execute(
      p.platform.db.db,
    );
    expect(audit.rows.map((r) => r.event_type)).toContain("killswitch.engaged");

    expect((await call(p.url, "DELETE", "/kill-switches/alpha-drill")).body).toEqual({
      name: "alpha-drill",
      released: true,
    });
    await until(
      () => Promise.all([statusOf(p, "alpha-1"), statusOf(p, "alpha-2")]),
      (s) => s.every((x) => x === "running"),
    );
    expect(await statusOf(p, "alpha-1")).toBe("running");
    expect(await phaseOf(p, "alpha-1")).toBe("Running");
  });

  it("a key set by hand with a plain Redis client halts like the API, and the API shows it", async () => {
    const c = raw();
    await c.connect();
    await c.set("svc:bots:killswitch:bot:beta-1", "operator pulled it");
    await until(
      () => statusOf(p, "beta-1"),
      (s) => s === "halted",
      5_000,
    );
    expect(await statusOf(p, "beta-1")).toBe("halted");
    const listed = await call(p.url, "GET", "/kill-switches");
    expect(listed.body.items).toContainEqual(
      expect.objectContaining({
        metadata: { name: "kv-bot-beta-1" },
        spec: expect.objectContaining({
          scope: "bot",
          target: "beta-1",
          reason: "operator pulled it",
        }),
        status: expect.objectContaining({ engaged: true }),
      }),
    );
    await c.del("svc:bots:killswitch:bot:beta-1");
    await c.quit();
    await until(
      () => statusOf(p, "beta-1"),
      (s) => s === "running",
      5_000,
    );
    expect(await statusOf(p, "beta-1")).toBe("running");
  });

  it("releases itself when its TTL elapses", async () => {
    await call(p.url, "PUT", "/kill-switches/short", {
      scope: "bot",
      target: "alpha-1",
      mode: "freeze",
      reason: "brief",
      ttl: "2s",
    });
    await until(
      () => statusOf(p, "alpha-1"),
      (s) => s === "halted",
    );
    expect(await statusOf(p, "alpha-1")).toBe("halted");
    await until(
      () => statusOf(p, "alpha-1"),
      (s) => s === "running",
      8_000,
    );
    expect(await statusOf(p, "alpha-1")).toBe("running");
    expect(
      (
        await until(
          () => call(p.url, "GET", "/kill-switches/short"),
          (r) => r.status === 404,
          3_000,
        )
      ).status,
    ).toBe(404);
  });

  it("refuses bad input naming the field, and engages nothing", async () => {
    const put = (name: string, spec: object) => call(p.url, "PUT", `/kill-switches/${name}`, spec);
    expect(
      (await put("x", { scope: "galaxy", target: "a", mode: "cancel" })).body.error.details.allowed,
    ).toEqual(["bot", "fleet", "platform"]);
    expect(
      (await put("x", { scope: "bot", target: "alpha-1", mode: "explode" })).body.error.details
        .allowed,
    ).toEqual(["cancel", "flatten", "freeze"]);
    const platform = await put("x", { scope: "platform", target: "alpha", mode: "cancel" });
    // The body is the spec itself, so fields are named from its root.
    expect([platform.status, platform.body.error.details.field]).toEqual([400, "target"]);
    for (const ttl of ["5x", "-1h"])
      expect(
        (await put("x", { scope: "bot", target: "alpha-1", mode: "cancel", ttl })).body.error
          .details.field,
      ).toBe("ttl");
    const unknown = await put("x", { scope: "bot", target: "no-such-bot", mode: "cancel" });
    expect([unknown.status, unknown.body.error.message]).toEqual([
      400,
      'no bot with slug "no-such-bot"',
    ]);
    expect((await call(p.url, "GET", "/kill-switches")).body.items).toEqual([]);
  });

  it("a drill engages the platform scope, times every bot to Draining and Stopped, and sees them restart", async () => {
    const drill = await call(p.url, "POST", "/kill-switch/drills", { reason: "quarterly drill" });
    expect(drill.status).toBe(201);
    expect(drill.body).toMatchObject({ bots: 3, all_restarted: true });
    expect(drill.body.draining_max_ms).toBeLessThan(10_000);
    expect(drill.body.stopped_max_ms).toBeLessThan(30_000);
    for (const slug of ["alpha-1", "alpha-2", "beta-1"])
      expect(await statusOf(p, slug)).toBe("running");
    const listed = await call(p.url, "GET", "/kill-switch/drills");
    expect(listed.body.items[0].id).toBe(drill.body.id);
  });

  it("the REST fan-out halts each class of running work", async () => {
    const routes = [
      "/agents/halt",
      "/quant-agents/halt",
      "/paper/stop-all",
      "/bots/halt-all",
      "/rl/halt-all",
      "/workflows/halt",
    ];
    const answers = await Promise.all(
      routes.map((r) => call(p.url, "POST", r, { reason: "platform drill" })),
    );
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(answers[2]!.body).toMatchObject({ scope: "paper sessions" });
    const halted = answers[2]!.body.halted + answers[3]!.body.halted;
    expect(halted).toBe(3);
    for (const slug of ["alpha-1", "alpha-2", "beta-1"])
      expect(await statusOf(p, slug)).toBe("halted");
  });
});

describe("fallbacks: polling without NATS, fail-safe without both", () => {
  it("halts by polling alone when NATS is down, and freezes when Redis is down too", async () => {
    const redis = await startPrivateRedis();
    const nats = await startPrivateNats();
    const p = await startTestPlatform("pglite", {
      SVC_REDIS_URL: redis.url,
      SVC_NATS_URL: nats.url,
      SVC_KILLSWITCH_POLL_INTERVAL_S: "1",
    });
    try {
      await approvedSession(p, "lonely", "solo");
      await nats.stop();
      const c = createClient({ url: redis.url });
      await c.connect();
      const t0 = Date.now();
      await c.set("svc:bots:killswitch:platform:platform", "no bus");
      await until(
        () => statusOf(p, "lonely"),
        (s) => s === "halted",
        5_000,
      );
      expect(await statusOf(p, "lonely")).toBe("halted");
      expect(Date.now() - t0).toBeLessThan(1_000 + 1_500);
      await c.del("svc:bots:killswitch:platform:platform");
      await until(
        () => statusOf(p, "lonely"),
        (s) => s === "running",
        5_000,
      );
      await c.quit();
      await redis.stop();
      const frozen = await until(
        async () =>
          (
            await sql<{
              n: number;
            }>`select count(*)::int as n from bots.bot_events where type = 'fail_safe' and data->>'frozen' = 'true'`.execute(
              p.platform.db.db,
            )
          ).rows[0]!.n,
        (n) => n > 0,
        8_000,
      );
      expect(frozen).toBe(1);
    } finally {
      await p.close().catch(() => undefined);
    }
  }, 40_000);
});
