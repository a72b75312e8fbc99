import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { sql } from "kysely";
import { createClient } from "redis";
import type { RunningPlatform } from "@svc/all-in-one";
import { approvedSession, phaseOf, statusOf } from "../support/paper.js";
import { eventually } from "../support/until.js";
import { call, startTestPlatform } from "../support/test-platform.js";
import {
  startPrivateNats,
  startPrivateRedis,
  type PrivateServer,
} from "../support/private-servers.js";

/** SVC_KILLSWITCH_POLL_INTERVAL_S in these tests, in milliseconds. */
const POLL_INTERVAL_MS = 1_000;
/** The spec: a running bot reaches Draining within 10 seconds of a kill switch in a drill. */
const SPEC_DRAIN_MS = 10_000;
/** The spec: Draining completes (Stopped) within 30 seconds for high-frequency bots. */
const SPEC_STOP_MS = 30_000;

describe("the kill switch against a real Redis and NATS", () => {
  let p: RunningPlatform;
  let redis: PrivateServer;
  let nats: PrivateServer;
  const raw = () => createClient({ url: redis.url });
  const bots = [
    ["alpha-1", "alpha"],
    ["alpha-2", "alpha"],
    ["beta-1", "beta"],
  ] as const;

  beforeAll(async () => {
    redis = await startPrivateRedis();
    nats = await startPrivateNats();
    p = await startTestPlatform("pglite", {
      SVC_REDIS_URL: redis.url,
      SVC_NATS_URL: nats.url,
      SVC_KILLSWITCH_POLL_INTERVAL_S: String(POLL_INTERVAL_MS / 1_000),
    });
    for (const [slug, fleet] of bots) await approvedSession(p, slug, fleet);
  }, 60_000);
  // Each test leaves what it found: no switch engaged (a key set by hand included) and every bot
  // running, even when it failed half-way, so that one failure never shows up as another.
  afterEach(async () => {
    const listed = await call(p.url, "GET", "/kill-switches");
    for (const s of (listed.body?.items ?? []) as { metadata: { name: string } }[])
      await call(p.url, "DELETE", `/kill-switches/${s.metadata.name}`);
    await eventually(
      "no switch is left engaged and every bot runs again",
      async () => ({
        switches: (await call(p.url, "GET", "/kill-switches")).body.items.length as number,
        statuses: await Promise.all(bots.map(([slug]) => statusOf(p, slug))),
      }),
      (s) => s.switches === 0 && s.statuses.every((x) => x === "running"),
    );
  });
  afterAll(async () => {
    await p?.close();
    await nats?.stop();
    await redis?.stop();
  });

  it("engages by resource with exact scope: the fleet drains and stops, the other fleet runs, release restarts", async () => {
    const applied = await call(p.url, "PUT", "/kill-switches/alpha-drill", {
      scope: "fleet",
      target: "alpha",
      mode: "cancel",
      reason: "drill",
    });
    expect(applied.status).toBe(200);
    expect(applied.body.status).toMatchObject({ engaged: true, engaged_by: "local|default" });
    await eventually(
      "the alpha fleet halts",
      () => Promise.all([statusOf(p, "alpha-1"), statusOf(p, "alpha-2")]),
      (s) => s.every((x) => x === "halted"),
      SPEC_DRAIN_MS,
    );
    expect(await statusOf(p, "alpha-1")).toBe("halted");
    expect(await statusOf(p, "alpha-2")).toBe("halted");
    expect(await phaseOf(p, "alpha-1")).toBe("Stopped");
    expect(await statusOf(p, "beta-1")).toBe("running");
    const detail = await call(p.url, "GET", "/bots/alpha-1");
    expect(detail.body.runtime).toEqual({
      phase: "Stopped",
      kill_switch_engaged: true,
      kill_switch_reason: "svc:bots:killswitch:fleet:alpha: drill",
    });
    expect((await call(p.url, "GET", "/bots/beta-1")).body.runtime).toEqual({
      phase: "Running",
      kill_switch_engaged: false,
      kill_switch_reason: "",
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
    await eventually(
      "the engagement reaches the platform's audit trail",
      async () =>
        (await call(p.url, "GET", "/admin/audit-events?resource=kill_switch%2Falpha-drill")).body
          .items as Array<{ action: string }>,
      (items) => items.some((e) => e.action === "killswitch.engaged"),
    );

    expect((await call(p.url, "DELETE", "/kill-switches/alpha-drill")).body).toEqual({
      name: "alpha-drill",
      released: true,
    });
    await eventually(
      "the alpha fleet restarts on release",
      () => Promise.all([statusOf(p, "alpha-1"), statusOf(p, "alpha-2")]),
      (s) => s.every((x) => x === "running"),
    );
    expect(await phaseOf(p, "alpha-1")).toBe("Running");
  });

  it("a key set by hand with a plain Redis client halts like the API, and the API shows it", async () => {
    const c = raw();
    await c.connect();
    await c.set("svc:bots:killswitch:bot:beta-1", "operator pulled it");
    // Nothing broadcasts a key set by hand: the watcher's poll finds it.
    await eventually(
      "beta-1 halts on the key set by hand",
      () => statusOf(p, "beta-1"),
      (s) => s === "halted",
      POLL_INTERVAL_MS + SPEC_DRAIN_MS,
    );
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
    await eventually(
      "beta-1 restarts once the key is deleted by hand",
      () => statusOf(p, "beta-1"),
      (s) => s === "running",
    );
  });

  it("releases itself when its TTL elapses", async () => {
    const engaged = await call(p.url, "PUT", "/kill-switches/short", {
      scope: "bot",
      target: "alpha-1",
      mode: "freeze",
      reason: "brief",
      ttl: "2s",
    });
    expect(engaged.status).toBe(200);
    await eventually(
      "alpha-1 halts",
      () => statusOf(p, "alpha-1"),
      (s) => s === "halted",
      SPEC_DRAIN_MS,
    );
    // Within the default bound: the 2 s TTL, then the reconciler's pass (every second) or the
    // key's own expiry seen by the next poll.
    await eventually(
      "alpha-1 restarts once the TTL elapses",
      () => statusOf(p, "alpha-1"),
      (s) => s === "running",
    );
    await eventually(
      "the lapsed switch is gone",
      () => call(p.url, "GET", "/kill-switches/short"),
      (r) => r.status === 404,
    );
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

  it("a drill engages the platform scope, times every bot to Draining and Stopped, judges them against the spec's bounds, and sees them restart", async () => {
    const started = await call(p.url, "POST", "/kill-switch/drills", { reason: "quarterly drill" });
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({ state: "running", bots: 3 });
    // The spec's bounds are the defaults: these bots set no high_frequency and trade no sub-minute bars.
    for (const b of started.body.per_bot)
      expect(b).toMatchObject({
        high_frequency: false,
        draining_bound_ms: SPEC_DRAIN_MS,
        stopped_bound_ms: 300_000,
      });
    // Every bot stops well inside its bound, so the drill ends without waiting it out.
    const drill = await eventually(
      "the drill is judged",
      async () => (await call(p.url, "GET", `/kill-switch/drills/${started.body.id}`)).body,
      (d) => d.state !== "running",
      SPEC_STOP_MS,
    );
    expect(drill).toMatchObject({
      state: "finished",
      verdict: "pass",
      bots: 3,
      all_restarted: true,
    });
    expect(drill.draining_max_ms).toBeLessThan(SPEC_DRAIN_MS);
    expect(drill.stopped_max_ms).toBeLessThan(SPEC_STOP_MS);
    expect(drill.per_bot.map((b: { verdict: string }) => b.verdict)).toEqual([
      "pass",
      "pass",
      "pass",
    ]);
    for (const [slug] of bots) expect(await statusOf(p, slug)).toBe("running");
    const listed = await call(p.url, "GET", "/kill-switch/drills");
    expect(listed.body.items[0].id).toBe(started.body.id);
  });
});

describe("the REST fan-out", () => {
  let p: RunningPlatform;
  beforeAll(async () => {
    p = await startTestPlatform("pglite");
  }, 60_000);
  afterAll(async () => {
    await p?.close();
  });

  it("halts each class of running work: every paper session, and a backtest another process runs", async () => {
    const sessions = [
      await approvedSession(p, "fan-1", "fan"),
      await approvedSession(p, "fan-2", "fan"),
    ];
    const botId = (await call(p.url, "GET", "/bots/fan-1")).body.id as string;
    // Another live process holds it (its lease is fresh): only its row can tell it to stop.
    await sql`insert into bots.bot_deployments (id, bot_id, version, target, status, task_id, request, host, host_seen_at)
      values (gen_random_uuid(), ${botId}, 1, 'backtest', 'running', 'bt-fan',
              ${JSON.stringify({ data_source: "synthetic:3", start: null, end: null })},
              'elsewhere:7:bt-live', now())`.execute(p.platform.db.db);
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
    expect(answers.map((a) => a.status)).toEqual(routes.map(() => 200));
    // The routes overlap and run at once, so which one names a task varies; together they name
    // every running task once.
    const named = answers.flatMap((a) => (a.body.task_ids ?? a.body.ids ?? []) as string[]);
    expect(named.sort()).toEqual([...sessions, "bt-fan"].sort());
    const rows = await sql<{
      task_id: string;
      status: string;
    }>`select task_id, status from bots.bot_deployments order by task_id`.execute(p.platform.db.db);
    expect(rows.rows).toEqual(
      [...sessions, "bt-fan"].sort().map((task_id) => ({ task_id, status: "halted" })),
    );
  });
});

describe("fallbacks: polling without NATS, fail-safe without both", () => {
  it("halts by polling alone when NATS is down, and freezes when Redis is down too", async () => {
    const redis = await startPrivateRedis();
    const nats = await startPrivateNats();
    const p = await startTestPlatform("pglite", {
      SVC_REDIS_URL: redis.url,
      SVC_NATS_URL: nats.url,
      SVC_KILLSWITCH_POLL_INTERVAL_S: String(POLL_INTERVAL_MS / 1_000),
    });
    try {
      await approvedSession(p, "lonely", "solo");
      await nats.stop();
      const c = createClient({ url: redis.url });
      await c.connect();
      await c.set("svc:bots:killswitch:platform:platform", "no bus");
      // With no bus, only the poll can halt it: within one poll interval and the halt itself,
      // which is sooner than a poll at the default interval (5 s) would find the key.
      await eventually(
        "lonely halts by polling alone",
        () => statusOf(p, "lonely"),
        (s) => s === "halted",
        POLL_INTERVAL_MS + 3_000,
      );
      await c.del("svc:bots:killswitch:platform:platform");
      await eventually(
        "lonely restarts by polling alone",
        () => statusOf(p, "lonely"),
        (s) => s === "running",
      );
      await c.quit();
      await redis.stop();
      const frozen = await eventually(
        "lonely records a fail-safe freeze, blind for three polls",
        async () =>
          (
            await sql<{
              n: number;
            }>`select count(*)::int as n from bots.bot_events where type = 'fail_safe' and data->>'frozen' = 'true'`.execute(
              p.platform.db.db,
            )
          ).rows[0]!.n,
        (n) => n > 0,
        3 * POLL_INTERVAL_MS + 5_000,
      );
      expect(frozen).toBe(1);
    } finally {
      await p.close().catch(() => undefined);
    }
  }, 40_000);
});
